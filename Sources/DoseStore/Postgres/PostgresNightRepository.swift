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
        var ending: (writing: NightWriting, version: PendingRows)?
        let result = try store.transaction(writingFor: person) { session in
            let writing = NightWriting()
            let transaction = PostgresNightTransaction(session: session, person: person, openNights: store.openNights, writing: writing)
            // The person's row lock, before any savepoint (rolling one back would release it), held to the commit: from
            // here on no one else writes a night of this person, so every version this transaction reads is exact.
            writing.version = try transaction.nightVersion(lockingRow: true)
            let result = try body(transaction)
            if writing.planMayChange { try transaction.planReminderJobs() }
            // The version after this transaction's writes, sent to run with the commit.
            ending = writing.kept != nil || writing.borrowed != nil ? (writing, transaction.sendNightVersion()) : nil
            return result
        }
        // Remembered only once committed: a night of a rolled-back action must never be used.
        if let (writing, pending) = ending, let version = try? pending.future.wait().rows.first?.decode(Int64.self) {
            if let night = writing.kept {
                store.openNights.remember(night, of: person, at: version)
            } else if let borrowed = writing.borrowed, borrowed.version == version {
                // A write that only settled and found nothing due gives back the night it borrowed.
                store.openNights.remember(borrowed.night, of: person, at: version)
            }
        }
        return result
    }

    public func writeTogether<T>(_ body: @escaping (any NightTransaction) throws -> T) throws -> T {
        try store.nightWrites(of: person).write(self, body)
    }

    public func read<T>(_ body: (any NightTransaction) throws -> T) throws -> T {
        try store.transaction(readOnly: true, seeing: .person(person)) { session in
            var transaction = PostgresNightTransaction(session: session, person: person, openNights: store.openNights, writing: nil)
            // Sent with the snapshot's BEGIN: the open night it decides on, and the settings it is read with, cost no wait
            // of their own.
            transaction.snapshotVersion = transaction.sendNightVersion()
            transaction.snapshotSettings = PostgresSettingsTransaction(session: session, person: person).sendStoredSettings()
            return try body(transaction)
        }
    }
}

/// What a write transaction, which holds the person's row lock, knows of the person's open night.
final class NightWriting {
    /// The person's night version as of the last statement, while this transaction has not changed a night since
    /// (nil: read it again).
    var version: Int64?
    /// What the last action left open (`.some(nil)`: no night).
    var kept: NightSession??
    /// The settings, read once per transaction, for the machine zone they were read with.
    var settings: (zone: String, settings: DoseSettings)?
    /// The open night as first read, and the version it was read at.
    var borrowed: (version: Int64, night: NightSession?)?
    /// The alarm log of a night as this transaction last read it. Only a write under the person's lock adds to the log,
    /// so it holds until this transaction adds to it (`insertAlarmAnswer`, `logReminder`) or rolls an action back.
    var alarmLog: (night: SessionID, reminders: [LoggedReminder], lastAnswer: Date?)?
    /// Whether this transaction changed something the reminder plan is made of (a night, an answer to an alarm), so its
    /// jobs are planned again before it commits.
    var planMayChange = false
}

/// One PostgreSQL transaction seen as a `NightTransaction`. Instants go in as the same fixed-width UTC text SQLite keeps
/// and come back through `dosetap_instant`, so they round-trip to the millisecond, exactly.
struct PostgresNightTransaction: NightTransaction {
    let session: PostgresSession
    let person: String
    /// The process's remembered open nights.
    let openNights: OpenNights
    /// Set in a write transaction, nil in a read.
    let writing: NightWriting?
    /// A read's night version, sent with its BEGIN.
    var snapshotVersion: PendingRows?
    /// A read's stored settings, sent with its BEGIN.
    var snapshotSettings: PendingRows?

    /// The columns of a `sleep_sessions` row a night is built from, in `night(from:)` order.
    static let nightColumns =
        "id, to_char(session_date, 'YYYY-MM-DD'), dosetap_instant(started_at), dosetap_instant(ended_at), end_reason"

