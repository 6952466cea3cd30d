import DoseCore
import Foundation
import PostgresNIO

/// One person's night tables in a PostgreSQL store. Each write is one transaction under the person's lock
/// (`PostgresStore.transaction(writingFor:)`), which gives what SQLite's single writer gave: two actions on one night
/// can never both act on the same state.
public struct PostgresNightRepository: NightRepository {
    /// The store.
    public let store: PostgresStore
    /// Whose nights these are.
    public let person: String

    /// The nights of `person` in `store` (`PostgresStore.addPerson` or `soloPerson` made the person's row).
    public init(store: PostgresStore, person: String) {
        self.store = store
        self.person = person
    }

    public func write<T>(_ body: (any NightTransaction) throws -> T) throws -> T {
        try store.transaction(writingFor: person) { session in try body(PostgresNightTransaction(session: session, person: person)) }
    }

    public func read<T>(_ body: (any NightTransaction) throws -> T) throws -> T {
        try store.transaction(readOnly: true) { session in try body(PostgresNightTransaction(session: session, person: person)) }
    }
}

/// One PostgreSQL transaction seen as a `NightTransaction`. Instants go in as the same fixed-width UTC text SQLite keeps
/// and come back through `dosetap_instant`, so they round-trip to the millisecond, exactly.
struct PostgresNightTransaction: NightTransaction {
    let session: PostgresSession
    let person: String

    /// The columns of a `sleep_sessions` row a night is built from, in `night(from:)` order.
    static let nightColumns =
        "id, to_char(session_date, 'YYYY-MM-DD'), dosetap_instant(started_at), dosetap_instant(ended_at), end_reason"

    func settings(machineTimeZoneID: String) throws -> DoseSettings {
        let stored = try PostgresSettingsTransaction(session: session, person: person).storedSettings()
        return try SettingsStore.settings(from: stored, machineTimeZoneID: machineTimeZoneID)
    }

    func openNight() throws -> NightSession? {
        let rows = try session.rows(
            PostgresQuery(unsafeSQL: "SELECT \(Self.nightColumns) FROM sleep_sessions WHERE person_id = $1 AND ended_at IS NULL", binds: binds(person)))
        return try nights(from: rows).first
    }

    func doses(near instant: Date) throws -> [RecordedDose] {
        let spacing = TimeInterval(DoseWindow.redoseSpacingMinutes * 60)
        return try recordedDoses(
            """
            SELECT event_type, dosetap_instant(occurred_at), session_id FROM dose_events
            WHERE person_id = \(person) AND event_type IN ('dose1', 'dose2', 'extra_dose')
                AND occurred_at > \(text(instant.addingTimeInterval(-spacing)))::timestamptz
                AND occurred_at < \(text(instant.addingTimeInterval(spacing)))::timestamptz
            ORDER BY occurred_at, id
            """)
    }

    func dosesOfNights(before instant: Date) throws -> [RecordedDose] {
        let spacing = TimeInterval(DoseWindow.redoseSpacingMinutes * 60)
        return try recordedDoses(
            """
            SELECT event_type, dosetap_instant(occurred_at), session_id FROM dose_events
            WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND session_id IN (
                SELECT session_id FROM dose_events
                WHERE person_id = \(person) AND event_type IN ('dose1', 'dose2', 'extra_dose')
                    AND occurred_at > \(text(instant.addingTimeInterval(-spacing)))::timestamptz AND occurred_at <= \(text(instant))::timestamptz)
            ORDER BY occurred_at, id
            """)
    }

    func sleepEvents(_ type: SleepEventType, within seconds: TimeInterval, of instant: Date) throws -> [Date] {
        let rows = try session.rows(
            """
            SELECT dosetap_instant(occurred_at) FROM sleep_events
            WHERE person_id = \(person) AND event_type = \(type.rawValue)
                AND occurred_at > \(text(instant.addingTimeInterval(-seconds)))::timestamptz
                AND occurred_at < \(text(instant.addingTimeInterval(seconds)))::timestamptz
            ORDER BY occurred_at
            """)
        return try rows.map { NightRecords.instant(try $0.decode(String.self)) }
    }

