import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// The worked examples of docs/RULES.md §7, so the documentation cannot drift from the code.
@Suite("docs/RULES.md worked examples")
struct WorkedExampleTests {
    let zone = Fixture.newYork
    func at(_ h: Int, _ m: Int, day: Int = 11) -> Date { WallClock.date(2026, 3, day, h, m) }

    @Test("a plain night in New York")
    func plainNight() throws {
        let ids = TestClock(Fixture.dose1)
        let session = try Fixture.afterDose1()
        let status = NightStatus.derive(session: session, at: at(0, 40), settings: Fixture.settings(), timeZone: zone)
        for (instant, text) in [
            (status.windowOpensAt, "01:00"), (status.nearCloseAt, "02:15"), (status.windowClosesAt, "02:30"), (status.expiresAt, "03:00"),
            (status.targetAt, "01:15"),
        ] {
            #expect(LocalClock.hourMinute(try #require(instant), in: zone) == text)
        }
        let plan = ReminderPlan.plan(for: session, settings: Fixture.settings()).map {
            "\($0.kind.rawValue) \(LocalClock.hourMinute($0.fireAt, in: zone))"
        }
        #expect(
            plan.prefix(6) == [
                "window_open 01:00", "pre_alarm 01:10", "wake_alarm 01:15", "follow_up_1 01:17", "follow_up_2 01:19", "follow_up_3 01:21",
            ])

        let early = Fixture.refusal(NightAction(.dose2), session: session, at: at(0, 40))
        #expect(early == .windowNotOpen(minutesUntilOpen: 20, opensAt: at(1, 0), localTime: "01:00"))
        #expect(early?.message.contains("opens at 01:00, in 20 min") == true)

        let snoozed = try NightRules.decide(NightAction(.snooze), session: session, context: Fixture.context(at: at(1, 15), ids: ids))
        #expect(snoozed.event?.metadata.snoozeUntil == at(1, 25))
        #expect(NightStatus.derive(session: snoozed.session, at: at(1, 15), settings: Fixture.settings(), timeZone: zone).snoozesRemaining == 2)
        #expect(Fixture.refusal(NightAction(.snooze), session: snoozed.session, at: at(2, 16)) == .snoozeUnavailable(.nearClose))

        let taken = try NightRules.decide(NightAction(.dose2), session: snoozed.session, context: Fixture.context(at: at(1, 26), ids: ids))
        #expect(taken.event?.metadata.isEarly == false && taken.event?.metadata.isLate == false)
        #expect(ReminderPlan.plan(for: taken.session, settings: Fixture.settings()).isEmpty)
    }
}
