import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

@Suite("Server runs: when the alarm clock was down")
struct ServerRunsTests {
    let start = WallClock.date(2026, 11, 22, 0, 0)

    func minutes(_ value: Double) -> Date { start.addingTimeInterval(value * 60) }

    @Test("a crash is an outage from the last heartbeat to the next start; a quick clean restart is none; touching outages merge")
    func outages() throws {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(start)
        let first = try ledger.database.serverRuns.started(clock: clock.store)
        clock.set(minutes(0.5))
        try ledger.database.serverRuns.alive(first, at: clock.store.now)
        // Killed at about 00:01; the supervisor is slow and it is back at 00:10.
        clock.set(minutes(10))
        let second = try ledger.database.serverRuns.started(clock: clock.store)
        // Stopped cleanly at 00:20 and started again 30 s later: a restart, not an outage.
        clock.set(minutes(20))
        try ledger.database.serverRuns.alive(second, stopped: true, at: clock.store.now)
        clock.set(minutes(20.5))
        let third = try ledger.database.serverRuns.started(clock: clock.store)
        // Dies at once, again at once: 00:20:30 → 00:40 and 00:40 → 01:00 are one outage to a person.
        clock.set(minutes(40))
        _ = try ledger.database.serverRuns.started(clock: clock.store)
        clock.set(minutes(60))
        _ = try ledger.database.serverRuns.started(clock: clock.store)
        _ = third

        let night = DateInterval(start: minutes(-90), end: minutes(120))
        let outages = try ledger.database.serverRuns.outages(overlapping: night)
        #expect(outages.map(\.from) == [minutes(0.5), minutes(20.5)])
        #expect(outages.map(\.until) == [minutes(10), minutes(60)])
        #expect(outages.map(\.stoppedCleanly) == [false, false])
        // Only what overlaps the night is reported.
        #expect(try ledger.database.serverRuns.outages(overlapping: DateInterval(start: minutes(11), end: minutes(19))).isEmpty)
        #expect(try ledger.database.serverRuns.outages(overlapping: DateInterval(start: minutes(5), end: minutes(6))).count == 1)
    }

    @Test("Clear All Data forgets the runs")
    func clearedWithEverything() throws {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(start)
        _ = try ledger.database.serverRuns.started(clock: clock.store)
        clock.set(minutes(30))
        _ = try ledger.database.serverRuns.started(clock: clock.store)
        #expect(try ledger.database.serverRuns.outages(overlapping: DateInterval(start: minutes(-1), end: minutes(60))).count == 1)
        _ = try ledger.database.clearAll(confirmation: "Clear All Data — This cannot be undone.")
        #expect(try ledger.database.serverRuns.outages(overlapping: DateInterval(start: minutes(-1), end: minutes(60))).isEmpty)
    }
}

@Suite("Randomness is injected like the clock")
struct InjectedRandomnessTests {
    @Test("the link secret and device tokens take their bytes from the environment's source, and the secret is made once")
    func secretFromSource() throws {
        let ledger = try StoreFixture.ledger()
        let fixed = RandomSource { count in Array(repeating: 0xAB, count: count) }
        let clock = StoreClock(now: StoreFixture.dose1, machineTimeZoneID: "UTC", makeID: { "id" }, random: fixed)
        #expect(try ledger.database.serverKeys.actionLinkSecret(clock: clock) == String(repeating: "ab", count: 32))
        let other = StoreClock(
            now: StoreFixture.dose1, machineTimeZoneID: "UTC", makeID: { "id" }, random: RandomSource { Array(repeating: 1, count: $0) })
        #expect(try ledger.database.serverKeys.actionLinkSecret(clock: other) == String(repeating: "ab", count: 32), "kept, not made again")
        #expect(DeviceTokens.generate(fixed) == "dtp_" + String(repeating: "ab", count: 32))
        #expect(RandomSource.system.bytes(32) != RandomSource.system.bytes(32))
    }
}
