import DoseCore
import Foundation
import GRDB

/// The settings in the embedded SQLite database.
public struct SQLiteSettingsRepository: SettingsRepository {
    /// The database.
    public let database: AppDatabase

    public func write<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T {
        try database.write { db in try body(SQLiteSettingsTransaction(db: db)) }
    }

    public func read<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T {
        try database.read { db in try body(SQLiteSettingsTransaction(db: db)) }
    }
}

/// One GRDB transaction seen as a `SettingsTransaction`.
struct SQLiteSettingsTransaction: SettingsTransaction {
    let db: Database

    func storedSettings() throws -> [(key: String, value: String)] {
        try SettingRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM settings ORDER BY key")).map { ($0.key, $0.value) }
    }

    func saveSetting(key: String, value: String, at instant: Date) throws {
        try SettingRecord(key: key, value: value, updatedAt: instant).upsert(db)
    }

    func auditSettingChange(key: String, details: [String: String], auditID: String, at instant: Date) throws {
        try NightRecords.audit(.setting, id: auditID, at: instant, session: nil, entity: key, details: details, db)
    }
}

extension AppDatabase {
    /// The settings as a repository: what DoseApp's settings service loads and changes.
    public var settingsRepository: SQLiteSettingsRepository { SQLiteSettingsRepository(database: self) }
}
