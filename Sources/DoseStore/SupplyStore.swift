public import DoseCore
public import Foundation
import GRDB

/// A row of `inventory_events`.
struct InventoryRecord: StoredRecord {
    static let databaseTableName = "inventory_events"

    var id: String
    var kind: String
    var occurredAt: Date
    var recordedAt: Date
    var timeZone: String
    var changeMl: Double?
    var countedMl: Double?
    var bottles: Int?
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, occurredAt = "occurred_at", recordedAt = "recorded_at", timeZone = "time_zone", changeMl = "change_ml"
        case countedMl = "counted_ml", bottles, reason
    }

    var entry: InventoryEntry {
        InventoryEntry(
            id: id, kind: InventoryKind(rawValue: kind) ?? .adjustment, occurredAt: occurredAt, timeZoneID: timeZone, changeML: changeMl,
            countedML: countedMl, bottles: bottles, reason: reason)
    }
}

/// The supply ledger as the file keeps it (the bundle and the support bundle read it); DoseApp's supply service changes
/// it through the night transaction.
public struct SupplyStore: Sendable {
    let database: AppDatabase

    /// Every entry, oldest first.
    public func entries() throws -> [InventoryEntry] {
        try database.read { db in try Self.entries(db) }
    }

    static func entries(_ db: Database) throws -> [InventoryEntry] {
        try InventoryRecord.fetchAll(db, sql: "SELECT * FROM inventory_events ORDER BY occurred_at, id").map(\.entry)
    }
}

/// Whether first-run setup was completed, and notices shown once.
public struct SetupState: Sendable {
    let database: AppDatabase

    /// Whether setup has been completed on this database (or it held doses before setup existed).
    public func isComplete() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM setup_runs)") ?? false }
    }

    /// True the first time it is asked for a notice, false ever after (until Clear All).
    public func firstShowing(of notice: String, at now: Date) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO notices_shown (name, shown_at) VALUES (?, ?)", arguments: [notice, ISO8601.string(now)])
            return db.changesCount > 0
        }
    }
}

extension AppDatabase {
    /// The medication supply.
    public var supply: SupplyStore { SupplyStore(database: self) }
    /// First-run setup's state.
    public var setup: SetupState { SetupState(database: self) }
}
