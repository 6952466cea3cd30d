import DoseCore
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
        let dose1 = Fixture.local(2026, 3, 7, 23, 30)
        let opens = DoseWindow.opens(after: dose1)
        #expect(opens.timeIntervalSince(dose1) == 150 * 60)
        // 150 absolute minutes later the wall clock reads 03:00 EDT, not 02:00.
        #expect(LocalClock.hourMinute(opens, in: Fixture.newYork) == "03:00")
        let status = NightStatus.derive(session: try Fixture.afterDose1(at: dose1), at: opens, settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(status.phase == .active)
        #expect(status.minutesSinceDose1 == 150)
    }

    @Test("window instants are absolute, on a DST fall-back night")
    func fallBackWindowIsAbsolute() throws {
        // 1 November 2026, New York: 02:00 EDT → 01:00 EST. Dose 1 at 23:00 EDT.
        let dose1 = Fixture.local(2026, 10, 31, 23, 0)
        let opens = DoseWindow.opens(after: dose1)
        // 150 minutes: 23:00 EDT → 01:00 EDT (first) → 01:00 EST (second) → 01:30 EST.
        #expect(LocalClock.hourMinute(opens, in: Fixture.newYork) == "01:30")
        let closes = DoseWindow.closes(after: dose1)
        #expect(LocalClock.hourMinute(closes, in: Fixture.newYork) == "02:00")
        #expect(closes.timeIntervalSince(dose1) == 240 * 60)
    }

    @Test("whole minutes truncate toward zero", arguments: [(59.9, 0), (60, 1), (149.99 * 60, 149), (-59, 0), (-61, -1)] as [(Double, Int)])
    func wholeMinutes(seconds: Double, expected: Int) {
        let start = Fixture.dose1
        #expect(DoseWindow.wholeMinutes(from: start, to: start.addingTimeInterval(seconds)) == expected)
    }
}
