import DoseCore
import Foundation
import Testing

/// SPEC D16 (no night ends by accident while Dose 2 is undecided), D17 (the half-asleep surfaces never override D14)
/// and D18 (one vocabulary for how a dose went).
@Suite("D16–D18: ending a night, a new Dose 1, and the words for a dose")
struct NightEndingTests {
    /// What ends a night: the final wake-up (as `wake` and as `log wake_final`) and the morning check-in.
    static let endings: [(String, NightAction.Kind)] = [
        ("wake", .wake), ("log wake_final", .log(event: "wake_final")), ("log Wake Up", .log(event: "Wake Up")),
        ("check-in", .checkIn(MorningCheckIn())),
    ]

    /// Minutes after Dose 1 and whether Dose 2 is still undecided then: before the window, in it, near its close, after
    /// it up to the expiry (270), and from the expiry on.
    static let undecided: [(Double, Bool)] = [
        (23, true), (149, true), (150, true), (224, true), (225, true), (239, true), (240, true), (269, true), (269.99, true),
        (270, false), (300, false),
    ]

    static var cases: [(String, NightAction.Kind, Double, Bool)] {
        endings.flatMap { ending in undecided.map { (ending.0, ending.1, $0.0, $0.1) } }
    }

    @Test("an ending while Dose 2 is undecided is refused with 409_DOSE2_PENDING; after the expiry it is not", arguments: cases)
    func refusedWhileUndecided(name: String, kind: NightAction.Kind, minutes: Double, refused: Bool) throws {
        let night = try Fixture.afterDose1()
        let error = Fixture.refusal(NightAction(kind), session: night, at: Fixture.minutes(minutes))
        if refused {
            #expect(error?.code == .dose2Pending, "\(name) at \(minutes) min")
            #expect(error?.confirm == .endNight)
        } else {
            #expect(error == nil, "\(name) at \(minutes) min: \(String(describing: error))")
        }
    }

