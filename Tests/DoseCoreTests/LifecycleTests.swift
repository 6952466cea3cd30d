import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Session lifecycle: expiry, cutoff, prep rollover (D3, D12, §3.2)")
struct LifecycleTests {
    func evaluate(_ session: NightSession, at now: Date, settings: DoseSettings = Fixture.settings()) -> LifecycleUpdate {
        SessionLifecycle.evaluate(session, now: now, settings: settings, timeZone: settings.timeZone, makeID: { "sys" })
    }

    @Test(
        "sleep-through expiry: none at 269.99 min, recorded at 270 stamped at Dose 1 + 270",
        arguments: [(269.99, false), (270, true), (271, true)] as [(Double, Bool)])
    func expiry(minutes: Double, expires: Bool) throws {
        let update = evaluate(try Fixture.afterDose1(), at: Fixture.minutes(minutes))
        #expect((update.expiry != nil) == expires)
        if let expiry = update.expiry {
            #expect(expiry.kind == .dose2Skipped)
            #expect(expiry.source == .system)
            #expect(expiry.metadata.skipReason == "slept_through")
            #expect(expiry.occurredAt == Fixture.minutes(270))
            #expect(expiry.recordedAt == Fixture.minutes(minutes))
            let after = SessionLifecycle.apply(update, to: try Fixture.afterDose1())
            #expect(NightFacts(after.events).outcome(at: Fixture.minutes(minutes)) == .expired)
            #expect(evaluate(after, at: Fixture.minutes(minutes + 1)).expiry == nil)
        }
    }

