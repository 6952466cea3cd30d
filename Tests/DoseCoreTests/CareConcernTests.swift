import DoseCore
import Testing

@Suite("a clinic's list: what needs attention, and in which order")
struct CareConcernTests {
    static let today = SessionKey(year: 2026, month: 11, day: 30)!

    static func night(_ back: Int, _ timing: DoseTiming?, wellness: Int? = nil) -> CareConcern.Night {
        CareConcern.Night(date: today.adding(days: -back), timing: timing, wellness: wellness)
    }

    @Test(
        "Dose 2 early, late or missed counts within the last 7 nights only: tonight and 6 nights back are in, 7 back is out",
        arguments: [(0, true), (6, true), (7, false), (30, false)])
    func recentNightsOnly(back: Int, counted: Bool) {
        for timing in [DoseTiming.early, .late, .sleptThrough, .endedWithoutDose2] {
            let concern = CareConcern([Self.night(back, timing)], lastNight: Self.today, today: Self.today)
            #expect(concern.doseConcerns == (counted ? 1 : 0) && concern.needsAttention == counted, "\(timing) \(back) nights back")
        }
    }

    @Test(
        "on target, in window, skipped and one dose are no concern; undecided tonight is none yet",
        arguments: [DoseTiming.onTarget, .inWindow, .skipped, .oneDose, .undecided])
    func noConcern(timing: DoseTiming) {
        let concern = CareConcern([Self.night(0, timing)], lastNight: Self.today, today: Self.today)
        #expect(concern.doseConcerns == 0 && !concern.needsAttention)
        #expect(concern.skipped == (timing == .skipped ? 1 : 0))
        #expect(concern.nights == (timing == .oneDose ? 0 : 1), "a once-nightly night has no Dose 2 to judge")
    }

    @Test(
        "no Dose 1 for 3 days needs attention, 2 days does not; none ever is said, not counted as quiet",
        arguments: [(2, false), (3, true), (40, true)])
    func quietDays(days: Int, attention: Bool) {
        let concern = CareConcern([], lastNight: Self.today.adding(days: -days), today: Self.today)
        #expect(concern.daysSinceLastNight == days && concern.needsAttention == attention)
        #expect(!CareConcern([], lastNight: nil, today: Self.today).needsAttention)
    }

    @Test(
        "wellness fallen 10 points from the 21 nights before needs attention; 9.5 does not; a rise never does",
        arguments: [(60.5, false), (60.0, true), (40.0, true), (90.0, false)])
    func wellnessTrend(recent: Double, attention: Bool) {
        // Two check-ins of 70 in the 21 nights before the 7, and the recent mean made of two check-ins.
        let before = [Self.night(8, .onTarget, wellness: 70), Self.night(27, .onTarget, wellness: 70), Self.night(28, .onTarget, wellness: 0)]
        let low = Int(recent.rounded(.down))
        let high = Int((recent * 2).rounded()) - low
        let concern = CareConcern(
            before + [Self.night(1, .onTarget, wellness: low), Self.night(2, .onTarget, wellness: high)], lastNight: Self.today.adding(days: -1),
            today: Self.today)
        #expect(concern.wellnessBefore == 70, "28 nights back is outside the baseline")
        #expect(abs((concern.wellness ?? 0) - recent) < 0.01 && concern.needsAttention == attention, "\(concern)")
    }

    @Test("the list: attention first, then more Dose 2 concerns, then longer quiet, then the larger fall in wellness; ties keep their order")
    func order() {
        let fine = CareConcern([Self.night(0, .onTarget)], lastNight: Self.today, today: Self.today)
        let oneLate = CareConcern([Self.night(1, .late)], lastNight: Self.today.adding(days: -1), today: Self.today)
        let twoMissed = CareConcern([Self.night(1, .sleptThrough), Self.night(2, .endedWithoutDose2)], lastNight: Self.today, today: Self.today)
        let quiet = CareConcern([], lastNight: Self.today.adding(days: -9), today: Self.today)
        let quieter = CareConcern([], lastNight: Self.today.adding(days: -20), today: Self.today)
        let people = [("fine", fine), ("quiet", quiet), ("oneLate", oneLate), ("quieter", quieter), ("twoMissed", twoMissed)]
        let sorted = CareConcern.ordered(people) { $0.1 }.map(\.0)
        #expect(sorted == ["twoMissed", "oneLate", "quieter", "quiet", "fine"])
    }
}
