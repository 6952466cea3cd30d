import DoseCore
import Foundation
import PostgresNIO

/// One person's settings in a PostgreSQL store.
public struct PostgresSettingsRepository: SettingsRepository {
    /// The store.
    public let store: PostgresStore
    /// Whose settings these are (`PostgresNightRepository` makes the person's row).
    public let person: String

    /// The settings of `person` in `store`.
    public init(store: PostgresStore, person: String) {
        self.store = store
        self.person = person
    }

    public func write<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T {
        try store.transaction(writingFor: person) { session in try body(PostgresSettingsTransaction(session: session, person: person)) }
    }

    public func read<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T {
        try store.transaction(readOnly: true, seeing: .person(person)) { session in
            try body(PostgresSettingsTransaction(session: session, person: person))
        }
    }
}

/// One PostgreSQL transaction seen as a `SettingsTransaction`.
struct PostgresSettingsTransaction: SettingsTransaction {
    let session: PostgresSession
    let person: String

    func storedSettings() throws -> [(key: String, value: String)] {
        try Self.storedSettings(from: session.rows(of: sendStoredSettings()))
    }

    /// Sends the read of the stored settings without waiting (`storedSettings(from:)` reads its rows).
    func sendStoredSettings() -> PendingRows {
        // Byte order, as SQLite's BINARY collation sorts the keys.
        session.send("SELECT key, value FROM settings WHERE person_id = \(person) ORDER BY key COLLATE \"C\"")
    }

    static func storedSettings(from rows: [PostgresRow]) throws -> [(key: String, value: String)] {
        try rows.map { row in
            let (key, value) = try row.decode((String, String).self)
            return (key, value)
        }
    }

    func saveSetting(key: String, value: String, at instant: Date) throws {
        try session.execute(
            """
            INSERT INTO settings (person_id, key, value, updated_at) VALUES (\(person), \(key), \(value), \(ISO8601.string(instant))::timestamptz)
            ON CONFLICT (person_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """)
        // A setting can move a reminder (the target, the re-fire, the escalation): the person's jobs are planned again by
        // the next instance to look, within a second.
        try session.execute("UPDATE people SET jobs_version = NULL WHERE id = \(person)")
    }

    func auditSettingChange(key: String, details: [String: String], auditID: String, at instant: Date) throws {
        let json = String(decoding: try NightRecords.metadataEncoder.encode(details), as: UTF8.self)
        try session.execute(
            """
            INSERT INTO audit_log (id, person_id, at, action, session_id, entity_id, details)
            VALUES (\(auditID), \(person), \(ISO8601.string(instant))::timestamptz, 'setting', NULL, \(key), \(json))
            """)
    }
}