    func settings(machineTimeZoneID: String) throws -> DoseSettings {
        // No night action writes a setting, so the actions of one batch read them once.
        if let stored = writing?.settings, stored.zone == machineTimeZoneID { return stored.settings }
        let stored =
            if let snapshotSettings {
                try PostgresSettingsTransaction.storedSettings(from: session.rows(of: snapshotSettings))
            } else {
                try PostgresSettingsTransaction(session: session, person: person).storedSettings()
            }
        let settings = try SettingsStore.settings(from: stored, machineTimeZoneID: machineTimeZoneID)
        writing?.settings = (machineTimeZoneID, settings)
        return settings
    }

    func openNight() throws -> NightSession? {
        if let writing {
            if let kept = writing.kept {
                // An earlier action of this batch left it open, and under the lock only this transaction writes.
                writing.kept = nil
                return kept
            }
            if let version = try writing.version ?? nightVersion(lockingRow: false) {
                writing.version = version
                let night = try openNights.take(person, at: version) ?? loadOpenNight()
                if writing.borrowed == nil { writing.borrowed = (version, night) }
                return night
            }
        } else if let version = try snapshotVersion.map({ try session.rows(of: $0).first?.decode(Int64.self) }) ?? nightVersion(lockingRow: false) {
            // A snapshot that reads a version holds exactly the nights of the commit that set it.
            if let remembered = openNights.peek(person, at: version) { return remembered }
            let night = try loadOpenNight()
            openNights.remember(night, of: person, at: version, unlessNewer: true)
            return night
        }
        return try loadOpenNight()
    }

    /// The person's `night_version`, which every change to a night table of theirs replaces.
    func nightVersion(lockingRow: Bool) throws -> Int64? {
        let lock = lockingRow ? " FOR NO KEY UPDATE" : ""
        let rows = try session.rows(PostgresQuery(unsafeSQL: "SELECT night_version FROM people WHERE id = $1\(lock)", binds: binds(person)))
        return try rows.first?.decode(Int64.self)
    }

    /// Sends the read of the person's night version without waiting for it.
    func sendNightVersion() -> PendingRows {
        session.send(PostgresQuery(unsafeSQL: "SELECT night_version FROM people WHERE id = $1", binds: binds(person)))
    }

    /// Sends a write without waiting: its error comes with the next statement waited for, at the latest the commit (or
    /// a savepoint's release). A write to a night table makes the known version stale.
    func write(_ query: PostgresQuery, changingNights: Bool = true) {
        if changingNights {
            writing?.version = nil
            writing?.planMayChange = true
        }
        session.send(query)
    }

    private func loadOpenNight() throws -> NightSession? {
        // The night and its events with one wait: both statements are sent before either is waited for.
        let open = "FROM sleep_sessions WHERE person_id = $1 AND ended_at IS NULL"
        let heads = session.send(PostgresQuery(unsafeSQL: "SELECT \(Self.nightColumns) \(open)", binds: binds(person)))
        let events = sendEvents(where: "session_id IN (SELECT id \(open))", binds: binds(person))
        let rows = try session.rows(of: heads)
        return try nights(from: rows, events: try self.events(from: try session.rows(of: events))).first
    }

    func doses(within span: InstantSpan) throws -> [RecordedDose] {
        try recordedDoses(
            """
            SELECT event_type, dosetap_instant(occurred_at), session_id FROM dose_events
            WHERE person_id = \(person) AND event_type IN ('dose1', 'dose2', 'extra_dose')
                AND occurred_at > \(text(span.after))::timestamptz AND occurred_at < \(text(span.before))::timestamptz
            ORDER BY occurred_at, id
            """)
    }

