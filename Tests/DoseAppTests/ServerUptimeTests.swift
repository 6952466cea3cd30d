import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Server runs: when the alarm clock was down, on each store")
struct ServerUptimeTests {
    static let start = WallClock.date(2026, 11, 22, 0, 0)

    static func minutes(_ value: Double) -> Date { start.addingTimeInterval(value * 60) }

    @Test(
        "a crash is an outage from the last heartbeat to the next start; a quick clean restart is none; touching outages merge",
        arguments: EachStore.kinds)
    func outages(_ kind: String) throws {
        let each = try EachStore(kind, at: Self.start)
        defer { each.close() }
        func reminders(at value: Double) -> ReminderService { each.app(at: Self.minutes(value)).reminders }
        // A run long gone, a year and more ago, is forgotten when the next starts.
        let ancient = try reminders(at: -367 * 1_440).serverStarted()
        let first = try reminders(at: 0).serverStarted()
        try reminders(at: 0.5).serverAlive(first)
        // Killed at about 00:01; the supervisor is slow and it is back at 00:10.
        let second = try reminders(at: 10).serverStarted()
        // Stopped cleanly at 00:20 and started again 30 s later: a restart, not an outage.
        try reminders(at: 20).serverAlive(second, stopped: true)
        _ = try reminders(at: 20.5).serverStarted()
        // Dies at once, again at once: 00:20:30 → 00:40 and 00:40 → 01:00 are one outage to a person.
        _ = try reminders(at: 40).serverStarted()
        _ = try reminders(at: 60).serverStarted()

        let now = reminders(at: 120)
        let outages = try now.outages(overlapping: DateInterval(start: Self.minutes(-90), end: Self.minutes(120)))
        #expect(outages.map(\.from) == [Self.minutes(0.5), Self.minutes(20.5)])
        #expect(outages.map(\.until) == [Self.minutes(10), Self.minutes(60)])
        #expect(outages.map(\.stoppedCleanly) == [false, false])
        // Only what overlaps the interval is reported.
        #expect(try now.outages(overlapping: DateInterval(start: Self.minutes(11), end: Self.minutes(19))).isEmpty)
        #expect(try now.outages(overlapping: DateInterval(start: Self.minutes(5), end: Self.minutes(6))).count == 1)
        #expect(try each.rows("SELECT id FROM server_runs WHERE id = '\(ancient)'", columns: 1).isEmpty)
    }
}