    @Test("no expiry once Dose 2 is taken or skipped")
    func noExpiry() throws {
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))]))
        #expect(evaluate(taken, at: Fixture.minutes(300)).expiry == nil)
        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(160))]))
        #expect(evaluate(skipped, at: Fixture.minutes(300)).expiry == nil)
    }

    // Dose 1 at 22:30 on 10 March; first 07:00 after it is 11 March 07:00; cutoff 4 h later.
    @Test(
        "missed check-in cutoff: wake time after the start plus the cutoff hours",
        arguments: [
            ((2026, 3, 11, 10, 59), nil), ((2026, 3, 11, 11, 0), EndReason.missedCheckinCutoff), ((2026, 3, 11, 15, 0), .missedCheckinCutoff),
        ] as [((Int, Int, Int, Int, Int), EndReason?)])
    func cutoff(now: (Int, Int, Int, Int, Int), reason: EndReason?) throws {
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(165))]))
        let update = evaluate(taken, at: WallClock.date(now.0, now.1, now.2, now.3, now.4))
        #expect(update.closure?.reason == reason)
        if reason != nil {
            #expect(update.closure?.endedAt == WallClock.date(2026, 3, 11, 11, 0))
            #expect(update.closure?.terminalState == .completed)
        }
    }

    @Test("the cutoff hours follow the setting", arguments: [1, 4, 12])
    func cutoffSetting(hours: Int) throws {
        let settings = try Fixture.settings().setting("missed_checkin_cutoff_hours", to: String(hours))
        let session = try Fixture.afterDose1(settings: settings)
        #expect(
            SessionLifecycle.missedCheckinCutoff(for: session, settings: settings, timeZone: Fixture.newYork)
                == WallClock.date(2026, 3, 11, 7 + hours, 0))
    }

    @Test("a session started after midnight gets the same morning's cutoff")
    func afterMidnightStart() throws {
        let start = WallClock.date(2026, 3, 11, 1, 0)
        let session = try Fixture.afterDose1(at: start)
        #expect(
            SessionLifecycle.missedCheckinCutoff(for: session, settings: Fixture.settings(), timeZone: Fixture.newYork)
                == WallClock.date(2026, 3, 11, 11, 0))
    }

    @Test("prep rollover: a session started before today's prep time closes at it")
    func prepRollover() throws {
        let start = WallClock.date(2026, 3, 11, 14, 0)
        let session = try #require(try Fixture.night([(.log(event: "nap_start"), start)]))
        #expect(evaluate(session, at: WallClock.date(2026, 3, 11, 17, 59)).closure == nil)
        let update = evaluate(session, at: WallClock.date(2026, 3, 11, 18, 0))
        #expect(update.closure?.reason == .prepRollover)
        #expect(update.closure?.endedAt == WallClock.date(2026, 3, 11, 18, 0))
        #expect(update.closure?.terminalState == .aborted)
    }

    /// Found by the property test: "today's prep time" read after midnight is tomorrow's, so an afternoon session
    /// first looked at at 00:30 stayed open and tonight's Dose 1 was refused as "already taken".
    @Test(
        "the close does not depend on when it is observed: an afternoon session looked at after midnight closed at 18:00",
        arguments: [(2026, 3, 11, 18, 0), (2026, 3, 11, 23, 59), (2026, 3, 12, 0, 30), (2026, 3, 12, 10, 59), (2026, 3, 12, 15, 0)])
    func closeIndependentOfObservation(now: (Int, Int, Int, Int, Int)) throws {
        let session = try #require(try Fixture.night([(.log(event: "nap_start"), WallClock.date(2026, 3, 11, 14, 0))]))
        let update = evaluate(session, at: WallClock.date(now.0, now.1, now.2, now.3, now.4))
        #expect(update.closure?.reason == .prepRollover)
        #expect(update.closure?.endedAt == WallClock.date(2026, 3, 11, 18, 0))
        let closed = SessionLifecycle.apply(update, to: session)
        let tonight = try NightRules.decide(
            NightAction(.dose1), session: closed.isOpen ? closed : nil,
            context: Fixture.context(at: WallClock.date(now.0, now.1, now.2, now.3, now.4)))
        #expect(tonight.startedSession)
    }

    @Test("when both boundaries have passed, the earlier one closes the night; a tie is the cutoff")
    func earliestBoundaryCloses() throws {
        // Started 22:30: the cutoff (11:00) comes before the next prep time (18:00), observed at 19:00.
        let evening = try Fixture.afterDose1()
        #expect(evaluate(evening, at: WallClock.date(2026, 3, 11, 19, 0)).closure?.endedAt == WallClock.date(2026, 3, 11, 11, 0))
        #expect(evaluate(evening, at: WallClock.date(2026, 3, 11, 19, 0)).closure?.reason == .missedCheckinCutoff)
        // Cutoff 14:00 with a 14:00 prep time: the same instant; the cutoff is named first, as in SPEC §3.2.
        let settings = try Fixture.settings().setting("prep_time", to: "14:00").setting("missed_checkin_cutoff_hours", to: "7")
        let update = evaluate(evening, at: WallClock.date(2026, 3, 11, 15, 0), settings: settings)
        #expect(update.closure?.endedAt == WallClock.date(2026, 3, 11, 14, 0))
        #expect(update.closure?.reason == .missedCheckinCutoff)
    }

    @Test("an evening session is not closed by the same evening's prep time")
    func eveningSessionStays() throws {
        #expect(evaluate(try Fixture.afterDose1(), at: Fixture.minutes(60)).isEmpty)
    }

    @Test("terminal state per outcome (D12)")
    func terminalStates() throws {
        let morning = WallClock.date(2026, 3, 11, 12, 0)
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(165))]))
        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(165))]))
        let pendingAtWake = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(100))], confirm: [.endNight]))
        #expect(evaluate(taken, at: morning).closure?.terminalState == .completed)
        #expect(evaluate(skipped, at: morning).closure?.terminalState == .skipped)
        #expect(evaluate(try Fixture.afterDose1(), at: morning).closure?.terminalState == .expired)
        // Ended by the person at 100 minutes (end_night): it never ran out, so no expiry is recorded and it closes aborted,
        // ended without Dose 2 (D18), never slept through.
        let closedAfterWake = evaluate(pendingAtWake, at: morning)
        #expect(closedAfterWake.expiry == nil)
        #expect(closedAfterWake.closure?.terminalState == .aborted)
        // Woken only after the window ran out: the expiry was due first.
        let wokeLate = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(300))], confirm: [.endNight]))
        #expect(evaluate(wokeLate, at: morning).closure?.terminalState == .expired)
        let noDose = try #require(try Fixture.night([(.log(event: "water"), Fixture.dose1)]))
        #expect(evaluate(noDose, at: morning).closure?.terminalState == .aborted)
    }

    @Test("check-in closes the open session with end reason checkin and a wellness score")
    func checkInCloses() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(165)), (.wake, Fixture.minutes(500))]))
        let decision = try NightRules.decide(
            NightAction(.checkIn(MorningCheckIn())), session: session, context: Fixture.context(at: Fixture.minutes(510)))
        #expect(decision.closure?.reason == .checkin)
        #expect(decision.closure?.terminalState == .completed)
        #expect(decision.session.isOpen == false)
        #expect(decision.checkIn?.wellnessScore == 58)
        #expect(NightFacts(decision.session.events).phase(at: Fixture.minutes(511)) == .completed)
        #expect(Fixture.refusal(NightAction(.checkIn(MorningCheckIn())), session: decision.session, at: Fixture.minutes(520))?.code == .alreadyTaken)
        #expect(Fixture.refusal(NightAction(.checkIn(MorningCheckIn())), session: nil, at: Fixture.minutes(520))?.code == .notFound)
    }

    @Test("a closed session never changes")
    func closedSessionStays() throws {
        var session = try Fixture.afterDose1()
        session.endedAt = Fixture.minutes(10)
        #expect(evaluate(session, at: Fixture.minutes(1000)).isEmpty)
        #expect(ReminderPlan.plan(for: session, settings: Fixture.settings()).isEmpty)
    }

    @Test("a DST spring-forward night: cutoff at local 11:00 EDT, only 23 hours after the evening")
    func springForwardCutoff() throws {
        let dose1 = WallClock.date(2026, 3, 7, 22, 30)
        let session = try Fixture.afterDose1(at: dose1)
        let cutoff = SessionLifecycle.missedCheckinCutoff(for: session, settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(cutoff == WallClock.date(2026, 3, 8, 11, 0))
        #expect(LocalClock.hourMinute(cutoff, in: Fixture.newYork) == "11:00")
        #expect(cutoff.timeIntervalSince(dose1) == 11.5 * 3600)
    }

    @Test("a DST fall-back night: cutoff at local 11:00 EST, 13.5 hours after a 22:30 Dose 1")
    func fallBackCutoff() throws {
        let dose1 = WallClock.date(2026, 10, 31, 22, 30)
        let cutoff = SessionLifecycle.missedCheckinCutoff(
            for: try Fixture.afterDose1(at: dose1), settings: Fixture.settings(), timeZone: Fixture.newYork)
        #expect(LocalClock.hourMinute(cutoff, in: Fixture.newYork) == "11:00")
        #expect(cutoff.timeIntervalSince(dose1) == 13.5 * 3600)
    }
}

