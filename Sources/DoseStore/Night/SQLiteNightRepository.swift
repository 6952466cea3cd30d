import DoseCore
import Foundation
import GRDB

/// The night tables in the embedded SQLite database. A write reuses the open night this process's writer last
/// committed while SQLite says nothing has changed since (`OpenNightCache`).
public struct SQLiteNightRepository: NightRepository {
    /// The database.
    public let database: AppDatabase

    /// The night tables of `database`.
    public init(database: AppDatabase) { self.database = database }

    public func write<T>(_ body: (any NightTransaction) throws -> T) throws -> T {
        let cache = database.openNight
        let (result, kept, key) = try database.write { db in
            let transaction = SQLiteNightTransaction(db: db, cache: cache)
            let result = try body(transaction)
            let key = try OpenNightCache.key(db)
            // A write that only settled and found nothing due gives back the night it borrowed: equal keys mean
            // nothing was written since it was read.
            let unchanged = transaction.borrowed.flatMap { $0.key == key ? .some($0.night) : nil }
            let kept: NightSession?? = if let kept = transaction.kept { .some(kept.night) } else { unchanged }
            return (result, kept, key)
        }
        // Only now, after the commit: a rolled-back write must never be remembered.
        if let kept { cache.remember(kept, at: key) }
        return result
    }

    public func writeTogether<T>(_ body: @escaping (any NightTransaction) throws -> T) throws -> T {
        try database.nightWrites.write(self, body)
    }

    public func read<T>(_ body: (any NightTransaction) throws -> T) throws -> T {
        try database.read { db in try body(SQLiteNightTransaction(db: db, cache: nil)) }
    }
}

/// One GRDB transaction seen as a `NightTransaction`.
final class SQLiteNightTransaction: NightTransaction {
    let db: Database
    let cache: OpenNightCache?
    /// What `keepOpenNight` was told (a nil night: none stays open), and the key when it was, so the next action of a
    /// batch can take it over while nothing has been written since.
    private(set) var kept: (night: NightSession?, key: OpenNightCache.Key?)?
    /// The open night as the cache handed it over, and the database's key when it did.
    private(set) var borrowed: (night: NightSession?, key: OpenNightCache.Key)?

    init(db: Database, cache: OpenNightCache?) {
        self.db = db
        self.cache = cache
    }

    func settings(machineTimeZoneID: String) throws -> DoseSettings {
        try SettingsStore.load(db, machineTimeZoneID: machineTimeZoneID)
    }

    func openNight() throws -> NightSession? {
        guard let cache else { return try NightRecords.openSession(db) }
        if let kept, let key = kept.key, try OpenNightCache.key(db) == key {
            // The night an earlier action of this transaction left open, with nothing written since.
            self.kept = nil
            return kept.night
        }
        let (night, key) = try cache.openSession(db)
        if borrowed == nil { borrowed = (night, key) }
        return night
    }

    func doses(within span: InstantSpan) throws -> [RecordedDose] { try NightRecords.doses(within: span, db) }

    func dosesOfNights(withDoseAfter start: Date, through end: Date) throws -> [RecordedDose] {
        try NightRecords.dosesOfNights(withDoseAfter: start, through: end, db)
    }

    func sleepEvents(_ type: SleepEventType, within seconds: TimeInterval, of instant: Date) throws -> [Date] {
        try NightRecords.sleepEvents(type, within: seconds, of: instant, db)
    }

    func usualSleepEnvironment(before instant: Date) throws -> SleepEnvironment? {
        let text = try String.fetchOne(
            db,
            sql: """
                SELECT sleep_environment_json FROM morning_checkins WHERE sleep_environment_json IS NOT NULL AND occurred_at < ?
                ORDER BY occurred_at DESC LIMIT 1
                """, arguments: [ISO8601.string(instant)])
        return text.flatMap { try? JSONDecoder().decode(SleepEnvironment.self, from: Data($0.utf8)) }
    }

