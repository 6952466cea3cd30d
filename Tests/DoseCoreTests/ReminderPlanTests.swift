import DoseCore
import Foundation
import Testing

@Suite("Reminder plan (SPEC §3.4)")
struct ReminderPlanTests {
    func offsets(_ plan: [Reminder], from dose1: Date = Fixture.dose1) -> [String] {
        plan.map { "\($0.kind.rawValue)@\($0.fireAt.timeIntervalSince(dose1) / 60)" }
    }

    @Test(
        "a reminder found late still rings up to 120 s after its time; later it is only logged as missed",
        arguments: [(0.0, true), (119, true), (120, true), (120.5, false), (121, false), (3600, false)])
    func deliveryGrace(secondsLate: Double, rings: Bool) throws {
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(), settings: Fixture.settings())
        let alarm = try #require(plan.first { $0.kind == .wakeAlarm })
        #expect(ReminderPlan.stillRings(alarm, at: alarm.fireAt.addingTimeInterval(secondsLate)) == rings)
    }

    @Test("default target 165: every alarm at its offset, in order")
    func defaultPlan() throws {
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(), settings: Fixture.settings())
        #expect(
            offsets(plan) == [
                "window_open@150.0", "pre_alarm@160.0", "wake_alarm@165.0", "follow_up_1@167.0", "follow_up_2@169.0",
                "follow_up_3@171.0", "warning_30_min@210.0", "warning_15_min@225.0", "warning_5_min@235.0",
                "warning_2_min@238.0", "warning_30_sec@239.5", "window_expired@240.0",
            ])
    }

    @Test("target 225: the wake alarm merges with the 15-minute warning, keeping the more urgent")
    func target225() throws {
        let settings = try Fixture.settings().setting("target_interval", to: "225")
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(settings: settings), settings: settings)
        #expect(
            offsets(plan) == [
                "window_open@150.0", "warning_30_min@210.0", "pre_alarm@220.0", "warning_15_min@225.0", "follow_up_1@227.0",
                "follow_up_2@229.0", "follow_up_3@231.0", "warning_5_min@235.0", "warning_2_min@238.0", "warning_30_sec@239.5",
                "window_expired@240.0",
            ])
    }

    @Test("target 210: the wake alarm outranks the 30-minute warning")
    func target210() throws {
        let settings = try Fixture.settings().setting("target_interval", to: "210")
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(settings: settings), settings: settings)
        #expect(plan.first { $0.fireAt == Fixture.minutes(210) }?.kind == .wakeAlarm)
        #expect(!plan.contains { $0.kind == .warning30Minutes })
    }

    @Test("every target keeps the plan sorted, unique, and inside the window but for the expiry", arguments: DoseSettings.targetIntervalOptions)
    func invariants(target: Int) throws {
        let settings = try Fixture.settings().setting("target_interval", to: String(target))
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(settings: settings), settings: settings)
        #expect(plan.map(\.fireAt) == plan.map(\.fireAt).sorted())
        #expect(Set(plan.map(\.fireAt)).count == plan.count)
        #expect(plan.last?.kind == .windowExpired)
        #expect(plan.dropLast().allSatisfy { $0.fireAt < Fixture.minutes(240) })
        #expect(plan.contains { $0.kind == .wakeAlarm && $0.fireAt == Fixture.minutes(Double(target)) } || target == 225)
    }

    @Test("a snooze moves the wake alarm and its follow-ups to snooze_until")
    func snoozeMoves() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.snooze, Fixture.minutes(166))]))
        let plan = ReminderPlan.plan(for: session, settings: Fixture.settings())
        #expect(plan.first { $0.kind == .wakeAlarm }?.fireAt == Fixture.minutes(176))
        #expect(plan.first { $0.kind == .followUp3 }?.fireAt == Fixture.minutes(182))
        #expect(plan.first { $0.kind == .preAlarm }?.fireAt == Fixture.minutes(160))
    }

    @Test("a late snooze pushes follow-ups past the close: they are dropped")
    func lateSnoozeDrops() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.snooze, Fixture.minutes(224))]))
        let plan = ReminderPlan.plan(for: session, settings: Fixture.settings())
        #expect(plan.first { $0.kind == .wakeAlarm }?.fireAt == Fixture.minutes(234))
        #expect(plan.first { $0.kind == .followUp1 }?.fireAt == Fixture.minutes(236))
        // Follow-up 2 at 238 coincides with the 2-minute warning, which is more urgent and stays.
        #expect(!plan.contains { $0.kind == .followUp2 })
        #expect(plan.first { $0.fireAt == Fixture.minutes(238) }?.kind == .warning2Minutes)
        #expect(!plan.contains { $0.kind == .followUp3 })
    }

    @Test("Dose 2, skip, expiry, wake-up, disabled reminders and no Dose 1 leave no plan")
    func cancelled() throws {
        let settings = Fixture.settings()
        #expect(ReminderPlan.plan(for: nil, settings: settings).isEmpty)
        for steps: [(NightAction.Kind, Date)] in [
            [(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))],
            [(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(160))],
            [(.dose1, Fixture.dose1), (.wake, Fixture.minutes(100))],
            [(.log(event: "water"), Fixture.dose1)],
        ] {
            // A wake-up with Dose 2 pending needs end_night (D16), which cancels the plan.
            #expect(ReminderPlan.plan(for: try Fixture.night(steps, confirm: [.endNight]), settings: settings).isEmpty)
        }
        let expired = SessionLifecycle.apply(
            SessionLifecycle.evaluate(
                try Fixture.afterDose1(), now: Fixture.minutes(270), settings: settings, timeZone: Fixture.newYork, makeID: { "e" }),
            to: try Fixture.afterDose1())
        #expect(ReminderPlan.plan(for: expired, settings: settings).isEmpty)
        let off = try settings.setting("reminders_enabled", to: "false")
        #expect(ReminderPlan.plan(for: try Fixture.afterDose1(), settings: off).isEmpty)
    }

    @Test("undo of Dose 1 cancels the plan")
    func undoDose1() throws {
        let session = try Fixture.afterDose1()
        let undone = try NightRules.decide(NightAction(.undo), session: session, context: Fixture.context(at: Fixture.dose1.addingTimeInterval(2)))
            .session
        #expect(ReminderPlan.plan(for: undone, settings: Fixture.settings()).isEmpty)
    }

    @Test(
        "next reminder is the first at or after now",
        arguments: [(0.0, ReminderKind.windowOpen), (150, .windowOpen), (150.01, .preAlarm), (239.6, .windowExpired)])
    func next(minutes: Double, kind: ReminderKind) throws {
        #expect(ReminderPlan.next(for: try Fixture.afterDose1(), settings: Fixture.settings(), after: Fixture.minutes(minutes))?.kind == kind)
    }

    @Test("nothing is next after the window expiry")
    func nothingNext() throws {
        #expect(ReminderPlan.next(for: try Fixture.afterDose1(), settings: Fixture.settings(), after: Fixture.minutes(240.01)) == nil)
    }

    @Test(
        "the wake alarm re-fires N minutes after it rang unless an answer came in [alarm, alarm + N)",
        arguments: [
            (3, nil, true), (3, 0.0, false), (3, 2.99, false), (3, 3.0, true), (3, -0.01, true), (1, 0.5, false), (10, 9.9, false), (10, 10.0, true),
        ] as [(Int, Double?, Bool)])
    func refire(minutes: Int, answeredAfter: Double?, refires: Bool) throws {
        let settings = try Fixture.settings().setting("wake_alarm_refire_minutes", to: String(minutes))
        let wake = Fixture.minutes(165)
        let answers = answeredAfter.map { [wake.addingTimeInterval($0 * 60)] } ?? []
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(settings: settings), settings: settings, acknowledgedAt: answers)
        let refire = plan.first { $0.kind == .wakeAlarmRefire }
        #expect((refire != nil) == refires)
        if refires { #expect(refire?.fireAt == Fixture.minutes(165 + Double(minutes)) && refire?.usefulUntil == Fixture.minutes(240)) }
    }

    @Test("a person's event recorded after the alarm answers it as I'm up does; a system event does not")
    func eventsAnswer() throws {
        let settings = try Fixture.settings().setting("wake_alarm_refire_minutes", to: "5")
        let logged = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.log(event: "bathroom"), Fixture.minutes(166))]))
        #expect(!ReminderPlan.plan(for: logged, settings: settings).contains { $0.kind == .wakeAlarmRefire })
        var system = logged
        system.events[1].source = EventSource.system
        #expect(ReminderPlan.plan(for: system, settings: settings).contains { $0.kind == .wakeAlarmRefire })
    }

    @Test(
        "escalation: at the chosen point, never before the wake alarm, only when enabled, for the contact alone",
        arguments: [(false, 225, 165, nil), (true, 225, 165, 225.0), (true, 150, 165, 165), (true, 200, 210, 210), (true, 235, 225, 235)]
            as [(Bool, Int, Int, Double?)])
    func escalation(enabled: Bool, point: Int, target: Int, expected: Double?) throws {
        let settings = try Fixture.settings().setting("escalation_enabled", to: String(enabled)).setting("escalation_minutes", to: String(point))
            .setting("target_interval", to: String(target))
        let plan = ReminderPlan.plan(for: try Fixture.afterDose1(settings: settings), settings: settings)
        let escalation = plan.filter { $0.kind == .escalation }
        #expect(escalation.map(\.fireAt) == (expected.map { [Fixture.minutes($0)] } ?? []))
        #expect(escalation.allSatisfy { $0.kind.audience == .contact && ReminderPlan.stillRings($0, at: Fixture.minutes(239.9)) })
        #expect(escalation.allSatisfy { !ReminderPlan.stillRings($0, at: Fixture.minutes(240)) })
        // The sleeper's plan at the same instant keeps its own reminder.
        let plain = try Fixture.settings().setting("target_interval", to: String(target))
        let sleeperOnly = ReminderPlan.plan(for: try Fixture.afterDose1(settings: plain), settings: plain)
        #expect(plan.filter { $0.kind.audience == .sleeper } == sleeperOnly)
    }
}
