import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

private typealias F = StoreFixture

/// The server keeps the open night in memory between actions; these prove the copy is only ever used when it is
/// exactly what the database holds.
@Suite("The remembered open night is the stored one, or it is not used")
struct OpenNightCacheTests {
    /// What the writer connection would use next: the remembered night if still valid, and a fresh load.
    static func compare(_ ledger: NightLedger) throws -> (remembered: NightSession??, stored: NightSession?) {
        try ledger.database.writer.writeWithoutTransaction { db in
            (try ledger.database.openNight.remembered(db), try NightRecords.openSession(db))
        }
    }

    /// The remembered night if still valid, and a fresh load, on either store.
    typealias Compare = () throws -> (remembered: NightSession??, stored: NightSession?)

    /// Every kind of action, at instants finer than a millisecond (the store keeps milliseconds, so the copy must too),
    /// each followed by `check`.
    static func equalsReload(
        _ ledger: NightLedger, _ compare: Compare, check: (NightAction.Kind, Date, NightSession?) throws -> Void = { _, _, _ in }
    ) throws {
        let clock = TestClock(F.dose1)
        let steps: [(NightAction.Kind, Double)] = [
            (.dose1, 0.000_4), (.log(event: "bathroom"), 60.000_7), (.undo, 62.3), (.log(event: "water"), 600.123_456),
            (.snooze, 160 * 60 + 0.000_9), (.dose2, 175 * 60 + 0.5), (.log(event: "wake_final"), 480 * 60 + 0.25),
            (.checkIn(MorningCheckIn()), 490 * 60 + 0.000_1), (.log(event: "water"), 20 * 3600 + 0.7),
        ]
        for (kind, seconds) in steps {
            let at = F.dose1.addingTimeInterval(seconds)
            try F.act(ledger, kind, at: at, clock: clock)
            let (remembered, stored) = try compare()
            #expect(remembered == .some(stored), "after \(kind)")
            try check(kind, at, stored)
        }
    }

    /// A settle with nothing due keeps the remembered night; one that closes the night does not keep it open.
    static func settleKeepsOrDrops(_ ledger: NightLedger, _ compare: Compare) throws {
        let clock = TestClock(F.dose1)
        try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        clock.set(F.minutes(30))
        try ledger.settle(clock: clock.store)
        let (remembered, stored) = try compare()
        #expect(stored != nil && remembered == .some(stored), "nothing was due, so the copy is still the stored night")
        clock.set(F.minutes(24 * 60))
        try ledger.settle(clock: clock.store)
        let (afterClose, reloaded) = try compare()
        #expect(reloaded == nil, "the night closed at its cutoff")
        #expect(afterClose == nil || afterClose == .some(nil), "never the night as open: \(String(describing: afterClose))")
    }

    @Test("after every kind of action, at instants finer than a millisecond, the remembered night equals a reload")
    func equalsReload() throws {
        let ledger = try F.ledger()
        try Self.equalsReload(ledger) { try Self.compare(ledger) }
    }

    @Test("a settle with nothing due keeps the remembered night; one that closes the night does not keep it open")
    func settleKeepsOrDrops() throws {
        let ledger = try F.ledger()
        try Self.settleKeepsOrDrops(ledger) { try Self.compare(ledger) }
    }

    @Test("another connection's write is seen: undo removes its event, not the remembered night's last one")
    func otherConnection() throws {
        let directory = try F.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("night.sqlite").path
        let server = (try AppDatabase.open(path: path, pooled: true)).ledger
        let cli = (try AppDatabase.open(path: path)).ledger
        let clock = TestClock(F.dose1)
        try F.act(server, .dose1, at: F.dose1, clock: clock)
        let bathroom = try F.act(cli, .log(event: "bathroom"), at: F.dose1.addingTimeInterval(1), clock: clock)
        #expect(try Self.compare(server).remembered == .none)
        let undone = try F.act(server, .undo, at: F.dose1.addingTimeInterval(2), clock: clock)
        #expect(undone.decision.removed.map(\.id) == [bathroom.decision.event!.id])
    }

    @Test("a correction or a settings change on the same connection makes the copy stale")
    func sameConnectionWrites() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        let water = try F.act(ledger, .log(event: "water"), at: F.dose1, clock: clock)
        #expect(try Self.compare(ledger).remembered != .none)
        clock.set(F.dose1.addingTimeInterval(60))
        _ = try ledger.database.journal.deleteEvent(water.decision.event!.id, clock: clock.store)
        #expect(try Self.compare(ledger).remembered == .none)
        try F.act(ledger, .log(event: "bathroom"), at: F.dose1.addingTimeInterval(120), clock: clock)
        #expect(try Self.compare(ledger).remembered != .none)
        _ = try ledger.database.settings.update("undo_window_seconds", to: "10", clock: clock.store)
        #expect(try Self.compare(ledger).remembered == .none)
    }

    @Test("an action rolled back after writing (its idempotency record broke a CHECK) is never remembered")
    func rolledBack() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        let request = IdempotentRequest(device: "d", key: "k", requestHash: "h") { _ in (200, "{}") }
        clock.set(F.dose1)
        let dose1 = try ledger.perform(NightAction(.dose1), clock: clock.store, idempotency: request)
        clock.set(F.dose1.addingTimeInterval(1))
        // The water event is written, then its idempotency record breaks the key's CHECK (201 characters; the API
        // refuses such a key before this point) and the transaction rolls back.
        let tooLong = IdempotentRequest(device: "d", key: String(repeating: "k", count: 201), requestHash: "h") { _ in (200, "{}") }
        #expect(throws: (any Error).self) { try ledger.perform(NightAction(.log(event: "water")), clock: clock.store, idempotency: tooLong) }
        let (remembered, stored) = try Self.compare(ledger)
        #expect(remembered == .none)
        #expect(stored?.events.map(\.id) == [dose1.decision.event!.id])
        let undone = try F.act(ledger, .undo, at: F.dose1.addingTimeInterval(2), clock: clock)
        #expect(undone.decision.removed.map(\.kind) == [.dose1])
    }

    @Test("the same idempotency key again inside the write transaction returns the first answer and writes nothing")
    func sameKeyTwice() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        let request = IdempotentRequest(device: "d", key: "k", requestHash: "h") { _ in (200, "{\"first\":true}") }
        _ = try ledger.perform(NightAction(.dose1), clock: clock.store, idempotency: request)
        clock.set(F.dose1.addingTimeInterval(1))
        let before = try Self.compare(ledger).stored
        // What a concurrent duplicate meets when the first request committed between its check and its write.
        let error = #expect(throws: AlreadyAnswered.self) {
            try ledger.perform(NightAction(.log(event: "water")), clock: clock.store, idempotency: request)
        }
        #expect(error?.response.body == "{\"first\":true}")
        #expect(try Self.compare(ledger).stored == before)
    }
}
