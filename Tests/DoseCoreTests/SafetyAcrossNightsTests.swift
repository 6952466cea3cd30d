import DoseCore
import Foundation
import Testing

/// SPEC D14 (no re-dosing across a closed night) and D15 (one tap is one action; wake-up soon after Dose 2 asks).
@Suite("D14 and D15: re-dosing and half-asleep taps")
struct SafetyAcrossNightsTests {
    /// Dose 1 in a fresh night at `minutes` after a dose of another, already closed night taken at `Fixture.dose1`.
    func dose1(at minutes: Double, near kind: EventKind = .dose2, confirm: Set<ConfirmKind> = []) -> Result<Decision, DoseError> {
        var context = Fixture.context(at: Fixture.minutes(minutes))
        context.nearbyDoses = [RecordedDose(kind: kind, at: Fixture.dose1)]
        return Result { () throws(DoseError) in try NightRules.decide(NightAction(.dose1, confirmations: confirm), session: nil, context: context) }
    }

    static let spacing: [(Double, Bool)] = [
        // minutes after the last dose, refused
        (1, true), (35, true), (479, true), (479.99, true), (480, false), (480.01, false), (600, false),
    ]

    @Test("Dose 1 less than 8 h after the last dose is refused; at 8 h it is allowed", arguments: spacing)
    func eightHours(minutes: Double, refused: Bool) throws {
        switch dose1(at: minutes) {
        case .failure(let error):
            #expect(refused)
            #expect(error.code == .recentDose && error.confirm == .newNight)
            #expect(error.message.contains("Dose 2 was taken at 22:30"))
            #expect(error.message.contains("from 06:30"))
            #expect(error.details["allowed_from"] == ISO8601.string(Fixture.minutes(480)))
        case .success(let decision):
            #expect(!refused)
            #expect(decision.event?.kind == .dose1 && decision.warnings.isEmpty)
        }
    }

    @Test(
        "every oxybate dose counts; a skip, a snooze or a sleep event does not",
        arguments: [
            (EventKind.dose1, true), (.dose2, true), (.extraDose, true), (.dose2Skipped, false), (.snooze, false), (.sleep(.bathroom), false),
        ])
    func whichEvents(kind: EventKind, counts: Bool) {
        let result = dose1(at: 60, near: kind)
        if counts { #expect(throws: DoseError.self) { try result.get() } } else { #expect(throws: Never.self) { try result.get() } }
    }

    @Test("a back-dated Dose 1 just before another night's dose is refused as well")
    func backDated() throws {
        var context = Fixture.context(at: Fixture.minutes(120))
        context.nearbyDoses = [RecordedDose(kind: .dose1, at: Fixture.minutes(60))]
        let action = NightAction(.dose1, at: Fixture.minutes(0))
        #expect(throws: DoseError.self) { try NightRules.decide(action, session: nil, context: context) }
        if case .failure(let error) = Result(catching: { () throws(DoseError) in try NightRules.decide(action, session: nil, context: context) }) {
            #expect(error.message.contains("after this Dose 1's time"))
        }
    }

    @Test(
        "the refusal words how far apart the two doses are: before, the same minute, after",
        arguments: [
            (35.0, "35 min before this Dose 1"), (0.4, "the same minute as this Dose 1"), (-20.0, "20 min after this Dose 1's time"),
        ])
    func apartInWords(minutes: Double, words: String) throws {
        var context = Fixture.context(at: Fixture.minutes(max(minutes, 0) + 30))
        context.nearbyDoses = [RecordedDose(kind: .dose2, at: Fixture.dose1)]
        let action = NightAction(.dose1, at: Fixture.minutes(minutes))
        let result = Result { () throws(DoseError) in try NightRules.decide(action, session: nil, context: context) }
        guard case .failure(let error) = result else {
            Issue.record("Dose 1 \(minutes) min from Dose 2 was allowed")
            return
        }
        #expect(error.message.contains("Dose 2 was taken at 22:30, \(words)."), "\(error.message)")
    }

    @Test("new_night records it, with the confirmation kept and a warning; another confirmation does not pass")
    func confirmed() throws {
        let decision = try dose1(at: 35, confirm: [.newNight]).get()
        #expect(decision.event?.metadata.confirmations == [.newNight])
        #expect(decision.warnings.contains { $0.contains("35 min from the last oxybate dose") })
        #expect(throws: DoseError.self) { try dose1(at: 35, confirm: [.early, .late, .extra, .afterSkip]).get() }
    }

    @Test("Dose 1 already in the open night is still 409_ALREADY_TAKEN, first in order")
    func orderOfGuards() throws {
        let session = try Fixture.afterDose1()
        var context = Fixture.context(at: Fixture.minutes(30))
        context.nearbyDoses = [RecordedDose(kind: .dose1, at: Fixture.dose1)]
        #expect(throws: DoseError.alreadyTaken(dose: "Dose 1", at: Fixture.dose1, localTime: "22:30", confirm: nil)) {
            try NightRules.decide(NightAction(.dose1), session: session, context: context)
        }
    }

