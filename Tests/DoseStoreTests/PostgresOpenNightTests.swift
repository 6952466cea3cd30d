import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import PostgresNIO
import Testing

@testable import DoseStore

private typealias F = StoreFixture

/// On PostgreSQL the server keeps each person's open night in memory between actions and status reads; these prove the
/// copy is used only while it is exactly what the database holds, whoever else writes (another instance, a correction,
/// a workspace, plain SQL).
@Suite("PostgreSQL: the remembered open night is the stored one, or it is not used", .needsPostgres)
struct PostgresOpenNightTests {
    /// The remembered night if it is still valid, and a fresh load, from one snapshot.
    static func compare(_ store: PostgresStore) throws -> (remembered: NightSession??, stored: NightSession?) {
        try store.transaction(readOnly: true, seeing: .person("local")) { session in
            let version = try #require(try session.rows("SELECT night_version FROM people WHERE id = 'local'").first?.decode(Int64.self))
            let stored = try PostgresNightTransaction(session: session, person: "local", openNights: OpenNights(), writing: nil).openNight()
            return (store.openNights.peek("local", at: version), stored)
        }
    }

    static func ledger(_ store: PostgresStore) -> NightLedger { NightLedger(repository: PostgresNightRepository(store: store, person: "local")) }

    static func version(_ store: PostgresStore) throws -> Int64 {
        try store.transaction(readOnly: true) { session in
            try #require(try session.rows("SELECT night_version FROM people WHERE id = 'local'").first?.decode(Int64.self))
        }
    }