    func usualSleepEnvironment(before instant: Date) throws -> SleepEnvironment? {
        let rows = try session.rows(
            """
            SELECT sleep_environment_json FROM morning_checkins
            WHERE person_id = \(person) AND sleep_environment_json IS NOT NULL AND occurred_at < \(text(instant))::timestamptz
            ORDER BY occurred_at DESC LIMIT 1
            """)
        guard let text = try rows.first?.decode(String.self) else { return nil }
        return try? JSONDecoder().decode(SleepEnvironment.self, from: Data(text.utf8))
    }

    func nightsEnded(since instant: Date) throws -> [(night: NightSession, checkedIn: Bool)] {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.nightColumns), EXISTS (SELECT 1 FROM morning_checkins c WHERE c.session_id = s.id)
                    FROM sleep_sessions s WHERE person_id = $1 AND ended_at >= $2::timestamptz ORDER BY ended_at DESC
                    """, binds: binds(person, text(instant))))
        let nights = try nights(from: rows)
        return try zip(nights, rows).map { night, row in (night, try row.makeRandomAccess()[5].decode(Bool.self)) }
    }

    func latestNightEnded(after instant: Date) throws -> (date: SessionKey, endedAt: Date)? {
        let rows = try session.rows(
            """
            SELECT to_char(session_date, 'YYYY-MM-DD'), dosetap_instant(ended_at) FROM sleep_sessions
            WHERE person_id = \(person) AND ended_at > \(text(instant))::timestamptz ORDER BY ended_at DESC LIMIT 1
            """)
        guard let (date, ended) = try rows.first?.decode((String, String).self), let key = SessionKey(parsing: date) else { return nil }
        return (key, NightRecords.instant(ended))
    }

    func isRecorded(_ id: EventID) throws -> Bool {
        let rows = try session.rows(
            """
            SELECT EXISTS (SELECT 1 FROM dose_events WHERE id = \(id.rawValue)) OR EXISTS (SELECT 1 FROM sleep_events WHERE id = \(id.rawValue))
                OR EXISTS (SELECT 1 FROM morning_checkins WHERE id = \(id.rawValue))
            """)
        return try rows.first?.decode(Bool.self) ?? false
    }

    func storedResponse(device: String, key: String) throws -> StoredResponse? {
        let rows = try session.rows("SELECT request_hash, status, response FROM idempotency_keys WHERE device_id = \(device) AND key = \(key)")
        guard let (hash, status, body) = try rows.first?.decode((String, Int, String).self) else { return nil }
        return StoredResponse(requestHash: hash, status: status, body: body)
    }

    func alarmAnswers(night: SessionID) throws -> [Date] {
        let rows = try session.rows("SELECT dosetap_instant(at) FROM alarm_acknowledgements WHERE session_id = \(night.rawValue) ORDER BY at, id")
        return try rows.map { NightRecords.instant(try $0.decode(String.self)) }
    }

    func unansweredAlarms(night: SessionID, at now: Date) throws -> [LoggedReminder] {
        let rows = try session.rows("SELECT kind, dosetap_instant(fire_at), outcome FROM reminder_log WHERE session_id = \(night.rawValue)")
        let logged = try rows.map { row in
            let (kind, fireAt, outcome) = try row.decode((String, String, String).self)
            return LoggedReminder(kind: kind, fireAt: NightRecords.instant(fireAt), outcome: outcome)
        }
        return LoggedReminder.unanswered(logged, lastAnswer: try alarmAnswers(night: night).max(), at: now)
    }

    func loggedReminders(night: SessionID) throws -> Set<String> {
        let rows = try session.rows("SELECT kind, dosetap_instant(fire_at) FROM reminder_log WHERE session_id = \(night.rawValue)")
        return Set(
            try rows.map { row in
                let (kind, fireAt) = try row.decode((String, String).self)
                return Reminder.logKey(kind: kind, fireAt: NightRecords.instant(fireAt))
            })
    }

    func insertNight(_ night: NightSession, timeZone: TimeZone) throws {
        try session.execute(
            """
            INSERT INTO sleep_sessions (id, person_id, session_date, started_at, time_zone)
            VALUES (\(night.id.rawValue), \(person), \(night.date.description)::date, \(text(night.startedAt))::timestamptz, \(timeZone.identifier))
            """)
    }

    func insert(_ event: NightEvent, night: SessionID, checkIn: MorningCheckIn?) throws {
        var binds = PostgresBindings()
        for value in [event.id.rawValue, person, night.rawValue, text(event.occurredAt), text(event.recordedAt)] { binds.append(value) }
        binds.append(event.utcOffsetMinutes)
        binds.append(event.timeZoneID)
        binds.append(event.source.rawValue)
        binds.append(event.note)
        let columns = "id, person_id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note"
        let values = "$1, $2, $3, $4::timestamptz, $5::timestamptz, $6, $7, $8, $9"
        switch event.kind {
        case .dose1, .dose2, .extraDose, .dose2Skipped, .snooze:
            binds.append(event.kind.wireName)
            binds.append(String(decoding: try NightRecords.metadataEncoder.encode(event.metadata), as: UTF8.self))
            try session.execute(
                PostgresQuery(unsafeSQL: "INSERT INTO dose_events (\(columns), event_type, metadata) VALUES (\(values), $10, $11)", binds: binds))
        case .sleep(let type):
            binds.append(type.rawValue)
            binds.append((SleepEventCatalogue.standard.definition(of: type)?.category ?? .custom).rawValue)
            try session.execute(
                PostgresQuery(unsafeSQL: "INSERT INTO sleep_events (\(columns), event_type, category) VALUES (\(values), $10, $11)", binds: binds))
        case .checkIn:
            let answers = CheckInColumns(checkIn ?? MorningCheckIn())
            for value in try answers.values() { value.append(to: &binds) }
            let marks = (10..<(10 + CheckInColumns.names.count)).map { "$\($0)" }.joined(separator: ", ")
            try session.execute(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO morning_checkins (\(columns), \(CheckInColumns.names.joined(separator: ", "))) VALUES (\(values), \(marks))",
                    binds: binds))
        }
    }

    func night(holding id: EventID) throws -> NightSession? {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.nightColumns) FROM sleep_sessions WHERE person_id = $1 AND id IN (
                        SELECT session_id FROM dose_events WHERE id = $2 UNION ALL SELECT session_id FROM sleep_events WHERE id = $2
                        UNION ALL SELECT session_id FROM morning_checkins WHERE id = $2)
                    """, binds: binds(person, id.rawValue)))
        return try nights(from: rows).first
    }

    func delete(_ event: NightEvent) throws {
        try session.execute(PostgresQuery(unsafeSQL: "DELETE FROM \(NightRecords.table(of: event.kind)) WHERE id = $1", binds: binds(event.id.rawValue)))
    }

    func update(_ event: NightEvent) throws {
        var binds = PostgresBindings()
        binds.append(text(event.occurredAt))
        binds.append(event.utcOffsetMinutes)
        binds.append(event.note)
        binds.append(event.id.rawValue)
        try session.execute(
            PostgresQuery(
                unsafeSQL: "UPDATE \(NightRecords.table(of: event.kind)) SET occurred_at = $1::timestamptz, utc_offset_minutes = $2, note = $3 WHERE id = $4",
                binds: binds))
        if event.kind.isDoseEvent {
            let metadata = String(decoding: try NightRecords.metadataEncoder.encode(event.metadata), as: UTF8.self)
            try session.execute("UPDATE dose_events SET metadata = \(metadata) WHERE id = \(event.id.rawValue)")
        }
    }

    func audit(_ change: EventChange, of event: NightEvent, night: SessionID, auditID: String, at instant: Date) throws {
        let (action, details) = NightRecords.audit(change, of: event)
        let json = String(decoding: try NightRecords.metadataEncoder.encode(details), as: UTF8.self)
        try session.execute(
            """
            INSERT INTO audit_log (id, person_id, at, action, session_id, entity_id, details)
            VALUES (\(auditID), \(person), \(text(instant))::timestamptz, \(action.rawValue), \(night.rawValue), \(event.id.rawValue), \(json))
            """)
    }

    func saveNight(_ night: NightSession, closure: SessionClosure?) throws {
        let summary = NightSummary(night)
        try session.execute(
            """
            UPDATE sleep_sessions SET dose1_at = \(summary.dose1.map { text($0.at) })::timestamptz,
                dose2_at = \(summary.dose2.map { text($0.at) })::timestamptz, dose2_skipped = \(summary.skip != nil),
                extra_dose_count = \(summary.extraDoses.count), snooze_count = \(summary.snoozes), interval_minutes = \(summary.intervalMinutes)
            WHERE id = \(night.id.rawValue)
            """)
        try session.execute(
            """
            INSERT INTO night_summaries (session_id, dose1_time_zone, dose2_time_zone, extra_doses, skip_reason, slept_through, awakenings)
            VALUES (\(night.id.rawValue), \(summary.dose1?.timeZoneID), \(summary.dose2?.timeZoneID),
                \(NightSummaries.extraDosesText(summary.extraDoses)), \(summary.skip?.reason), \(summary.skip?.sleptThrough ?? false),
                \(summary.awakenings))
            ON CONFLICT (session_id) DO UPDATE SET dose1_time_zone = excluded.dose1_time_zone, dose2_time_zone = excluded.dose2_time_zone,
                extra_doses = excluded.extra_doses, skip_reason = excluded.skip_reason, slept_through = excluded.slept_through,
                awakenings = excluded.awakenings
            """)
        if let closure {
            try session.execute(
                """
                UPDATE sleep_sessions SET ended_at = \(text(closure.endedAt))::timestamptz, end_reason = \(closure.reason.rawValue),
                    terminal_state = \(closure.terminalState.rawValue) WHERE id = \(night.id.rawValue)
                """)
        } else if let endedAt = night.endedAt {
            // A corrected past night: its outcome follows its events.
            let state = NightFacts(night.events).terminalState(at: endedAt).rawValue
            try session.execute("UPDATE sleep_sessions SET terminal_state = \(state) WHERE id = \(night.id.rawValue)")
        }
    }

    func insertAlarmAnswer(id: String, night: SessionID, at instant: Date, surface: AlarmSurface, eventID: EventID?) throws {
        try session.execute(
            """
            INSERT INTO alarm_acknowledgements (id, session_id, at, surface, event_id)
            VALUES (\(id), \(night.rawValue), \(text(instant))::timestamptz, \(surface.rawValue), \(eventID?.rawValue))
            """)
    }

    func storeResponse(_ response: StoredResponse, device: String, key: String, at instant: Date) throws {
        try session.execute(
            """
            INSERT INTO idempotency_keys (person_id, device_id, key, request_hash, status, response, created_at)
            VALUES (\(person), \(device), \(key), \(response.requestHash), \(response.status), \(response.body), \(text(instant))::timestamptz)
            """)
    }

    func logReminder(_ reminder: Reminder, night: SessionID, missed: Bool, at instant: Date) throws {
        try session.execute(
            """
            INSERT INTO reminder_log (session_id, kind, fire_at, outcome, recorded_at)
            VALUES (\(night.rawValue), \(reminder.kind.rawValue), \(text(reminder.fireAt))::timestamptz, \(missed ? "missed" : "fired"),
                \(text(instant))::timestamptz)
            """)
    }

    /// Nothing to remember: every instance may write, so the open night is always read from the database.
    func keepOpenNight(_ night: NightSession?) {}

    // MARK: Reading rows

    private func text(_ instant: Date) -> String { ISO8601.string(instant) }

    private func binds(_ values: String...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    private func recordedDoses(_ query: PostgresQuery) throws -> [RecordedDose] {
        try session.rows(query).map { row in
            let (kind, at, night) = try row.decode((String, String, String).self)
            return RecordedDose(kind: EventKind(wireName: kind), at: NightRecords.instant(at), night: SessionID(rawValue: night))
        }
    }

    /// Nights from rows that start with `nightColumns`, with their events loaded in one query per table.
    private func nights(from rows: [PostgresRow]) throws -> [NightSession] {
        let heads = try rows.map { row in
            let cells = row.makeRandomAccess()
            return (
                id: try cells[0].decode(String.self), date: try cells[1].decode(String.self), started: try cells[2].decode(String.self),
                ended: try cells[3].decode(String?.self), reason: try cells[4].decode(String?.self)
            )
        }
        let events = try self.events(ofNights: heads.map(\.id))
        return heads.map { head in
            NightSession(
                id: SessionID(rawValue: head.id), date: SessionKey(parsing: head.date) ?? SessionKey(year: 1970, month: 1, day: 1)!,
                startedAt: NightRecords.instant(head.started), events: events[head.id] ?? [], endedAt: head.ended.map(NightRecords.instant),
                endReason: head.reason.flatMap(EndReason.init(rawValue:)))
        }
    }

    /// The events of the given nights, grouped by night id (unordered; `NightSession` sorts them).
    private func events(ofNights ids: [String]) throws -> [String: [NightEvent]] {
        guard !ids.isEmpty else { return [:] }
        var result: [String: [NightEvent]] = [:]
        let shared =
            "dosetap_instant(occurred_at), dosetap_instant(recorded_at), time_zone, utc_offset_minutes, source, note, session_id"
        // Columns after the table's name: id, type, the shared columns (session_id last), metadata.
        func event(_ cells: PostgresRandomAccessRow, kind: EventKind) throws -> NightEvent {
            NightEvent(
                id: EventID(rawValue: try cells[1].decode(String.self)), kind: kind, occurredAt: NightRecords.instant(try cells[3].decode(String.self)),
                recordedAt: NightRecords.instant(try cells[4].decode(String.self)), timeZoneID: try cells[5].decode(String.self),
                utcOffsetMinutes: try cells[6].decode(Int.self), source: EventSource(rawValue: try cells[7].decode(String.self)) ?? .imported,
                note: try cells[8].decode(String?.self))
        }
        var idBinds = PostgresBindings()
        idBinds.append(ids)
        // One round trip for the three tables: the table's name first, then the shared columns, then dose metadata.
        let query = """
            SELECT 'dose', id, event_type, \(shared), metadata FROM dose_events WHERE session_id = ANY($1)
            UNION ALL SELECT 'sleep', id, event_type, \(shared), NULL FROM sleep_events WHERE session_id = ANY($1)
            UNION ALL SELECT 'checkin', id, NULL, \(shared), NULL FROM morning_checkins WHERE session_id = ANY($1)
            """
        for row in try session.rows(PostgresQuery(unsafeSQL: query, binds: idBinds)) {
            let cells = row.makeRandomAccess()
            var recorded: NightEvent
            switch try cells[0].decode(String.self) {
            case "dose":
                recorded = try event(cells, kind: EventKind(wireName: try cells[2].decode(String.self)))
                recorded.metadata = try NightRecords.metadataDecoder.decode(EventMetadata.self, from: Data(try cells[10].decode(String.self).utf8))
            case "sleep":
                recorded = try event(cells, kind: .sleep(SleepEventType(rawValue: try cells[2].decode(String.self))))
            default:
                recorded = try event(cells, kind: .checkIn)
            }
            result[try cells[9].decode(String.self), default: []].append(recorded)
        }
        return result
    }
}
