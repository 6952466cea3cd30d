import DoseCore
import Foundation
import Testing

/// The periods an offline device looks Dose 2 up in must say exactly what the rules decide: the period's confirmations
/// are accepted, and leaving any one of them out is refused, on both sides of every edge.
@Suite("Dose 2 periods agree with the rules at 149/150, 239/240 and 269/270 minutes")
struct Dose2PeriodTests {
    static let minutes: [Double] = [0, 149, 149.99, 150, 224, 225, 239, 239.99, 240, 269, 269.99, 270, 300, 600]

    static func expected(_ minutes: Double) -> Dose2Period.Kind {
        switch minutes {
        case ..<150: .beforeWindow
        case ..<240: .window
        case ..<270: .afterWindow
        default: .expired
        }
    }

    @Test("the period at each minute, and the rules accept its confirmations and refuse each one left out", arguments: minutes)
    func agreesWithTheRules(minutes: Double) throws {
        let now = Fixture.minutes(minutes)
        // The night as the store holds it at `now`: DoseTap's sleep-through expiry is recorded once it is due.
        let session = try Dose2DecisionTests.expired(at: now)
        let status = NightStatus.derive(session: try Fixture.afterDose1(), at: now, settings: Fixture.settings(), timeZone: Fixture.newYork)
        let period = try #require(Dose2Period.period(at: now, in: status.dose2Periods))
        #expect(period.kind == Self.expected(minutes))
        let decision = try NightRules.decide(
            NightAction(.dose2, confirmations: Set(period.confirmations)), session: session, context: Fixture.context(at: now))
        #expect(decision.event?.kind == .dose2, "the period's own confirmations are enough")
        for missing in period.confirmations {
            let fewer = Set(period.confirmations).subtracting([missing])
            #expect(Fixture.refusal(NightAction(.dose2, confirmations: fewer), session: session, at: now) != nil, "without \(missing) it is refused")
        }
    }

    @Test("the periods run from Dose 1 with no gap and no overlap, the last without an end")
    func contiguous() throws {
        let periods = Dose2Period.periods(dose1: Fixture.dose1, window: .label)
        #expect(periods.map(\.kind) == Dose2Period.Kind.allCases)
        #expect(periods.first?.from == Fixture.dose1)
        for (earlier, later) in zip(periods, periods.dropFirst()) { #expect(earlier.until == later.from) }
        #expect(periods.last?.until == nil)
        #expect(Dose2Period.period(at: Fixture.minutes(-1), in: periods) == nil, "before Dose 1 there is no period")
    }

    @Test("there are no periods before Dose 1, after Dose 2 or after a skip")
    func onlyWhileDose2IsPending() throws {
        let settings = Fixture.settings()
        let none = NightStatus.derive(session: nil, at: Fixture.dose1, settings: settings, timeZone: Fixture.newYork)
        #expect(none.dose2Periods.isEmpty)
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))]))
        #expect(NightStatus.derive(session: taken, at: Fixture.minutes(171), settings: settings, timeZone: Fixture.newYork).dose2Periods.isEmpty)
        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(170))]))
        #expect(NightStatus.derive(session: skipped, at: Fixture.minutes(171), settings: settings, timeZone: Fixture.newYork).dose2Periods.isEmpty)
    }
}
