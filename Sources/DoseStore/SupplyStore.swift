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

/// The supply ledger: refills and adjustments (each audited), what its figures are worked out from, and the days a
/// refill reminder went out.
public struct SupplyStore: Sendable {
    let database: AppDatabase

    /// Every entry, oldest first.
    public func entries() throws -> [InventoryEntry] {
        try database.read { db in try Self.entries(db) }
    }

    static func entries(_ db: Database) throws -> [InventoryEntry] {
        try InventoryRecord.fetchAll(db, sql: "SELECT * FROM inventory_events ORDER BY occurred_at, id").map(\.entry)
    }

    /// Adds a refill or an adjustment after validating it; the audit log keeps it with its reason.
    public func log(_ entry: InventoryEntry, clock: StoreClock) throws -> InventoryEntry {
        let entry = try entry.validated()
        return try database.write { db in
            try InventoryRecord(
                id: entry.id, kind: entry.kind.rawValue, occurredAt: entry.occurredAt, recordedAt: clock.now, timeZone: entry.timeZoneID,
                changeMl: entry.changeML, countedMl: entry.countedML, bottles: entry.bottles, reason: entry.reason
            ).insert(db)
            try NightRecords.audit(
                entry.kind == .refill ? .refillLogged : .inventoryAdjustment, id: clock.makeID(), at: clock.now, session: nil, entity: entry.id,
                details: Self.auditDetails(entry), db)
            return entry
        }
    }

    /// Removes an entry logged by mistake; the audit log keeps what it was.
    public func delete(_ id: String, clock: StoreClock) throws -> InventoryEntry {
        try database.write { db in
            guard let record = try InventoryRecord.fetchOne(db, key: id) else {
                throw DoseError.notFound(what: "A supply entry with id \(id)")
            }
            try record.delete(db)
            try NightRecords.audit(
                .deleteInventory, id: clock.makeID(), at: clock.now, session: nil, entity: id, details: Self.auditDetails(record.entry), db)
            return record.entry
        }
    }

    private static func auditDetails(_ entry: InventoryEntry) -> [String: String] {
        var details = ["kind": entry.kind.rawValue, "occurred_at": ISO8601.string(entry.occurredAt), "time_zone": entry.timeZoneID]
        details["change_ml"] = entry.changeML.map(NumberText.plain)
        details["counted_ml"] = entry.countedML.map(NumberText.plain)
        details["bottles"] = entry.bottles.map(String.init)
        details["reason"] = entry.reason
        return details
    }

    /// What the supply's figures are worked out from, read in one transaction.
    public func facts(machineTimeZoneID: String) throws -> SupplyFacts {
        try database.read { db in try Self.facts(machineTimeZoneID: machineTimeZoneID, db) }
    }

    static func facts(machineTimeZoneID: String, _ db: Database) throws -> SupplyFacts {
        let entries = try Self.entries(db)
        var taken: [TakenDose] = []
        if let start = entries.first?.occurredAt {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT occurred_at, event_type, json_extract(metadata, '$.amount_mg') AS amount FROM dose_events
                    WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND occurred_at >= ?
                    """, arguments: [ISO8601.string(start)])
            for row in rows {
                guard let at = (row["occurred_at"] as String?).flatMap(ISO8601.parse) else { continue }
                taken.append(TakenDose(at: at, kind: EventKind(wireName: row["event_type"]), recordedMilligrams: row["amount"]))
            }
        }
        return SupplyFacts(
            entries: entries, taken: taken, openNight: try NightRecords.openSession(db),
            settings: try SettingsStore.load(db, machineTimeZoneID: machineTimeZoneID),
            lastReminderDay: try String.fetchOne(db, sql: "SELECT max(day) FROM refill_reminders").flatMap(SessionKey.init(parsing:)))
    }

    /// Records today's refill reminder when `due` finds it due in the facts, deciding and recording in one transaction,
    /// so two servers or a restart never send a day's reminder twice. Returns what `due` gave with the day, or nil.
    public func claimRefillReminder<Due>(
        at now: Date, machineTimeZoneID: String, due: (SupplyFacts) throws -> (day: SessionKey, nightsLeft: Int, claim: Due)?
    ) throws -> Due? {
        // Nearly always nothing is due: decided on a reader, so the engine's check never writes.
        guard try database.read({ db in try due(Self.facts(machineTimeZoneID: machineTimeZoneID, db)) }) != nil else { return nil }
        return try database.write { db in
            guard let found = try due(Self.facts(machineTimeZoneID: machineTimeZoneID, db)) else { return nil }
            try db.execute(
                sql: "INSERT INTO refill_reminders (day, sent_at, nights_left) VALUES (?, ?, ?)",
                arguments: [found.day.description, ISO8601.string(now), found.nightsLeft])
            return found.claim
        }
    }
}

/// What the supply's figures are worked out from: the ledger, the doses taken since it began, the open night, the
/// settings, and the last day a refill reminder went out.
public struct SupplyFacts: Sendable {
    public var entries: [InventoryEntry]
    public var taken: [TakenDose]
    public var openNight: NightSession?
    public var settings: DoseSettings
    public var lastReminderDay: SessionKey?
}

/// Whether first-run setup was completed, and notices shown once.
public struct SetupState: Sendable {
    let database: AppDatabase

    /// Whether setup has been completed on this database (or it held doses before setup existed).
    public func isComplete() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM setup_runs)") ?? false }
    }

    /// Whether any dose was ever recorded here.
    public func hasAnyDose() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM dose_events)") ?? false }
    }

    /// Records a completed setup from a surface (`web`, `cli`, `api`); audited.
    public func complete(surface: String, clock: StoreClock) throws {
        try database.write { db in
            let id = clock.makeID()
            try db.execute(
                sql: "INSERT INTO setup_runs (id, completed_at, surface) VALUES (?, ?, ?)", arguments: [id, ISO8601.string(clock.now), surface])
            try NightRecords.audit(.setup, id: clock.makeID(), at: clock.now, session: nil, entity: id, details: ["surface": surface], db)
        }
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
