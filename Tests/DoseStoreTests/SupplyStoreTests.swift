import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

@Suite("The supply in the store: doses, corrections, the audit log, bundles and setup")
struct SupplyStoreTests {
    static let refillAt = WallClock.date(2026, 11, 21, 21, 0)

    static func refill(_ database: AppDatabase, ml: Double = 360, at: Date = refillAt, clock: TestClock) throws {
        clock.set(at)
        _ = try database.supply.log(
            InventoryEntry(
                id: clock.nextID(), kind: .refill, occurredAt: at, timeZoneID: "America/New_York", changeML: ml, bottles: 2, reason: "pharmacy"),
            clock: clock.store)
    }

    static func remaining(_ database: AppDatabase, _ clock: TestClock) throws -> Double {
        try status(database, clock).remainingML
    }

    /// The supply as every surface sees it: the store's facts, worked out by DoseCore.
    static func status(_ database: AppDatabase, _ clock: TestClock) throws -> SupplyStatus {
        try UseCases(store: .sqlite(database), clock: clock.store).supply.report().status
    }

    @Test("each dose lowers the supply; undo, an edit before the ledger began, and a deletion give it back")
    func dosesAndCorrections() throws {
        let database = try AppDatabase.inMemory()
        let ledger = database.ledger
        let clock = TestClock(Self.refillAt)
        try Self.refill(database, clock: clock)
        let dose1 = try StoreFixture.act(ledger, .dose1, at: StoreFixture.dose1, clock: clock).decision.recorded[0]
        #expect(try Self.remaining(database, clock) == 355.5)
        // Tonight's Dose 2 is owed: 355.5 mL is 177.75 g, less 2.25 g for tonight, is 39 full nights from tomorrow.
        let status = try Self.status(database, clock)
        #expect(status.pendingTonightMilligrams == 2250 && status.nightsLeft == 39 && status.runsOutOn?.description == "2026-12-31")
        try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(170), clock: clock)
        #expect(try Self.remaining(database, clock) == 351)
        try StoreFixture.act(ledger, .undo, at: StoreFixture.minutes(170.05), clock: clock)
        #expect(try Self.remaining(database, clock) == 355.5, "an undone dose gives its amount back")
        let dose2 = try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(175), clock: clock).decision.recorded[0]
        #expect(try Self.remaining(database, clock) == 351)
        try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(200), clock: clock, confirm: [.extra])
        #expect(try Self.remaining(database, clock) == 346.5, "an extra dose counts")
        clock.set(StoreFixture.minutes(300))
        _ = try database.journal.editEvent(dose1.id, occurredAt: Self.refillAt.addingTimeInterval(-60), note: nil, clock: clock.store)
        #expect(try Self.remaining(database, clock) == 351, "a dose moved to before the ledger began no longer counts")
        _ = try database.journal.deleteEvent(dose2.id, clock: clock.store)
        #expect(try Self.remaining(database, clock) == 355.5, "a deleted dose gives its amount back")
    }

    @Test("a dose keeps the amount of the profile it was taken under")
    func amountsKept() throws {
        let database = try AppDatabase.inMemory()
        let clock = TestClock(Self.refillAt)
        try Self.refill(database, clock: clock)
        _ = try database.settings.update([("dose1_mg", "3000")], clock: clock.store)
        try StoreFixture.act(database.ledger, .dose1, at: StoreFixture.dose1, clock: clock)
        _ = try database.settings.update([("dose1_mg", "2000")], clock: clock.store)
        #expect(try Self.remaining(database, clock) == 354)
    }

    @Test("refills, adjustments and deletions are audited with their reason; a refused entry changes nothing")
    func audited() throws {
        let database = try AppDatabase.inMemory()
        let clock = TestClock(Self.refillAt)
        try Self.refill(database, clock: clock)
        let spill = try database.supply.log(
            InventoryEntry(id: "spill", kind: .adjustment, occurredAt: Self.refillAt, timeZoneID: "UTC", changeML: -10, reason: "spilled"),
            clock: clock.store)
        _ = try database.supply.delete(spill.id, clock: clock.store)
        let before = try StoreFixture.snapshot(database.ledger)
        #expect(throws: DoseError.self) {
            _ = try database.supply.log(
                InventoryEntry(id: "bad", kind: .refill, occurredAt: Self.refillAt, timeZoneID: "UTC", changeML: -1), clock: clock.store)
        }
        #expect(throws: DoseError.self) { _ = try database.supply.delete("nope", clock: clock.store) }
        #expect(try StoreFixture.snapshot(database.ledger) == before)
        let audit = try database.read { db in try Row.fetchAll(db, sql: "SELECT action, details FROM audit_log ORDER BY at, id") }
        #expect(audit.map { $0["action"] as String } == ["refill_logged", "inventory_adjustment", "delete_inventory"])
        #expect((audit[1]["details"] as String).contains(#""reason":"spilled""#))
        #expect(try database.supply.entries().count == 1)
    }

    @Test("inventory.csv travels in the bundle: an import restores it, and importing it again adds nothing")
    func bundle() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try AppDatabase.inMemory()
        let clock = TestClock(Self.refillAt)
        try Self.refill(source, clock: clock)
        _ = try source.supply.log(
            InventoryEntry(
                id: clock.nextID(), kind: .adjustment, occurredAt: Self.refillAt, timeZoneID: "UTC", changeML: nil, countedML: 300, reason: "counted"),
            clock: clock.store)
        let path = directory.appendingPathComponent("bundle.zip").path
        let counts = try UseCases(store: .sqlite(source), clock: clock.store).transfer.exportBundle(to: path)
        #expect(counts["inventory.csv"] == 2)
        let target = try AppDatabase.inMemory()
        _ = try target.transfer.importFile(at: path, clock: clock.store)
        #expect(try target.supply.entries() == source.supply.entries())
        _ = try target.transfer.importFile(at: path, clock: clock.store)
        #expect(try target.supply.entries().count == 2)
        #expect(try Self.status(target, clock).remainingML == 300)
    }

    @Test("schema 8 counts a database that already holds doses as set up, and a new one as not")
    func migration() throws {
        for withDose in [true, false] {
            let queue = try DatabaseQueue()
            try Schema.migrator.migrate(queue, upTo: "v7_night_summaries")
            if withDose {
                try queue.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO sleep_sessions (id, session_date, started_at, time_zone) VALUES ('s1', '2026-11-21', '2026-11-22T03:30:00.000Z', 'UTC');
                            INSERT INTO dose_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, event_type)
                                VALUES ('d1', 's1', '2026-11-22T03:30:00.000Z', '2026-11-22T03:30:00.000Z', 0, 'UTC', 'user', 'dose1');
                            """)
                }
            }
            try Schema.migrator.migrate(queue)
            let runs = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM setup_runs") }
            #expect(runs == (withDose ? 1 : 0))
        }
    }

    @Test("setup completes once recorded and is audited; the setup hint shows once; Clear All forgets both")
    func setupState() throws {
        let database = try AppDatabase.inMemory()
        let clock = TestClock(Self.refillAt)
        #expect(try !database.setup.isComplete())
        #expect(try database.setup.firstShowing(of: "setup_hint", at: clock.store.now))
        #expect(try !database.setup.firstShowing(of: "setup_hint", at: clock.store.now))
        try UseCases(database, clock: clock.store).setup.complete(surface: "web")
        #expect(try database.setup.isComplete())
        _ = try database.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(try !database.setup.isComplete())
        #expect(try database.setup.firstShowing(of: "setup_hint", at: clock.store.now))
    }
}