    @Test("end_night lets it through, records the confirmation and says the alarms are cancelled", arguments: endings)
    func confirmed(name: String, kind: NightAction.Kind) throws {
        let night = try Fixture.afterDose1()
        let decision = try NightRules.decide(
            NightAction(kind, confirmations: [.endNight]), session: night, context: Fixture.context(at: Fixture.minutes(23)))
        #expect(decision.event?.metadata.confirmations == [.endNight])
        #expect(decision.warnings.contains { $0.contains("alarms are cancelled") })
        let status = NightStatus.derive(session: decision.session, at: Fixture.minutes(24), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(status.nextReminder == nil, "\(name): the Dose 2 alarms must be cancelled")
        #expect(!status.dose2Undecided)
    }

    @Test("no other confirmation lifts it", arguments: ConfirmKind.allCases.filter { $0 != .endNight })
    func otherConfirmations(kind: ConfirmKind) throws {
        let night = try Fixture.afterDose1()
        let error = Fixture.refusal(NightAction(.wake, confirmations: [kind]), session: night, at: Fixture.minutes(60))
        #expect(error?.code == .dose2Pending)
    }

    @Test(
        "the refusal names when the window opens or closes",
        arguments: [
            (23.0, "before_window", ["opens at 01:00", "in 2 h 7 min", "closes at 02:30"]),
            (200.0, "window", ["open until 02:30", "40 min left"]),
            (250.0, "after_window", ["closed at 02:30", "10 min ago"]),
        ])
    func namesTheWindow(minutes: Double, position: String, words: [String]) throws {
        let night = try Fixture.afterDose1()
        let error = try #require(Fixture.refusal(NightAction(.wake), session: night, at: Fixture.minutes(minutes)))
        #expect(error.details["window"] == position)
        #expect(error.details["closes_at"] == ISO8601.string(Fixture.minutes(240)))
        for word in words { #expect(error.message.contains(word), "\(error.message)") }
        #expect(error.message.contains("Logging wake-up now would end the night"))
        #expect(error.message.contains("confirm 'end_night'"))
    }

    @Test("settled nights end freely: Dose 2 taken, skipped, or the wake-up already logged")
    func settledNights() throws {
        let taken = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))])
        #expect(Fixture.refusal(NightAction(.checkIn(MorningCheckIn())), session: taken, at: Fixture.minutes(500)) == nil)
        let skipped = try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(30))])
        #expect(Fixture.refusal(NightAction(.wake), session: skipped, at: Fixture.minutes(200)) == nil)
        let woke = try #require(
            try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(60))], confirm: [.endNight]))
        #expect(Fixture.refusal(NightAction(.checkIn(MorningCheckIn())), session: woke, at: Fixture.minutes(90)) == nil)
        let noDose1 = try Fixture.night([(.log(event: "bathroom"), Fixture.dose1)])
        #expect(Fixture.refusal(NightAction(.wake), session: noDose1, at: Fixture.minutes(10)) == nil)
    }

    @Test("Brief Wake never ends a night and needs no confirmation")
    func briefWake() throws {
        let night = try Fixture.afterDose1()
        let decision = try NightRules.decide(
            NightAction(.log(event: "Brief Wake")), session: night, context: Fixture.context(at: Fixture.minutes(60)))
        let status = NightStatus.derive(session: decision.session, at: Fixture.minutes(61), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(status.phase == .beforeWindow && status.dose2Undecided)
    }

    @Test("a back-dated wake-up is judged at its own time: before a Dose 2 taken later it is not undecided")
    func backDated() throws {
        let night = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))])
        #expect(Fixture.refusal(NightAction(.wake, at: Fixture.minutes(100)), session: night, at: Fixture.minutes(300)) == nil)
    }

    // MARK: D17

    /// A Dose 1 at `minutes` after another night's Dose 2, from `surface`, with `confirm`.
    func dose1(at minutes: Double, source: EventSource = .user, surface: AlarmSurface?, confirm: Set<ConfirmKind>) -> Result<Decision, DoseError> {
        var context = Fixture.context(at: Fixture.minutes(minutes))
        context.nearbyDoses = [RecordedDose(kind: .dose2, at: Fixture.dose1, night: SessionID(rawValue: "last-night"))]
        let action = NightAction(.dose1, confirmations: confirm, source: source, surface: surface)
        return Result { () throws(DoseError) in try NightRules.decide(action, session: nil, context: context) }
    }

    static let surfaces: [(EventSource, AlarmSurface?, Bool)] = [
        // source, surface, half asleep
        (.user, .page, true), (.user, .push, true), (.user, .link, true), (.button, .button, true), (.link, .cli, true), (.button, nil, true),
        (.user, .cli, false), (.user, .api, false), (.user, nil, false),
    ]

    @Test("new_night records a Dose 1 within 8 h only from the CLI and the API, never from a half-asleep surface", arguments: surfaces)
    func halfAsleep(source: EventSource, surface: AlarmSurface?, halfAsleep: Bool) throws {
        switch dose1(at: 22, source: source, surface: surface, confirm: [.newNight]) {
        case .failure(let error):
            #expect(halfAsleep)
            #expect(error.code == .recentDose)
            #expect(error.confirm == nil, "a half-asleep surface is offered no confirmation")
            #expect(!error.message.contains("new_night") && !error.message.contains("shift work"))
            #expect(error.message.contains("a new Dose 1 is possible from 06:30"))
            #expect(error.details["session_id"] == "last-night")
        case .success(let decision):
            #expect(!halfAsleep)
            #expect(decision.event?.metadata.confirmations == [.newNight])
        }
    }

    @Test("at 8 h a half-asleep surface records Dose 1 as usual", arguments: [479.99, 480.0])
    func halfAsleepAtEightHours(minutes: Double) {
        let result = dose1(at: minutes, surface: .page, confirm: [])
        if minutes < 480 { #expect(throws: DoseError.self) { try result.get() } } else { #expect(throws: Never.self) { try result.get() } }
    }

    @Test("with no Dose 1 tonight and a dose under 8 h ago, the status offers no Dose 1 and says when it is possible")
    func statusAfterClosedNight() throws {
        let last = SessionID(rawValue: "last-night")
        let doses = [
            RecordedDose(kind: .dose1, at: Fixture.dose1, night: last), RecordedDose(kind: .dose2, at: Fixture.minutes(166), night: last),
        ]
        for (minutes, blocked) in [(300.0, true), (645.99, true), (646.0, false)] {
            let status = NightStatus.derive(
                session: nil, at: Fixture.minutes(minutes), settings: Fixture.settings(), timeZone: Fixture.newYork, recentDoses: doses)
            #expect((status.primaryAction == .waitForNewNight) == blocked, "at \(minutes) min")
            if blocked {
                #expect(status.newDose1From == Fixture.minutes(646))
                #expect(status.blockingDose?.night == last)
                #expect(status.blockingNightDoses.map(\.kind) == [.dose1, .dose2])
            } else {
                #expect(status.primaryAction == .takeDose1 && status.newDose1From == nil)
            }
        }
    }

    // MARK: D18

    static let timings: [(Double, DoseTiming)] = [
        (149, .early), (149.99, .early), (150, .inWindow), (154, .inWindow), (155, .onTarget), (175, .onTarget), (176, .inWindow),
        (224, .inWindow), (225, .inWindow), (239.99, .inWindow), (240, .late), (269, .late), (270, .late),
    ]

    @Test("Dose 2's timing: early and late by the window, on target within ±10 min of the 165-minute target, else in window", arguments: timings)
    func timing(minutes: Double, expected: DoseTiming) {
        #expect(DoseTiming.of(dose2: Fixture.minutes(minutes), dose1: Fixture.dose1, window: .label, targetMinutes: 165) == expected)
        #expect(expected.isWarning == (minutes < 150 || minutes >= 240))
        #expect((expected.mark == "✓") == !expected.isWarning)
    }

    @Test("182 minutes with a 165 target is in window, never late; 246 is late")
    func offTargetIsNotLate() {
        #expect(DoseTiming.of(dose2: Fixture.minutes(182), dose1: Fixture.dose1, window: .label, targetMinutes: 165) == .inWindow)
        #expect(DoseTiming.of(dose2: Fixture.minutes(246), dose1: Fixture.dose1, window: .label, targetMinutes: 165) == .late)
    }

    @Test("the outcome sentence words a late or early dose as such, and a slept-through night as no dose")
    func outcomeSentence() throws {
        let late = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(250))], confirm: [.late])
        let status = NightStatus.derive(session: late, at: Fixture.minutes(251), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(status.outcomeSentence(in: Fixture.newYork) == "Dose 2 taken at 02:40 — 250 min after Dose 1: late (after the window)")
        #expect(status.dose2Timing == .late)
        let early = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(100))], confirm: [.early])
        let earlyStatus = NightStatus.derive(session: early, at: Fixture.minutes(101), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(earlyStatus.outcomeSentence(in: Fixture.newYork)?.hasSuffix("early (before the window)") == true)
        let expired = try Fixture.afterDose1()
        let sleptThrough = NightStatus.derive(session: expired, at: Fixture.minutes(280), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(sleptThrough.dose2Timing == .sleptThrough)
        #expect(DoseTiming.sleptThrough.mark == "—" && !DoseTiming.sleptThrough.isDose && !DoseTiming.skipped.isDose)
    }

    @Test("an early Dose 2 is never a natural wake; one in the window before the alarm without a snooze is")
    func naturalWake() {
        for (minutes, natural) in [(100.0, false), (149.99, false), (150.0, true), (164.0, true), (165.0, false)] {
            #expect(
                DoseWindow.label.isNaturalWake(dose1: Fixture.dose1, dose2: Fixture.minutes(minutes), targetMinutes: 165, snoozes: 0) == natural,
                "\(minutes) min")
        }
    }

    @Test("a night's badge: a warning sign outside the window, never 'Completed'")
    func badges() {
        #expect(DoseTiming.badge(.late) == "⚠ Late")
        #expect(DoseTiming.badge(.early) == "⚠ Early")
        #expect(DoseTiming.badge(.onTarget) == "On target")
        #expect(DoseTiming.badge(.endedWithoutDose2) == "Ended without Dose 2")
        #expect(DoseTiming.badge(.undecided) == "Not decided")
        #expect(DoseTiming.badge(nil) == "No Dose 1")
    }
}

