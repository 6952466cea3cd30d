import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Status of a night (SPEC §5.1)")
struct NightStatusTests {
    func status(_ session: NightSession?, at minutes: Double, settings: DoseSettings = Fixture.settings()) -> NightStatus {
        NightStatus.derive(session: session, at: Fixture.minutes(minutes), settings: settings, timeZone: settings.timeZone)
    }

    @Test("no session: the night to come")
    func noSession() {
        let status = status(nil, at: 0)
        #expect(status.phase == .noDose1)
        #expect(status.primaryAction == .takeDose1)
        #expect(status.sessionID == nil && status.dose1At == nil && status.minutesRemaining == nil && status.nextReminder == nil)
        #expect(!status.canSnooze && !status.canSkip)
        #expect(status.outcome == nil)
    }

    static let timeline: [(Double, NightPhase, PrimaryAction, Int?, Int?, Bool)] = [
        // minutes, phase, primary, minutes remaining, minutes until open, can snooze
        (0, .beforeWindow, .waitForWindow, 240, 150, false),
        (149.5, .beforeWindow, .waitForWindow, 90, 1, false),
        (150, .active, .takeDose2, 90, nil, true),
        (224.99, .active, .takeDose2, 15, nil, true),
        (225, .nearClose, .takeDose2, 15, nil, false),
        (239.99, .nearClose, .takeDose2, 0, nil, false),
        (240, .closed, .takeDose2Late, 0, nil, false),
        (269.99, .closed, .takeDose2Late, 0, nil, false),
        (270, .completed, .none, nil, nil, false),
    ]