    @Test("after every kind of action, at instants finer than a millisecond, the remembered night equals a reload")
    func equalsReload() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        // A status read at the same instant answers from the same night.
        let statusAgrees = { (kind: NightAction.Kind, at: Date, stored: NightSession?) throws in
            let status = try ledger.status(clock: TestClock(at).store)
            #expect(status.session == stored, "status after \(kind)")
        }
        try OpenNightCacheTests.equalsReload(ledger, { try Self.compare(store) }, check: statusAgrees)
    }

    @Test("a settle with nothing due keeps the remembered night; one that closes the night does not keep it open")
    func settleKeepsOrDrops() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try OpenNightCacheTests.settleKeepsOrDrops(Self.ledger(store)) { try Self.compare(store) }
    }

    @Test("another instance's write is seen: undo removes its event, not the remembered night's last one")
    func otherInstance() throws {
        let server = try PostgresTestDatabase.freshStore()
        defer { server.close() }
        let other = try PostgresStore.open(server.location)
        defer { other.close() }
        let clock = TestClock(F.dose1)
        try F.act(Self.ledger(server), .dose1, at: F.dose1, clock: clock)
        #expect(try Self.compare(server).remembered != .none)
        let bathroom = try F.act(Self.ledger(other), .log(event: "bathroom"), at: F.dose1.addingTimeInterval(1), clock: clock)
        #expect(try Self.compare(server).remembered == .none)
        #expect(try Self.ledger(server).status(clock: clock.store).session?.events.map(\.id).contains(bathroom.decision.event!.id) == true)
        let undone = try F.act(Self.ledger(server), .undo, at: F.dose1.addingTimeInterval(2), clock: clock)
        #expect(undone.decision.removed.map(\.id) == [bathroom.decision.event!.id])
    }

    @Test("a write by anyone else during a night write waits for its commit, so the remembered night never misses it")
    func otherWriterWaits() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        let clock = TestClock(F.dose1)
        try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let otherDone = LockedFlag()
        finished.enter()
        Thread {
            // A night write that keeps the night it read, held open while another transaction writes.
            _ = try? ledger.repository.write { night in
                night.keepOpenNight(try night.openNight())
                started.signal()
                gate.wait()
            }
            finished.leave()
        }.start()
        started.wait()
        finished.enter()
        Thread {
            // What a workspace or plain SQL does: no person lock of its own, only the trigger's row update.
            try? store.transaction(seeing: .person("local")) { session in try session.execute("UPDATE dose_events SET note = 'changed elsewhere'") }
            otherDone.set()
            finished.leave()
        }.start()
        // Until the other write has either committed or is waiting for a lock (what the person's row lock makes it do).
        while !otherDone.value {
            let waiting = try store.transaction(readOnly: true) { session in
                try session.rows("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()").first?
                    .decode(Int.self) ?? 0
            }
            if waiting > 0 { break }
            sched_yield()
        }
        gate.signal()
        finished.wait()
        let (remembered, stored) = try Self.compare(store)
        #expect(stored?.events.first?.note == "changed elsewhere")
        #expect(remembered == .none || remembered == .some(stored), "never the night without the other write")
    }

    @Test("a correction in history makes the copy stale, and the next action sees the corrected night")
    func correction() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        let clock = TestClock(F.dose1)
        try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        let water = try F.act(ledger, .log(event: "water"), at: F.dose1.addingTimeInterval(60), clock: clock)
        #expect(try Self.compare(store).remembered != .none)
        clock.set(F.dose1.addingTimeInterval(120))
        _ = try ledger.deleteEvent(water.decision.event!.id, clock: clock.store)
        // The correction's own transaction may remember the night it read back after its write (planning the reminder
        // jobs reads it under the lock); never the copy from before.
        let (remembered, stored) = try Self.compare(store)
        #expect(stored?.events.map(\.kind) == [.dose1])
        #expect(remembered == .none || remembered == .some(stored), "never the night with the water still in it")
        let bathroom = try F.act(ledger, .log(event: "bathroom"), at: F.dose1.addingTimeInterval(130), clock: clock)
        #expect(bathroom.decision.session.events.map(\.kind) == [.dose1, .sleep(.bathroom)], "the deleted water is gone")
        #expect(try Self.compare(store).remembered == .some(bathroom.decision.session))
    }

    @Test("an action rolled back after writing (its idempotency record broke a CHECK) is never remembered")
    func rolledBack() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        let clock = TestClock(F.dose1)
        let dose1 = try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        clock.set(F.dose1.addingTimeInterval(1))
        let tooLong = IdempotentRequest(device: "d", key: String(repeating: "k", count: 201), requestHash: "h") { _ in (200, "{}") }
        #expect(throws: (any Error).self) { try ledger.perform(NightAction(.log(event: "water")), clock: clock.store, idempotency: tooLong) }
        let (remembered, stored) = try Self.compare(store)
        #expect(remembered == .none)
        #expect(stored?.events.map(\.id) == [dose1.decision.event!.id])
        let undone = try F.act(ledger, .undo, at: F.dose1.addingTimeInterval(2), clock: clock)
        #expect(undone.decision.removed.map(\.kind) == [.dose1])
    }

    /// Every statement that changes a night table, whoever runs it, gives the person a new version.
    @Test(
        "every insert, update and delete of a night table replaces the person's night version",
        arguments: [
            "INSERT INTO sleep_events SELECT (jsonb_populate_record(NULL::sleep_events, to_jsonb(e) || '{\"id\": \"x1\"}')).* FROM sleep_events e LIMIT 1",
            "UPDATE sleep_events SET note = 'n'", "DELETE FROM sleep_events WHERE event_type = 'bathroom'",
            "INSERT INTO dose_events SELECT (jsonb_populate_record(NULL::dose_events, to_jsonb(e) || '{\"id\": \"x1\"}')).* FROM dose_events e LIMIT 1",
            "UPDATE dose_events SET note = 'n'", "DELETE FROM dose_events",
            // One check-in a night: the night's is moved aside (a write of its own) before the one measured.
            "ALTER TABLE morning_checkins DISABLE TRIGGER USER; CREATE TABLE aside AS SELECT * FROM morning_checkins; DELETE FROM morning_checkins; ALTER TABLE morning_checkins ENABLE TRIGGER USER; INSERT INTO morning_checkins SELECT * FROM aside",
            "UPDATE morning_checkins SET note = 'n'", "DELETE FROM morning_checkins",
            "UPDATE sleep_sessions SET time_zone = 'UTC'", "DELETE FROM sleep_sessions",
        ])
    func everyWriteBumps(statement: String) throws {
        // The owner's store: some of these statements change a table, which the serving role may not.
        let store = try PostgresTestDatabase.freshOwnerStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        let clock = TestClock(F.dose1)
        try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        try F.act(ledger, .log(event: "bathroom"), at: F.minutes(1), clock: clock)
        try F.act(ledger, .log(event: "wake_final"), at: F.minutes(480), clock: clock)
        try F.act(ledger, .checkIn(MorningCheckIn()), at: F.minutes(490), clock: clock)
        let before = try Self.version(store)
        #expect(try Self.compare(store).remembered != .none)
        try store.transaction(seeing: .person("local")) { session in
            for part in statement.components(separatedBy: "; ") { try session.execute(PostgresQuery(unsafeSQL: part)) }
        }
        #expect(try Self.version(store) != before)
        #expect(try Self.compare(store).remembered == .none)
    }

    @Test("a refused action and a status read leave the version as it was, and a read remembers what it loaded")
    func readsAndRefusalsKeepIt() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = Self.ledger(store)
        let clock = TestClock(F.dose1)
        try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        let before = try Self.version(store)
        #expect(throws: DoseError.self) { try F.act(ledger, .dose2, at: F.minutes(60), clock: clock) }
        _ = try ledger.status(clock: clock.store)
        #expect(try Self.version(store) == before)
        #expect(try Self.compare(store).remembered == .some(try Self.compare(store).stored), "the status read remembered the night it loaded")
    }
}

/// A flag set by one thread and read by another.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    func set() { lock.withLock { isSet = true } }
    var value: Bool { lock.withLock { isSet } }
}