@Suite("D18: a night ended without Dose 2 is one, said one way, and counted as a missed Dose 2")
struct EndedWithoutDose2Tests {
    static func facts(_ steps: [(NightAction.Kind, Double)]) throws -> NightFacts {
        let night = try #require(try Fixture.night(steps.map { ($0.0, Fixture.minutes($0.1)) }, confirm: [.endNight]))
        return NightFacts(night.events)
    }

    @Test(
        "how a night without Dose 2 went, by when it was ended, against its sleep-through expiry at 270 minutes",
        arguments: [
            // Ended by the person before the window ran out: ended without Dose 2, whatever came after.
            ([(NightAction.Kind.wake, 100.0)], false, DoseTiming.endedWithoutDose2),
            ([(.wake, 269.99)], false, .endedWithoutDose2),
            ([(.checkIn(MorningCheckIn()), 120)], true, .endedWithoutDose2),
            // Woken only once the window had run out: slept through.
            ([(.wake, 270)], false, .sleptThrough),
            ([(.wake, 300)], true, .sleptThrough),
            // Still open, not ended: undecided.
            ([(.log(event: "bathroom"), 100)], false, .undecided),
            // Skipped stays skipped; taken is judged as taken.
            ([(.skip(reason: nil), 100), (.wake, 110)], false, .skipped),
            ([(.dose2, 165), (.wake, 200)], false, .onTarget),
        ] as [([(NightAction.Kind, Double)], Bool, DoseTiming)])
    func timings(steps: [(NightAction.Kind, Double)], closed: Bool, expected: DoseTiming) throws {
        let facts = try Self.facts([(.dose1, 0)] + steps)
        #expect(DoseTiming.of(facts, targetMinutes: 165, closed: closed) == expected)
    }