@Suite("Time-zone travel (SPEC §3.6)")
struct TimeZoneTravelTests {
    @Test(
        "shift wording",
        arguments: [
            (0, 180, "Timezone shifted 3 hours east"), (0, -90, "Timezone shifted 1 hour 30 minutes west"), (0, 60, "Timezone shifted 1 hour east"),
            (0, 30, "Timezone shifted 30 minutes east"), (0, 1, "Timezone shifted 1 minute east"), (-300, -360, "Timezone shifted 1 hour west"),
            (60, 60, nil), (330, 345, "Timezone shifted 15 minutes east"),
        ] as [(Int, Int, String?)])
    func wording(from: Int, to: Int, text: String?) {
        #expect(TimeZoneShift.describe(fromOffsetMinutes: from, toOffsetMinutes: to) == text)
    }

    @Test("travel west: Dose 1 in New York, status read in Chicago, window unchanged")
    func travelWest() throws {
        let session = try Fixture.afterDose1()
        let chicago = TimeZone(identifier: "America/Chicago")!
        let status = NightStatus.derive(session: session, at: Fixture.minutes(150), settings: Fixture.settings(), timeZone: chicago)
        #expect(status.warnings.first?.hasPrefix("Timezone shifted 1 hour west") == true)
        #expect(status.windowOpensAt == Fixture.minutes(150))
        #expect(status.phase == .active)
        #expect(LocalClock.hourMinute(status.windowOpensAt!, in: chicago) == "00:00")
    }

