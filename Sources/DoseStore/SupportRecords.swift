public import DoseCore
public import Foundation
import GRDB

/// What a support bundle is made from, before redaction: each event's kind and time (never its note), each medication
/// entry's medicine and time, the settings, and how many rows each table holds.
public struct SupportRecords: Sendable {
    /// One dose or sleep event, or an undo.
    public struct Event: Sendable {
        public let id: String
        /// The SSOT CSV v1 event type (`dose1_taken`, `bathroom`, `undo`, …).
        public let type: String
        public let source: String
        public let occurredAt: Date
        public let timeZoneID: String
        public let doseSequence: String
    }

    /// One other-medication entry.
    public struct Medication: Sendable {
        public let id: String
        public let medicationID: String
        public let takenAt: Date
    }

    public let events: [Event]
    public let medications: [Medication]
    /// The supply ledger (reasons are the person's words: the bundle leaves them out).
    public let inventory: [InventoryEntry]
    public let settings: DoseSettings
    /// Rows by table.
    public let counts: [String: Int]
    public let schemaVersion: Int
}

extension SupportRecords.Event {
    /// The event a row of events.csv's statement is, as the bundle redacts it (its note is never read).
    init(_ row: DataTransfer.EventRow) {
        self.init(
            id: row.id, type: DataTransfer.csvEventType(row.type), source: row.source, occurredAt: NightRecords.instant(row.occurredAt),
            timeZoneID: row.timeZone ?? "UTC", doseSequence: DataTransfer.doseSequence(type: row.type, metadata: row.metadata))
    }
}

extension DataTransfer {
    /// The records a support bundle redacts, oldest first.
    public func supportRecords(machineTimeZoneID: String) throws -> SupportRecords {
        return try database.read { db in
            var events: [SupportRecords.Event] = []
            // The rows events.csv is made of; the note (the last column) is never read.
            let rows = try Row.fetchCursor(db, sql: Self.everyEventSQL)
            while let row = try rows.next() {
                events.append(
                    SupportRecords.Event(
                        EventRow(id: row[0], type: row[1], source: row[2], occurredAt: row[3], timeZone: row[4], metadata: row[5], note: nil)))
            }
            let medications = try Row.fetchAll(db, sql: "SELECT id, medication_id, taken_at FROM medication_events ORDER BY taken_at, id").map {
                SupportRecords.Medication(id: $0[0], medicationID: $0[1], takenAt: NightRecords.instant($0[2]))
            }
            var counts: [String: Int] = [:]
            for table in AppDatabase.dataTables {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return SupportRecords(
                events: events, medications: medications, inventory: try SupplyStore.entries(db),
                settings: try SettingsStore.load(db, machineTimeZoneID: machineTimeZoneID),
                counts: counts, schemaVersion: Schema.version)
        }
    }

    /// The database file's size in bytes with its WAL; nil in memory.
    public var databaseBytes: Int? {
        guard let path = database.path else { return nil }
        return ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    /// The database file's path; nil in memory.
    public var databasePath: String? { database.path }

    /// A consistent copy of the whole database (SQLite's online backup) at `path`, owner-only: the raw data, for a
    /// support bundle only on explicit request.
    public func copyDatabase(to path: String) throws {
        let copy = try DatabaseQueue(path: path)
        try database.writer.backup(to: copy)
        try copy.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
