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

    @Test("Clear All Data forgets the runs")
    func clearedWithEverything() throws {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(start)
        let app = { UseCases(ledger.database, clock: clock.store) }
        _ = try app().reminders.serverStarted()
        clock.set(minutes(30))
        _ = try app().reminders.serverStarted()
        #expect(try app().reminders.outages(overlapping: DateInterval(start: minutes(-1), end: minutes(60))).count == 1)
        _ = try ledger.database.clearAll(confirmation: "Clear All Data — This cannot be undone.")
        #expect(try app().reminders.outages(overlapping: DateInterval(start: minutes(-1), end: minutes(60))).isEmpty)
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
