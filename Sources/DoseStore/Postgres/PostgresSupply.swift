import DoseCore
import Foundation
import PostgresNIO

/// A person's supply ledger in PostgreSQL, in the night transaction's session.
extension PostgresNightTransaction {
    private static let inventoryColumns = """
        id, kind, dosetap_instant(occurred_at), time_zone, change_ml, counted_ml, bottles, reason
        """

    func inventoryEntries() throws -> [InventoryEntry] { try Self.inventoryEntries(of: person, session) }

    /// `person`'s supply ledger, oldest first, in `session`'s snapshot.
    static func inventoryEntries(of person: String, _ session: PostgresSession) throws -> [InventoryEntry] {
        var binds = PostgresBindings()
        binds.append(person)
        return try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(inventoryColumns) FROM inventory_events WHERE person_id = $1 ORDER BY occurred_at, id", binds: binds)
        ).map(inventory(from:))
    }

    func inventoryEntry(id: String) throws -> InventoryEntry? {
        try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.inventoryColumns) FROM inventory_events WHERE person_id = $1 AND id = $2", binds: binds(person, id))
        ).first.map(Self.inventory(from:))
    }

    func dosesTaken(since instant: Date) throws -> [TakenDose] {
        try session.rows(
            """
            SELECT dosetap_instant(occurred_at), event_type, (metadata::jsonb ->> 'amount_mg')::int FROM dose_events
            WHERE person_id = \(person) AND event_type IN ('dose1', 'dose2', 'extra_dose') AND occurred_at >= \(text(instant))::timestamptz
            """
        ).map { row in
            let (at, kind, amount) = try row.decode((String, String, Int?).self)
            return TakenDose(at: NightRecords.instant(at), kind: EventKind(wireName: kind), recordedMilligrams: amount)
        }
    }

    func lastRefillReminderDay() throws -> SessionKey? {
        try session.rows("SELECT to_char(max(day), 'YYYY-MM-DD') FROM refill_reminders WHERE person_id = \(person)").first?
            .decode(String?.self).flatMap(SessionKey.init(parsing:))
    }

    func insertInventory(_ entry: InventoryEntry, recordedAt instant: Date) throws {
        write(
            """
            INSERT INTO inventory_events (id, person_id, kind, occurred_at, recorded_at, time_zone, change_ml, counted_ml, bottles, reason)
            VALUES (\(entry.id), \(person), \(entry.kind.rawValue), \(text(entry.occurredAt))::timestamptz, \(text(instant))::timestamptz,
                \(entry.timeZoneID), \(entry.changeML), \(entry.countedML), \(entry.bottles), \(entry.reason))
            """, changingNights: false)
    }

    func deleteInventory(id: String) throws {
        write("DELETE FROM inventory_events WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    func recordRefillReminder(day: SessionKey, sentAt instant: Date, nightsLeft: Int) throws {
        write(
            """
            INSERT INTO refill_reminders (person_id, day, sent_at, nights_left)
            VALUES (\(person), \(day.description)::date, \(text(instant))::timestamptz, \(nightsLeft))
            """, changingNights: false)
    }

    /// A ledger entry from a row of `inventoryColumns`.
    private static func inventory(from row: PostgresRow) throws -> InventoryEntry {
        let (id, kind, at, zone, change, counted, bottles, reason) = try row.decode(
            (String, String, String, String, Double?, Double?, Int?, String?).self)
        return InventoryEntry(
            id: id, kind: InventoryKind(rawValue: kind) ?? .adjustment, occurredAt: NightRecords.instant(at), timeZoneID: zone, changeML: change,
            countedML: counted, bottles: bottles, reason: reason)
    }
}