    @Test("ended before it ran out, a night never expires: no outcome, no sleep-through recorded, aborted when it closes")
    func neverExpires() throws {
        let night = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(100))], confirm: [.endNight]))
        let facts = NightFacts(night.events)
        #expect(facts.outcome(at: Fixture.minutes(400)) == nil)
        #expect(facts.terminalState(at: Fixture.minutes(400)) == .aborted)
        let update = SessionLifecycle.evaluate(night, now: Fixture.minutes(300), settings: Fixture.settings(), timeZone: Fixture.newYork) { "x" }
        #expect(update.expiry == nil)
        // An expiry an older version recorded after the person's end does not make it slept through.
        var legacy = night
        var metadata = EventMetadata()
        metadata.skipReason = NightFacts.sleptThroughReason
        legacy = legacy.adding(
            NightEvent(
                id: EventID(rawValue: "expiry"), kind: .dose2Skipped, occurredAt: Fixture.minutes(270), recordedAt: Fixture.minutes(300),
                timeZone: Fixture.newYork, source: .system, metadata: metadata))
        #expect(DoseTiming.of(NightFacts(legacy.events), targetMinutes: 165) == .endedWithoutDose2)
    }

    @Test("a closed night's summary without Dose 2 or a skip was ended without it; an open one is undecided")
    func summaries() throws {
        let night = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(100))], confirm: [.endNight]))
        var closed = night
        closed.endedAt = Fixture.minutes(600)
        closed.endReason = .missedCheckinCutoff
        #expect(DoseTiming.of(NightSummary(closed), targetMinutes: 165) == .endedWithoutDose2)
        #expect(DoseTiming.of(NightSummary(try Fixture.afterDose1()), targetMinutes: 165) == .undecided)
        #expect(DoseTiming.endedWithoutDose2.words == "ended without Dose 2" && DoseTiming.endedWithoutDose2.mark == "—")
        #expect(DoseTiming.dose2Figures.contains(.endedWithoutDose2), "counted in the Dose 2 figures, as a missed dose")
    }
}