    // MARK: D15

    func status(_ session: NightSession?, at minutes: Double) -> NightStatus {
        NightStatus.derive(session: session, at: Fixture.minutes(minutes), settings: Fixture.settings(), timeZone: Fixture.newYork)
    }

    @Test(
        "after Dose 2, a skip or an expiry the primary action is never Wake Up",
        arguments: [NightAction.Kind.dose2, .skip(reason: nil)])
    func neverWakeUp(kind: NightAction.Kind) throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (kind, Fixture.minutes(170))]))
        for minutes in [170.0, 171, 289, 290, 600] {
            #expect(status(session, at: minutes).primaryAction == PrimaryAction.none)
        }
        #expect(status(try Fixture.afterDose1(), at: 300).primaryAction == PrimaryAction.none)
    }

    static let wakeAsks: [(Double, Bool)] = [(170, true), (200, true), (289.99, true), (290, false), (400, false)]

    @Test("wake-up within 2 h of Dose 2 asks first; from 2 h on it does not", arguments: wakeAsks)
    func wakeQuestion(minutes: Double, asks: Bool) throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))]))
        let view = status(session, at: minutes)
        #expect((view.earlyWakeQuestion(in: Fixture.newYork) != nil) == asks)
        #expect(view.wakeAsksUntil == (asks ? Fixture.minutes(290) : nil))
        if asks { #expect(view.earlyWakeQuestion(in: Fixture.newYork)!.hasPrefix("Dose 2 was taken at 01:20")) }
    }

    @Test("the rules engine itself does not refuse an early wake-up")
    func engineAllowsWake() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))]))
        let decision = try NightRules.decide(NightAction(.wake), session: session, context: Fixture.context(at: Fixture.minutes(175)))
        #expect(decision.event?.kind == .sleep(.wakeFinal))
    }

    @Test("the outcome in words: taken, skipped, expired")
    func outcomeWords() throws {
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))]))
        #expect(status(taken, at: 200).outcomeSentence(in: Fixture.newYork) == "Dose 2 taken at 01:20 — 170 min after Dose 1: on target")
        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(245))]))
        #expect(status(skipped, at: 250).outcomeSentence(in: Fixture.newYork) == "Dose 2 skipped at 02:35")
        var expired = try Fixture.afterDose1()
        let update = SessionLifecycle.evaluate(
            expired, now: Fixture.minutes(300), settings: Fixture.settings(), timeZone: Fixture.newYork, makeID: { "x" })
        expired = SessionLifecycle.apply(update, to: expired)
        #expect(status(expired, at: 300).outcomeSentence(in: Fixture.newYork) == "Slept through: Dose 2 not taken — the window closed at 02:30")
        #expect(status(try Fixture.afterDose1(), at: 100).outcomeSentence(in: Fixture.newYork) == nil)
    }
}
