import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Dose window phases (D2)")
struct DoseWindowTests {
    static let phaseTable: [(Double, NightPhase)] = [
        (-0.5, .beforeWindow), (0, .beforeWindow), (1, .beforeWindow), (149, .beforeWindow), (149.99, .beforeWindow),
        (150, .active), (151, .active), (165, .active), (224, .active), (224.99, .active),
        (225, .nearClose), (226, .nearClose), (239, .nearClose), (239.99, .nearClose),
        (240, .closed), (241, .closed), (269, .closed), (269.99, .closed),
        (270, .completed), (271, .completed), (600, .completed),
    ]

    @Test("phase after Dose 1 by minutes elapsed", arguments: phaseTable)
    func phaseByMinutes(minutes: Double, expected: NightPhase) throws {
        let facts = NightFacts(try Fixture.afterDose1().events)
        #expect(facts.phase(at: Fixture.minutes(minutes)) == expected)
    }

    @Test("no events means no Dose 1, whatever the time", arguments: [0.0, 150, 300])
    func noDose1(minutes: Double) {
        #expect(NightFacts([]).phase(at: Fixture.minutes(minutes)) == .noDose1)
    }

    @Test("window instants are absolute, on a DST spring-forward night")
    func springForwardWindowIsAbsolute() throws {
        // 8 March 2026, New York: clocks jump 02:00 → 03:00. Dose 1 at 23:30 EST.
        let dose1 = WallClock.date(2026, 3, 7, 23, 30)
        let opens = DoseWindow.label.opens(after: dose1)
        #expect(opens.timeIntervalSince(dose1) == 150 * 60)
        // 150 absolute minutes later the wall clock reads 03:00 EDT, not 02:00.
        #expect(LocalClock.hourMinute(opens, in: Fixture.newYork) == "03:00")
        let status = NightStatus.derive(
            session: try Fixture.afterDose1(at: dose1), at: opens, settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(status.phase == .active)
        #expect(status.minutesSinceDose1 == 150)
    }

    @Test("window instants are absolute, on a DST fall-back night")
    func fallBackWindowIsAbsolute() throws {
        // 1 November 2026, New York: 02:00 EDT → 01:00 EST. Dose 1 at 23:00 EDT.
        let dose1 = WallClock.date(2026, 10, 31, 23, 0)
        let opens = DoseWindow.label.opens(after: dose1)
        // 150 minutes: 23:00 EDT → 01:00 EDT (first) → 01:00 EST (second) → 01:30 EST.
        #expect(LocalClock.hourMinute(opens, in: Fixture.newYork) == "01:30")
        let closes = DoseWindow.label.closes(after: dose1)
        #expect(LocalClock.hourMinute(closes, in: Fixture.newYork) == "02:00")
        #expect(closes.timeIntervalSince(dose1) == 240 * 60)
    }

    @Test("whole minutes truncate toward zero", arguments: [(59.9, 0), (60, 1), (149.99 * 60, 149), (-59, 0), (-61, -1)] as [(Double, Int)])
    func wholeMinutes(seconds: Double, expected: Int) {
        let start = Fixture.dose1
        #expect(DoseWindow.wholeMinutes(from: start, to: start.addingTimeInterval(seconds)) == expected)
    }

    @Test(
        "the one Dose 2 classifier: early below 150, late from 240, both boundaries on both sides",
        arguments: [
            (0.0, true, false), (149.0, true, false), (149.99, true, false), (150.0, false, false), (224.0, false, false), (225.0, false, false),
            (239.0, false, false), (239.99, false, false), (240.0, false, true), (269.0, false, true), (270.0, false, true),
        ])
    func classifyDose2(minutes: Double, early: Bool, late: Bool) {
        var metadata = EventMetadata()
        metadata.classifyDose2(at: Fixture.minutes(minutes), dose1: Fixture.dose1, window: .label)
        #expect(metadata.isEarly == early && metadata.isLate == late)
    }

    @Test(
        "on time is ±10 minutes of the target, both ends included",
        arguments: [
            (154, 165, false), (155, 165, true), (165, 165, true), (175, 165, true), (176, 165, false), (214, 225, false), (215, 225, true),
            (235, 225, true),
            (236, 225, false),
        ])
    func onTime(interval: Int, target: Int, onTime: Bool) {
        #expect(DoseWindow.isOnTime(intervalMinutes: interval, targetMinutes: target) == onTime)
    }

    @Test(
        "a natural wake is Dose 2 before the wake alarm with no snooze",
        arguments: [
            (164.99, 0, true), (165.0, 0, false), (150.0, 1, false), (200.0, 0, false),
        ])
    func naturalWake(minutes: Double, snoozes: Int, natural: Bool) {
        #expect(
            DoseWindow.label.isNaturalWake(dose1: Fixture.dose1, dose2: Fixture.minutes(minutes), targetMinutes: 165, snoozes: snoozes) == natural)
    }
}