    func dosesOfNights(withDoseAfter start: Date, through end: Date) throws -> [RecordedDose] {
        try recordedDoses(
            """
            SELECT event_type, dosetap_instant(occurred_at), session_id FROM dose_events
            WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND session_id IN (
                SELECT session_id FROM dose_events
                WHERE person_id = \(person) AND event_type IN ('dose1', 'dose2', 'extra_dose')
                    AND occurred_at > \(text(start))::timestamptz AND occurred_at <= \(text(end))::timestamptz)
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
            SELECT EXISTS (SELECT 1 FROM dose_events WHERE person_id = \(person) AND id = \(id.rawValue))
                OR EXISTS (SELECT 1 FROM sleep_events WHERE person_id = \(person) AND id = \(id.rawValue))
                OR EXISTS (SELECT 1 FROM morning_checkins WHERE person_id = \(person) AND id = \(id.rawValue))
            """)
        return try rows.first?.decode(Bool.self) ?? false
    }

    func storedResponse(device: String, key: String) throws -> StoredResponse? {
        let rows = try session.rows(
            "SELECT request_hash, status, response FROM idempotency_keys WHERE person_id = \(person) AND device_id = \(device) AND key = \(key)")
        guard let (hash, status, body) = try rows.first?.decode((String, Int, String).self) else { return nil }
        return StoredResponse(requestHash: hash, status: status, body: body)
    }

    func alarmAnswers(night: SessionID) throws -> [Date] {
        let rows = try session.rows("SELECT dosetap_instant(at) FROM alarm_acknowledgements WHERE session_id = \(night.rawValue) ORDER BY at, id")
        return try rows.map { NightRecords.instant(try $0.decode(String.self)) }
    }

    func alarmLog(night: SessionID) throws -> (reminders: [LoggedReminder], lastAnswer: Date?) {
        // The actions of one batch each ask whether the night's alarms ring: one read answers them all.
        if let known = writing?.alarmLog, known.night == night { return (known.reminders, known.lastAnswer) }
        let log = try readAlarmLog(night: night)
        writing?.alarmLog = (night, log.reminders, log.lastAnswer)
        return log
    }

    private func readAlarmLog(night: SessionID) throws -> (reminders: [LoggedReminder], lastAnswer: Date?) {
        // One round trip: the logged reminders, each with the night's last answer (no rows: nothing rang).
        let rows = try session.rows(
            """
            SELECT kind, dosetap_instant(fire_at), outcome, (SELECT dosetap_instant(max(at)) FROM alarm_acknowledgements WHERE
            session_id = \(night.rawValue))
            FROM reminder_log WHERE session_id = \(night.rawValue)
            """)
        var lastAnswer: Date?
        let logged = try rows.map { row in
            let (kind, fireAt, outcome, answered) = try row.decode((String, String, String, String?).self)
            lastAnswer = answered.map(NightRecords.instant)
            return LoggedReminder(kind: kind, fireAt: NightRecords.instant(fireAt), outcome: outcome)
        }
        return (logged, lastAnswer)
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
        write(
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
            write(
                PostgresQuery(unsafeSQL: "INSERT INTO dose_events (\(columns), event_type, metadata) VALUES (\(values), $10, $11)", binds: binds))
        case .sleep(let type):
            binds.append(type.rawValue)
            binds.append((SleepEventCatalogue.standard.definition(of: type)?.category ?? .custom).rawValue)
            write(
                PostgresQuery(unsafeSQL: "INSERT INTO sleep_events (\(columns), event_type, category) VALUES (\(values), $10, $11)", binds: binds))
        case .checkIn:
            let answers = CheckInColumns(checkIn ?? MorningCheckIn())
            for value in try answers.values() { value.append(to: &binds) }
            let marks = (10..<(10 + CheckInColumns.names.count)).map { "$\($0)" }.joined(separator: ", ")
            write(
                PostgresQuery(
                    unsafeSQL:
                        "INSERT INTO morning_checkins (\(columns), \(CheckInColumns.names.joined(separator: ", "))) VALUES (\(values), \(marks))",
                    binds: binds))
        }
    }

