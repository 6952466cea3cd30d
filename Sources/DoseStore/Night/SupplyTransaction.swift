public import DoseCore
public import Foundation
import GRDB

/// The oxybate supply beside the night tables: its ledger, the doses it counts, and the days a refill reminder went out.
/// It loads and saves; DoseCore's `Supply` decides.
public protocol SupplyTransaction {
    /// Every ledger entry, oldest first.
    func inventoryEntries() throws -> [InventoryEntry]
    /// One ledger entry by id.
    func inventoryEntry(id: String) throws -> InventoryEntry?
    /// Every oxybate dose taken at or after `instant`, with the amount recorded with it.
    func dosesTaken(since instant: Date) throws -> [TakenDose]
    /// The last day a refill reminder went out.
    func lastRefillReminderDay() throws -> SessionKey?
    /// Stores a ledger entry, recorded at `instant`.
    func insertInventory(_ entry: InventoryEntry, recordedAt instant: Date) throws
    /// Removes a ledger entry.
    func deleteInventory(id: String) throws
    /// Records the day's refill reminder.
    func recordRefillReminder(day: SessionKey, sentAt instant: Date, nightsLeft: Int) throws
}

extension SQLiteNightTransaction {
    func inventoryEntries() throws -> [InventoryEntry] { try SupplyStore.entries(db) }

    func inventoryEntry(id: String) throws -> InventoryEntry? { try InventoryRecord.fetchOne(db, key: id)?.entry }

    func dosesTaken(since instant: Date) throws -> [TakenDose] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT occurred_at, event_type, json_extract(metadata, '$.amount_mg') AS amount FROM dose_events
                WHERE event_type IN ('dose1', 'dose2', 'extra_dose') AND occurred_at >= ?
                """, arguments: [ISO8601.string(instant)])
        return rows.compactMap { row in
            guard let at = (row["occurred_at"] as String?).flatMap(ISO8601.parse) else { return nil }
            return TakenDose(at: at, kind: EventKind(wireName: row["event_type"]), recordedMilligrams: row["amount"])
        }
    }

    func lastRefillReminderDay() throws -> SessionKey? {
        try String.fetchOne(db, sql: "SELECT max(day) FROM refill_reminders").flatMap(SessionKey.init(parsing:))
    }

    func insertInventory(_ entry: InventoryEntry, recordedAt instant: Date) throws {
        try InventoryRecord(
            id: entry.id, kind: entry.kind.rawValue, occurredAt: entry.occurredAt, recordedAt: instant, timeZone: entry.timeZoneID,
            changeMl: entry.changeML, countedMl: entry.countedML, bottles: entry.bottles, reason: entry.reason
        ).insert(db)
    }

    func deleteInventory(id: String) throws {
        try db.execute(sql: "DELETE FROM inventory_events WHERE id = ?", arguments: [id])
    }

    func recordRefillReminder(day: SessionKey, sentAt instant: Date, nightsLeft: Int) throws {
        try db.execute(
            sql: "INSERT INTO refill_reminders (day, sent_at, nights_left) VALUES (?, ?, ?)",
            arguments: [day.description, ISO8601.string(instant), nightsLeft])
    }
}