    @Test("travel east: Dose 1 in New York, read in Paris")
    func travelEast() throws {
        let status = NightStatus.derive(
            session: try Fixture.afterDose1(), at: Fixture.minutes(100), settings: Fixture.settings(), timeZone: Fixture.paris)
        // 10 March: New York is on EDT (-4) since 8 March, Paris on CET (+1): 5 hours.
        #expect(status.warnings.first?.hasPrefix("Timezone shifted 5 hours east") == true)
        #expect(status.minutesSinceDose1 == 100)
    }

    @Test("a DST change inside one zone is not travel")
    func dstIsNotTravel() throws {
        let dose1 = WallClock.date(2026, 10, 31, 23, 30)
        let status = NightStatus.derive(
            session: try Fixture.afterDose1(at: dose1), at: dose1.addingTimeInterval(200 * 60), settings: Fixture.settings(),
            timeZone: Fixture.newYork)
        #expect(status.warnings.isEmpty)
        #expect(status.minutesSinceDose1 == 200)
    }

    @Test("a different zone with the same offset gives no warning")
    func sameOffsetDifferentZone() throws {
        let toronto = TimeZone(identifier: "America/Toronto")!
        let status = NightStatus.derive(session: try Fixture.afterDose1(), at: Fixture.minutes(10), settings: Fixture.settings(), timeZone: toronto)
        #expect(status.warnings.isEmpty)
    }

    @Test("events record the zone and offset in use when they happened")
    func eventsKeepTheirZone() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1)], zone: Fixture.tokyo))
        #expect(session.events[0].timeZoneID == "Asia/Tokyo")
        #expect(session.events[0].utcOffsetMinutes == 540)
    }
}

@Suite("Which night a late check-in attaches to")
struct CheckInAttachmentTests {
    static func closed(_ id: String, endedHoursAgo hours: Double, now: Date) -> NightSession {
        NightSession(
            id: SessionID(rawValue: id), date: SessionKey(parsing: "2026-11-21")!, startedAt: now.addingTimeInterval(-(hours + 10) * 3600),
            endedAt: now.addingTimeInterval(-hours * 3600), endReason: .missedCheckinCutoff)
    }

    @Test(
        "the night must have closed within 24 hours: exactly 24 h attaches, a second more does not",
        arguments: [(0.0, true), (23.99, true), (24.0, true), (24.0 + 1.0 / 3600, false), (48.0, false)])
    func window(hoursAgo: Double, attaches: Bool) {
        let now = Fixture.dose1
        let night = Self.closed("a", endedHoursAgo: hoursAgo, now: now)
        #expect((CheckInAttachment.night(among: [(night, false)], now: now) != nil) == attaches)
    }

    @Test("a night that has its check-in is passed over; of the rest the latest to close wins")
    func choice() {
        let now = Fixture.dose1
        let older = Self.closed("older", endedHoursAgo: 20, now: now)
        let newer = Self.closed("newer", endedHoursAgo: 2, now: now)
        #expect(CheckInAttachment.night(among: [(older, false), (newer, false)], now: now)?.id.rawValue == "newer")
        #expect(CheckInAttachment.night(among: [(older, false), (newer, true)], now: now)?.id.rawValue == "older")
        #expect(CheckInAttachment.night(among: [(older, true), (newer, true)], now: now) == nil)
        #expect(CheckInAttachment.night(among: [], now: now) == nil)
    }
}