    func night(holding id: EventID) throws -> NightSession? {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.nightColumns) FROM sleep_sessions WHERE person_id = $1 AND id IN (
                        SELECT session_id FROM dose_events WHERE person_id = $1 AND id = $2
                        UNION ALL SELECT session_id FROM sleep_events WHERE person_id = $1 AND id = $2
                        UNION ALL SELECT session_id FROM morning_checkins WHERE person_id = $1 AND id = $2)
                    """, binds: binds(person, id.rawValue)))
        return try nights(from: rows).first
    }

    func delete(_ event: NightEvent) throws {
        write(
            PostgresQuery(
                unsafeSQL: "DELETE FROM \(NightRecords.table(of: event.kind)) WHERE person_id = $1 AND id = $2",
                binds: binds(person, event.id.rawValue)))
    }

    func update(_ event: NightEvent) throws {
        var binds = PostgresBindings()
        binds.append(text(event.occurredAt))
        binds.append(event.utcOffsetMinutes)
        binds.append(event.note)
        binds.append(event.id.rawValue)
        binds.append(person)
        write(
            PostgresQuery(
                unsafeSQL:
                    "UPDATE \(NightRecords.table(of: event.kind)) SET occurred_at = $1::timestamptz, utc_offset_minutes = $2, note = $3 WHERE "
                    + "id = $4 AND person_id = $5",
                binds: binds))
        if event.kind.isDoseEvent {
            let metadata = String(decoding: try NightRecords.metadataEncoder.encode(event.metadata), as: UTF8.self)
            write("UPDATE dose_events SET metadata = \(metadata) WHERE person_id = \(person) AND id = \(event.id.rawValue)")
        }
    }

    func audit(_ change: EventChange, of event: NightEvent, night: SessionID, auditID: String, at instant: Date) throws {
        let (action, details) = NightRecords.audit(change, of: event)
        try audit(action, id: auditID, at: instant, night: night, entity: event.id.rawValue, details: details)
    }

    func saveNight(_ night: NightSession, closure: SessionClosure?) throws {
        let summary = NightSummary(night)
        // One round trip for both tables.
        write(
            """
            WITH derived AS (
                UPDATE sleep_sessions SET dose1_at = \(summary.dose1.map { text($0.at) })::timestamptz,
                    dose2_at = \(summary.dose2.map { text($0.at) })::timestamptz, dose2_skipped = \(summary.skip != nil),
                    extra_dose_count = \(summary.extraDoses.count), snooze_count = \(summary.snoozes), interval_minutes = \(summary.intervalMinutes)
                WHERE id = \(night.id.rawValue))
            INSERT INTO night_summaries (session_id, dose1_time_zone, dose2_time_zone, extra_doses, skip_reason, slept_through, awakenings)
            VALUES (\(night.id.rawValue), \(summary.dose1?.timeZoneID), \(summary.dose2?.timeZoneID),
                \(NightSummaries.extraDosesText(summary.extraDoses)), \(summary.skip?.reason), \(summary.skip?.sleptThrough ?? false),
                \(summary.awakenings))
            ON CONFLICT (session_id) DO UPDATE SET dose1_time_zone = excluded.dose1_time_zone, dose2_time_zone = excluded.dose2_time_zone,
                extra_doses = excluded.extra_doses, skip_reason = excluded.skip_reason, slept_through = excluded.slept_through,
                awakenings = excluded.awakenings
            """)
        if let closure {
            write(
                """
                UPDATE sleep_sessions SET ended_at = \(text(closure.endedAt))::timestamptz, end_reason = \(closure.reason.rawValue),
                    terminal_state = \(closure.terminalState.rawValue) WHERE id = \(night.id.rawValue)
                """)
        } else if let endedAt = night.endedAt {
            // A corrected past night: its outcome follows its events.
            let state = night.facts.terminalState(at: endedAt).rawValue
            write("UPDATE sleep_sessions SET terminal_state = \(state) WHERE id = \(night.id.rawValue)")
        }
    }

    func insertAlarmAnswer(id: String, night: SessionID, at instant: Date, surface: AlarmSurface, eventID: EventID?) throws {
        // An answer can cancel the wake alarm's re-fire.
        writing?.planMayChange = true
        writing?.alarmLog = nil
        write(
            """
            INSERT INTO alarm_acknowledgements (id, session_id, at, surface, event_id)
            VALUES (\(id), \(night.rawValue), \(text(instant))::timestamptz, \(surface.rawValue), \(eventID?.rawValue))
            """, changingNights: false)
    }

    func storeResponse(_ response: StoredResponse, device: String, key: String, at instant: Date) throws {
        write(
            """
            INSERT INTO idempotency_keys (person_id, device_id, key, request_hash, status, response, created_at)
            VALUES (\(person), \(device), \(key), \(response.requestHash), \(response.status), \(response.body), \(text(instant))::timestamptz)
            """, changingNights: false)
    }

    func logReminder(_ reminder: Reminder, night: SessionID, missed: Bool, at instant: Date) throws {
        writing?.alarmLog = nil
        write(
            """
            INSERT INTO reminder_log (session_id, kind, fire_at, outcome, recorded_at)
            VALUES (\(night.rawValue), \(reminder.kind.rawValue), \(text(reminder.fireAt))::timestamptz, \(missed ? "missed" : "fired"),
                \(text(instant))::timestamptz)
            """, changingNights: false)
        // Its job moves with the log entry, in one commit: a fired one is now being delivered by the lease's holder (whose
        // successor delivers it, not logs it again, if the holder dies), a missed one is done.
        // A missed one gives its lease back with it; a fired one keeps it, for its holder's delivery.
        write(
            """
            UPDATE reminder_jobs SET state = \(missed ? "missed" : "sending"), done_at = \(missed ? text(instant) : nil)::timestamptz,
                fired_at = \(missed ? nil : text(instant))::timestamptz,
                lease_owner = CASE WHEN \(missed) THEN NULL ELSE lease_owner END, lease_until = CASE WHEN \(missed) THEN NULL ELSE lease_until END
            WHERE session_id = \(night.rawValue) AND kind = \(reminder.kind.rawValue) AND fire_at = \(text(reminder.fireAt))::timestamptz
                AND state = 'pending'
            """, changingNights: false)
    }

    /// Keeps the night an action left open (this transaction holds the person's row lock, so no one else can have
    /// written since it read the night); its version is read once, at the end of the transaction.
    func keepOpenNight(_ night: NightSession?) {
        writing?.kept = .some(night)
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let kept = writing.map { ($0.kept, $0.borrowed) }
        // Neither the savepoint nor its release is waited for: a statement of the batch that fails shows with a later
        // wait, at the latest the commit, and then the whole batch is rolled back and each action runs alone
        // (`GroupCommit.run`), so no action is ever answered with a write that did not happen.
        session.send("SAVEPOINT action")
        do {
            let result = try body()
            session.send("RELEASE SAVEPOINT action")
            return result
        } catch {
            try session.execute("ROLLBACK TO SAVEPOINT action")
            // The nights are again what they were before this action; the alarm log is read again.
            if let writing, let kept { (writing.kept, writing.borrowed) = kept }
            writing?.alarmLog = nil
            throw error
        }
    }

    // MARK: Reading rows

    func text(_ instant: Date) -> String { ISO8601.string(instant) }

    func binds(_ values: String...) -> PostgresBindings {
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

    /// Nights from rows that start with `nightColumns`, with their events (nil: loaded in one query for all).
    func nights(from rows: [PostgresRow], events known: [String: [NightEvent]]? = nil) throws -> [NightSession] {
        let heads = try rows.map(PostgresNightRows.head)
        return PostgresNightRows.nights(heads, events: try known ?? self.events(ofNights: heads.map(\.id)))
    }

    /// The events of the given nights, grouped by night id (unordered; `NightSession` sorts them).
    private func events(ofNights ids: [String]) throws -> [String: [NightEvent]] {
        guard !ids.isEmpty else { return [:] }
        var idBinds = PostgresBindings()
        idBinds.append(ids)
        return try PostgresNightRows.events(from: try session.rows(of: sendEvents(where: "session_id = ANY($1)", binds: idBinds)))
    }

    private func sendEvents(where condition: String, binds: PostgresBindings) -> PendingRows {
        PostgresNightRows.sendEvents(where: condition, binds: binds, session)
    }

    private func events(from rows: [PostgresRow]) throws -> [String: [NightEvent]] { try PostgresNightRows.events(from: rows) }
}