    @Test("countdown fields through the night", arguments: timeline)
    func countdown(minutes: Double, phase: NightPhase, primary: PrimaryAction, remaining: Int?, untilOpen: Int?, canSnooze: Bool) throws {
        let status = status(try Fixture.afterDose1(), at: minutes)
        #expect(status.phase == phase)
        #expect(status.primaryAction == primary)
        #expect(status.minutesRemaining == remaining)
        #expect(status.minutesUntilOpen == untilOpen)
        #expect(status.canSnooze == canSnooze)
        #expect(status.minutesSinceDose1 == Int(minutes))
        #expect(status.windowOpensAt == Fixture.minutes(150))
        #expect(status.windowClosesAt == Fixture.minutes(240))
        #expect(status.targetAt == Fixture.minutes(165))
        #expect(status.sessionDate?.description == "2026-03-10")
        if !canSnooze { #expect(status.snoozeBlockedReason != nil) }
    }

    @Test("a whole night: Dose 1, snooze, Dose 2, bathroom, wake, check-in")
    func wholeNight() throws {
        let ids = TestClock(Fixture.dose1)
        var session = try #require(try Fixture.night([(.dose1, Fixture.dose1)], ids: ids))
        var view = status(session, at: 160)
        #expect(view.nextReminder?.kind == .preAlarm)
        view = status(session, at: 160.5)
        #expect(view.nextReminder?.kind == .wakeAlarm)

        session = try NightRules.decide(NightAction(.snooze), session: session, context: Fixture.context(at: Fixture.minutes(165), ids: ids)).session
        view = status(session, at: 166)
        #expect(view.snoozeCount == 1 && view.snoozesRemaining == 2)
        #expect(view.snoozeUntil == Fixture.minutes(175))
        #expect(view.nextReminder?.kind == .wakeAlarm && view.nextReminder?.fireAt == Fixture.minutes(175))

        session = try NightRules.decide(NightAction(.dose2), session: session, context: Fixture.context(at: Fixture.minutes(176), ids: ids)).session
        view = status(session, at: 177)
        #expect(view.phase == .completed && view.outcome == .dose2Taken)
        #expect(view.dose2At == Fixture.minutes(176))
        #expect(view.nextReminder == nil && view.minutesRemaining == nil && view.snoozeUntil == nil)
        #expect(view.primaryAction == PrimaryAction.none)
        #expect(!view.canSkip && view.skipBlockedReason != nil)

        session = try NightRules.decide(
            NightAction(.log(event: "Bathroom")), session: session, context: Fixture.context(at: Fixture.minutes(200), ids: ids)
        )
        .session
        session = try NightRules.decide(NightAction(.wake), session: session, context: Fixture.context(at: Fixture.minutes(520), ids: ids)).session
        view = status(session, at: 521)
        #expect(view.phase == .finalizing && view.primaryAction == .checkIn && view.outcome == .dose2Taken)

        let decision = try NightRules.decide(
            NightAction(.checkIn(MorningCheckIn())), session: session, context: Fixture.context(at: Fixture.minutes(530), ids: ids))
        view = status(decision.session, at: 531)
        #expect(view.phase == .completed && view.primaryAction == PrimaryAction.none && view.checkedIn)
        #expect(decision.session.events.count == 6)
        #expect(Set(decision.session.events.map(\.id)).count == 6)
    }

    @Test("warnings: near close, closed, extra dose, early Dose 2")
    func warnings() throws {
        let session = try Fixture.afterDose1()
        #expect(status(session, at: 230).warnings.contains { $0.contains("15 minutes") })
        #expect(status(session, at: 245).warnings.contains { $0.contains("closed") })
        let early = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(100))], confirm: [.early]))
        #expect(status(early, at: 101).warnings.contains { $0.contains("early") })
        let extra = try #require(
            try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160)), (.dose2, Fixture.minutes(170))], confirm: [.extra]))
        let view = status(extra, at: 171)
        #expect(view.extraDoseCount == 1)
        #expect(view.warnings.contains { $0.contains("extra dose") })
        #expect(view.pastNightlyMaximum == nil, "one extra within 9 g is within the night's limits")
    }

    @Test("D20: past the night's limits, the first warning says what the night holds and how to get help")
    func pastMaximum() throws {
        let extra = try #require(
            try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160)), (.dose2, Fixture.minutes(170))], confirm: [.extra]))
        let anyway = try NightRules.decide(
            NightAction(.takenAnyway(amountMilligrams: 3000), at: Fixture.minutes(175)), session: extra,
            context: Fixture.context(at: Fixture.minutes(176)))
        #expect(anyway.warnings.contains { $0.contains("9.75 g of oxybate in 4 doses, more than the 9 g") && $0.contains("emergency services") })
        let view = status(anyway.session, at: 180)
        #expect(view.pastNightlyMaximum == "The night holds 9.75 g of oxybate in 4 doses; the most a night may hold is 9 g.")
        #expect(view.warnings.first?.hasPrefix("The night holds 9.75 g of oxybate in 4 doses; the most a night may hold is 9 g.") == true)
        #expect(view.warnings.first?.contains(NightRules.helpWords) == true, "\(view.warnings)")
        #expect(!view.warnings.contains { $0.contains("Do not take more.") }, "one warning about the doses, not two")
        let regimen = try #require(NightFacts(anyway.session.events).regimen)
        #expect(
            RegimenWords.amountsTaken(regimen, dose2Taken: true, extrasMilligrams: [2250, 3000])
                == "2.25 g + 2.25 g + 2.25 g extra + 3 g extra")
    }

    @Test("skipped and expired outcomes")
    func outcomes() throws {
        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: "felt rested"), Fixture.minutes(155))]))
        let view = status(skipped, at: 160)
        #expect(view.outcome == .dose2Skipped && view.dose2Skipped && view.skipReason == "felt rested")
        #expect(status(try Fixture.afterDose1(), at: 300).outcome == .expired)
    }

    @Test("snoozes remaining follow the setting and never go below zero")
    func snoozesRemaining() throws {
        let settings = try Fixture.settings().setting("max_snoozes", to: "1")
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.snooze, Fixture.minutes(160))], settings: settings))
        let view = status(session, at: 161, settings: settings)
        #expect(view.snoozesRemaining == 0)
        #expect(!view.canSnooze)
        #expect(view.snoozeBlockedReason == "Tonight's only snooze is used. Take Dose 2 now or skip it.")
    }
}
