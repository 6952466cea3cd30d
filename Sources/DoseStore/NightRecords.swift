import DoseCore
import Foundation
import GRDB

/// Reading and writing nights and their events as rows. Every function runs inside the caller's transaction.
enum NightRecords {
    static let metadataEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    // MARK: Sessions

    /// The open night, if any, with its events.
    static func openSession(_ db: Database) throws -> NightSession? {
        guard let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM sleep_sessions WHERE ended_at IS NULL")) else { return nil }
        return try session(from: row, db)
    }

    /// One night by id.
    static func session(id: SessionID, _ db: Database) throws -> NightSession? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sleep_sessions WHERE id = ?", arguments: [id.rawValue]) else { return nil }
        return try session(from: row, db)
    }

    /// The latest-started night with that session date, with its events; nil when there is none (imports join it).
    static func latestSession(on key: SessionKey, _ db: Database) throws -> NightSession? {
        let sql = "SELECT * FROM sleep_sessions WHERE session_date = ? ORDER BY started_at DESC LIMIT 1"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [key.description]) else { return nil }
        return try sessions(from: [row], db).first
    }

    /// Nights from `sleep_sessions` rows, with their events loaded in one query per table.
    static func sessions(from rows: [Row], _ db: Database) throws -> [NightSession] {
        let ids = rows.map { $0["id"] as String }
        let events = try self.events(ofSessions: ids, db)
        return rows.map { row in
            let id: String = row["id"]
            return NightSession(
                id: SessionID(rawValue: id), date: SessionKey(parsing: row["session_date"]) ?? SessionKey(year: 1970, month: 1, day: 1)!,
                startedAt: instant(row["started_at"]), events: events[id] ?? [],
                endedAt: (row["ended_at"] as String?).map(instant), endReason: (row["end_reason"] as String?).flatMap(EndReason.init(rawValue:)))
        }
    }

    private static func session(from row: Row, _ db: Database) throws -> NightSession {
        try sessions(from: [row], db)[0]
    }

    /// Inserts the row of a newly started night.
    ///
    /// A night inserted with its `closure` is closed from its first row, so a past night can be added while another
    /// night is open (only one row may have no end).
    static func insertSession(_ session: NightSession, timeZone: TimeZone, closure: SessionClosure? = nil, _ db: Database) throws {
        try db.execute(
            literal: """
                INSERT INTO sleep_sessions (id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state)
                VALUES (\(session.id.rawValue), \(session.date.description), \(ISO8601.string(session.startedAt)), \(timeZone.identifier),
                    \(closure.map { ISO8601.string($0.endedAt) }), \(closure?.reason.rawValue), \(closure?.terminalState.rawValue))
                """)
    }

    /// Rebuilds the derived columns and the summary of a night from its events, and records its close (D12, D13).
    static func refreshSession(_ session: NightSession, closure: SessionClosure?, _ db: Database) throws {
        try NightSummaries.write(session, db)
        if let closure {
            try db.execute(
                sql: "UPDATE sleep_sessions SET ended_at = ?, end_reason = ?, terminal_state = ? WHERE id = ?",
                arguments: [ISO8601.string(closure.endedAt), closure.reason.rawValue, closure.terminalState.rawValue, session.id.rawValue])
        } else if let endedAt = session.endedAt {
            // A corrected past night: its outcome follows its events.
            let facts = session.facts
            try db.execute(
                sql: "UPDATE sleep_sessions SET terminal_state = ? WHERE id = ?",
                arguments: [facts.terminalState(at: endedAt).rawValue, session.id.rawValue])
        }
    }

    // MARK: Events

    /// Events of the given nights, grouped by night id (unordered; `NightSession` sorts them).
    static func events(ofSessions ids: [String], _ db: Database) throws -> [String: [NightEvent]] {
        guard !ids.isEmpty else { return [:] }
        var result: [String: [NightEvent]] = [:]
        // Chunked so a long history never exceeds SQLite's parameter limit.
        for start in stride(from: 0, to: ids.count, by: sessionsPerQuery) {
            let chunk = Array(ids[start..<min(ids.count, start + sessionsPerQuery)])
            let marks = databaseQuestionMarks(count: chunk.count)
            let arguments = StatementArguments(chunk)
            // One night (every action and status) reuses its compiled statements; longer lists are one-offs.
            func rows(_ table: String, type: String = "event_type", extra: String = "") throws -> RowCursor {
                let sql = "SELECT id, \(type), \(eventColumns)\(extra) FROM \(table) WHERE session_id IN (\(marks))"
                return chunk.count == 1
                    ? try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
                    : try Row.fetchCursor(db, sql: sql, arguments: arguments)
            }
            let doses = try rows("dose_events", extra: ", metadata")
            while let row = try doses.next() {
                var event = baseEvent(row, kind: EventKind(wireName: row[EventColumn.type]))
                let json: String = row[EventColumn.extra]
                event.metadata = try metadataDecoder.decode(EventMetadata.self, from: Data(json.utf8))
                result[row[EventColumn.sessionID], default: []].append(event)
            }
            let sleeps = try rows("sleep_events")
            while let row = try sleeps.next() {
                result[row[EventColumn.sessionID], default: []].append(baseEvent(row, kind: .sleep(SleepEventType(rawValue: row[EventColumn.type]))))
            }
            let checkIns = try rows("morning_checkins", type: "NULL")
            while let row = try checkIns.next() {
                result[row[EventColumn.sessionID], default: []].append(baseEvent(row, kind: .checkIn))
            }
        }
        return result
    }

    /// Session ids per query: a long history never exceeds SQLite's parameter limit.
    static let sessionsPerQuery = 500

    /// Calls `body` with each row `sql` selects for the given nights, a chunk of ids at a time; `sql` receives the
    /// `?, ?, …` of a chunk. Rows are read in place, never copied: each is valid only inside `body`.
    static func forEachRow(of ids: [String], sql: (String) -> String, _ db: Database, _ body: (Row) throws -> Void) throws {
        for start in stride(from: 0, to: ids.count, by: sessionsPerQuery) {
            let chunk = Array(ids[start..<min(ids.count, start + sessionsPerQuery)])
            let rows = try Row.fetchCursor(db, sql: sql(databaseQuestionMarks(count: chunk.count)), arguments: StatementArguments(chunk))
            while let row = try rows.next() { try body(row) }
        }
    }

    /// Oxybate doses of every night taken strictly inside `span`.
    static func doses(within span: InstantSpan, _ db: Database) throws -> [RecordedDose] {
        // Stored instants share one fixed-width UTC form, so text order is time order and the index serves the range.
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT event_type, occurred_at, session_id FROM dose_events
                WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND occurred_at > ? AND occurred_at < ?
                """, arguments: [ISO8601.string(span.after), ISO8601.string(span.before)])
        return rows.map(recordedDose)
    }

    /// A dose row (`event_type`, `occurred_at`, `session_id`) as the rules read it.
    static func recordedDose(_ row: Row) -> RecordedDose {
        RecordedDose(
            kind: EventKind(wireName: row["event_type"] ?? ""), at: instant(row["occurred_at"] ?? ""),
            night: (row["session_id"] as String?).map(SessionID.init(rawValue:)))
    }

    /// Every oxybate dose of the nights with one taken after `start` and up to `end`, with their nights, oldest first.
    static func dosesOfNights(withDoseAfter start: Date, through end: Date, _ db: Database) throws -> [RecordedDose] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT event_type, occurred_at, session_id FROM dose_events
                WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND session_id IN (
                    SELECT session_id FROM dose_events
                    WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND occurred_at > ? AND occurred_at <= ?)
                ORDER BY occurred_at
                """, arguments: [ISO8601.string(start), ISO8601.string(end)])
        return rows.map(recordedDose)
    }

    /// When events of one sleep type were logged in any night less than `seconds` from `instant`, either side.
    static func sleepEvents(_ type: SleepEventType, within seconds: TimeInterval, of instant: Date, _ db: Database) throws -> [Date] {
        try String.fetchAll(
            db, sql: "SELECT occurred_at FROM sleep_events WHERE event_type = ? AND occurred_at > ? AND occurred_at < ?",
            arguments: [type.rawValue, ISO8601.string(instant.addingTimeInterval(-seconds)), ISO8601.string(instant.addingTimeInterval(seconds))]
        )
        .map(Self.instant)
    }

    static func instant(_ text: String) -> Date {
        ISO8601.parse(text) ?? Date(timeIntervalSince1970: 0)
    }

    /// The columns every event table shares after `id` and the type, in `EventColumn` order.
    private static let eventColumns = "occurred_at, recorded_at, time_zone, utc_offset_minutes, source, note, session_id"
    static let metadataDecoder = JSONDecoder()

    private static func baseEvent(_ row: Row, kind: EventKind) -> NightEvent {
        // The stored offset is the one in force when it happened; keep it even if zone rules change later.
        NightEvent(
            id: EventID(rawValue: row[EventColumn.id]), kind: kind, occurredAt: instant(row[EventColumn.occurredAt]),
            recordedAt: instant(row[EventColumn.recordedAt]), timeZoneID: row[EventColumn.timeZone],
            utcOffsetMinutes: row[EventColumn.utcOffsetMinutes],
            source: EventSource(rawValue: row[EventColumn.source]) ?? .imported, note: row[EventColumn.note])
    }

    /// Inserts an event into its table; a check-in needs its answers.
    static func insert(_ event: NightEvent, session: SessionID, checkIn: MorningCheckIn?, catalogue: SleepEventCatalogue, _ db: Database) throws {
        // The columns every event table shares, and their values, named together.
        let columns: SQL = "id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note"
        let values: SQL = """
            \(event.id.rawValue), \(session.rawValue), \(ISO8601.string(event.occurredAt)), \(ISO8601.string(event.recordedAt)),
            \(event.utcOffsetMinutes), \(event.timeZoneID), \(event.source.rawValue), \(event.note)
            """
        switch event.kind {
        case .dose1, .dose2, .extraDose, .dose2Skipped, .snooze:
            let metadata = String(decoding: try metadataEncoder.encode(event.metadata), as: UTF8.self)
            try db.execute(
                literal: "INSERT INTO dose_events (\(columns), event_type, metadata) VALUES (\(values), \(event.kind.wireName), \(metadata))")
        case .sleep(let type):
            let category = catalogue.definition(of: type)?.category ?? .custom
            try db.execute(
                literal: "INSERT INTO sleep_events (\(columns), event_type, category) VALUES (\(values), \(type.rawValue), \(category.rawValue))")
        case .checkIn:
            // Inserted with the defaults' answers, then written in full by the one writer insert and edit share.
            try db.execute(
                literal: """
                    INSERT INTO morning_checkins (\(columns), sleep_quality, feel_rested, grogginess, mental_clarity, mood, readiness, wellness_score)
                    VALUES (\(values), 3, 'moderate', 'mild', 5, 'neutral', 3, 58)
                    """)
            try writeAnswers(checkIn ?? MorningCheckIn(), checkInID: event.id.rawValue, db)
        }
    }

    /// Writes every answer of a check-in onto its row (insert and edit share this).
    static func writeAnswers(_ answers: MorningCheckIn, checkInID: String, _ db: Database) throws {
        let assignments = CheckInColumns.names.map { "\($0) = ?" }.joined(separator: ", ")
        let values = try CheckInColumns(answers).values().map(\.sqlite) + [checkInID]
        try db.execute(sql: "UPDATE morning_checkins SET \(assignments) WHERE id = ?", arguments: StatementArguments(values))
    }

    /// Deletes one event from whichever table holds it.
    static func delete(_ event: NightEvent, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table(of: event.kind)) WHERE id = ?", arguments: [event.id.rawValue])
    }

    /// The table holding events of a kind.
    static func table(of kind: EventKind) -> String {
        switch kind {
        case .sleep: "sleep_events"
        case .checkIn: "morning_checkins"
        default: "dose_events"
        }
    }

    /// Rewrites an edited event's time, offset, note and metadata.
    static func update(_ event: NightEvent, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE \(table(of: event.kind)) SET occurred_at = ?, utc_offset_minutes = ?, note = ? WHERE id = ?",
            arguments: [ISO8601.string(event.occurredAt), event.utcOffsetMinutes, event.note, event.id.rawValue])
        if event.kind.isDoseEvent {
            let metadata = String(decoding: try metadataEncoder.encode(event.metadata), as: UTF8.self)
            try db.execute(sql: "UPDATE dose_events SET metadata = ? WHERE id = ?", arguments: [metadata, event.id.rawValue])
        }
    }

    /// The night holding an event id, if any.
    static func sessionID(ofEvent id: EventID, _ db: Database) throws -> SessionID? {
        try String.fetchOne(
            db,
            sql: """
                SELECT session_id FROM dose_events WHERE id = ?1 UNION ALL SELECT session_id FROM sleep_events WHERE id = ?1
                UNION ALL SELECT session_id FROM morning_checkins WHERE id = ?1 LIMIT 1
                """, arguments: [id.rawValue]
        ).map(SessionID.init(rawValue:))
    }

    /// The `morning_checkins` columns that hold the answers, in the order `answers(from:at:)` reads them.
    static let answerColumns = """
        sleep_quality, feel_rested, grogginess, sleep_inertia_duration, dream_recall, mental_clarity, mood, anxiety_level, readiness,
        had_sleep_paralysis, had_hallucinations, had_automatic_behavior, fell_out_of_bed, had_confusion_on_waking,
        has_physical_symptoms, physical_symptoms_json, has_respiratory_symptoms, respiratory_symptoms_json, sleep_therapy_json,
        sleep_environment_json, notes
        """

    /// The answers in a row that selected `answerColumns` from column `first` on. Read by position: looking columns up
    /// by name was a tenth of loading ten years of nights.
    static func answers(from row: Row, at first: Int) throws -> MorningCheckIn {
        try answers(AnswerCells(int: { row[first + $0] }, text: { row[first + $0] }, flag: { row[first + $0] }))
    }

    /// A row's answer cells by offset from the first, in `answerColumns` order, however the store reads them.
    struct AnswerCells {
        var int: (Int) throws -> Int
        var text: (Int) throws -> String?
        var flag: (Int) throws -> Bool
    }

    /// The answers in cells read in `answerColumns` order.
    static func answers(_ cells: AnswerCells) throws -> MorningCheckIn {
        let decoder = JSONDecoder()
        func decode<T: Decodable>(_ offset: Int) throws -> T? {
            guard let text = try cells.text(offset) else { return nil }
            return try decoder.decode(T.self, from: Data(text.utf8))
        }
        var answers = MorningCheckIn()
        answers.sleepQuality = try cells.int(0)
        answers.feelRested = FeelRested(rawValue: try cells.text(1) ?? "") ?? .moderate
        answers.grogginess = Grogginess(rawValue: try cells.text(2) ?? "") ?? .mild
        answers.sleepInertia = SleepInertia(rawValue: try cells.text(3) ?? "") ?? .fiveToFifteen
        answers.dreamRecall = DreamRecall(rawValue: try cells.text(4) ?? "") ?? .none
        answers.mentalClarity = try cells.int(5)
        answers.mood = Mood(rawValue: try cells.text(6) ?? "") ?? .neutral
        answers.anxietyLevel = AnxietyLevel(rawValue: try cells.text(7) ?? "") ?? .none
        answers.readiness = try cells.int(8)
        answers.hadSleepParalysis = try cells.flag(9)
        answers.hadHallucinations = try cells.flag(10)
        answers.hadAutomaticBehavior = try cells.flag(11)
        answers.fellOutOfBed = try cells.flag(12)
        answers.hadConfusionOnWaking = try cells.flag(13)
        answers.hasPhysicalSymptoms = try cells.flag(14)
        answers.physical = try decode(15)
        answers.hasRespiratorySymptoms = try cells.flag(16)
        answers.respiratory = try decode(17)
        answers.sleepTherapy = try decode(18) ?? []
        answers.environment = try decode(19)
        answers.notes = try cells.text(20)
        return answers
    }

    // MARK: Audit

    /// Keeps what an undo, delete or edit changed.
    static func audit(_ action: AuditAction, id: String, at: Date, session: SessionID?, entity: String?, details: [String: String], _ db: Database)
        throws
    {
        let json = String(decoding: try metadataEncoder.encode(details), as: UTF8.self)
        try AuditRecord(id: id, at: at, action: action, sessionID: session?.rawValue, entityID: entity, details: json).insert(db)
    }

    /// The audit action and details of a change to an event: the event as it was, and for an edit its new time and note.
    static func audit(_ change: EventChange, of event: NightEvent) -> (AuditAction, [String: String]) {
        var details = auditDetails(of: event)
        switch change {
        case .undo: return (.undo, details)
        case .superseded: return (.superseded, details)
        case .deleted: return (.deleteEvent, details)
        case .edited(let occurredAt, let note):
            details["new_occurred_at"] = ISO8601.string(occurredAt)
            details["new_note"] = note ?? ""
            return (.editEvent, details)
        case .takenAnyway(let nightMilligrams, let maximumMilligrams):
            details["amount_mg"] = event.metadata.amountMilligrams.map(String.init) ?? ""
            details["night_mg"] = String(nightMilligrams)
            details["maximum_mg"] = String(maximumMilligrams)
            return (.takenAnyway, details)
        }
    }

    /// The facts of an event worth keeping when it is removed.
    static func auditDetails(of event: NightEvent) -> [String: String] {
        var details = [
            "event_type": event.kind.wireName, "occurred_at": ISO8601.string(event.occurredAt),
            "recorded_at": ISO8601.string(event.recordedAt), "source": event.source.rawValue, "time_zone": event.timeZoneID,
        ]
        if let note = event.note { details["note"] = note }
        return details
    }
}

/// The positions of an event row's columns as `NightRecords.events(ofSessions:)` selects them: `id`, the type, then
/// `eventColumns`, then the table's extra column. Read by position because looking columns up by name on each row was
/// most of the cost of loading a long night; named here so no reader counts.
private enum EventColumn {
    static let id = 0
    static let type = 1
    static let occurredAt = 2
    static let recordedAt = 3
    static let timeZone = 4
    static let utcOffsetMinutes = 5
    static let source = 6
    static let note = 7
    static let sessionID = 8
    /// `metadata` of `dose_events`.
    static let extra = 9
}