    func nightsEnded(since instant: Date) throws -> [(night: NightSession, checkedIn: Bool)] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT s.*, EXISTS (SELECT 1 FROM morning_checkins c WHERE c.session_id = s.id) AS checked_in
                FROM sleep_sessions s WHERE ended_at >= ? ORDER BY ended_at DESC
                """, arguments: [ISO8601.string(instant)])
        let nights = try NightRecords.sessions(from: rows, db)
        return zip(nights, rows).map { (night: $0, checkedIn: $1["checked_in"] as Bool) }
    }

    func latestNightEnded(after instant: Date) throws -> (date: SessionKey, endedAt: Date)? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT session_date, ended_at FROM sleep_sessions WHERE ended_at > ? ORDER BY ended_at DESC LIMIT 1",
                arguments: [ISO8601.string(instant)]),
            let date = SessionKey(parsing: row["session_date"])
        else { return nil }
        return (date, NightRecords.instant(row["ended_at"]))
    }

    func isRecorded(_ id: EventID) throws -> Bool { try NightRecords.sessionID(ofEvent: id, db) != nil }

    func storedResponse(device: String, key: String) throws -> StoredResponse? { try IdempotencyRecord.find(device: device, key: key, db) }

    func alarmAnswers(night: SessionID) throws -> [Date] { try AlarmStore.acknowledgedAt(session: night.rawValue, db) }

    func alarmLog(night: SessionID) throws -> (reminders: [LoggedReminder], lastAnswer: Date?) {
        try AlarmStore.alarmLog(session: night.rawValue, db)
    }

    func loggedReminders(night: SessionID) throws -> Set<String> {
        Set(
            try ReminderLogRecord.filter(ReminderLogRecord.Columns.sessionID == night.rawValue).fetchAll(db)
                .map { Reminder.logKey(kind: $0.kind, fireAt: $0.fireAt) })
    }

    func insertNight(_ night: NightSession, timeZone: TimeZone) throws { try NightRecords.insertSession(night, timeZone: timeZone, db) }

    func insert(_ event: NightEvent, night: SessionID, checkIn: MorningCheckIn?) throws {
        try NightRecords.insert(event, session: night, checkIn: checkIn, catalogue: .standard, db)
    }

    func night(holding id: EventID) throws -> NightSession? {
        guard let night = try NightRecords.sessionID(ofEvent: id, db) else { return nil }
        return try NightRecords.session(id: night, db)
    }

    func delete(_ event: NightEvent) throws { try NightRecords.delete(event, db) }

    func update(_ event: NightEvent) throws { try NightRecords.update(event, db) }

    func audit(_ change: EventChange, of event: NightEvent, night: SessionID, auditID: String, at instant: Date) throws {
        let (action, details) = NightRecords.audit(change, of: event)
        try NightRecords.audit(action, id: auditID, at: instant, session: night, entity: event.id.rawValue, details: details, db)
    }

    func saveNight(_ night: NightSession, closure: SessionClosure?) throws { try NightRecords.refreshSession(night, closure: closure, db) }

    func insertAlarmAnswer(id: String, night: SessionID, at instant: Date, surface: AlarmSurface, eventID: EventID?) throws {
        try AlarmAcknowledgementRecord(id: id, sessionID: night.rawValue, at: instant, surface: surface, eventID: eventID?.rawValue).insert(db)
    }

    func storeResponse(_ response: StoredResponse, device: String, key: String, at instant: Date) throws {
        try IdempotencyRecord(deviceID: device, key: key, response: response, at: instant).insert(db)
    }

    func logReminder(_ reminder: Reminder, night: SessionID, missed: Bool, at instant: Date) throws {
        try ReminderLogRecord(
            sessionID: night.rawValue, kind: reminder.kind.rawValue, fireAt: reminder.fireAt, outcome: missed ? "missed" : "fired",
            recordedAt: instant
        ).insert(db)
    }

    func keepOpenNight(_ night: NightSession?) {
        kept = (night, try? OpenNightCache.key(db))
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let before = kept
        var result: T?
        do {
            try db.inSavepoint {
                result = try body()
                return .commit
            }
        } catch {
            kept = before
            throw error
        }
        return result!
    }
}

extension AppDatabase {
    /// The night tables: what DoseApp's night service loads and saves.
    public var nights: SQLiteNightRepository { SQLiteNightRepository(database: self) }
}
