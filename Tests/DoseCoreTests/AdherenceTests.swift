import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// Adherence figures on hand-computed nights (issue 15, first part): every night's timing at the ±10-minute edges,
/// the shares, the median, the quartiles, the 7-night rolling mean and the share inside the window.
@Suite("Adherence figures (seed 003 Insights; SPEC §5.5 on time)")
struct AdherenceTests {
    static let zone = TimeZone(identifier: "America/New_York")!

    /// A night of 2026-11-`day` with Dose 1 at 22:30 New York time and Dose 2 `interval` minutes later, or a skip.
    static func night(_ day: Int, dose2 interval: Double? = nil, skipped: Bool = false, sleptThrough: Bool = false) -> NightSession {
        let dose1 = WallClock.date(2026, 11, day, 22, 30)
        var events = [NightEvent(id: EventID(rawValue: "d1-\(day)"), kind: .dose1, occurredAt: dose1, recordedAt: dose1, timeZone: zone)]
        if let interval {
            let at = dose1.addingTimeInterval(interval * 60)
            events.append(NightEvent(id: EventID(rawValue: "d2-\(day)"), kind: .dose2, occurredAt: at, recordedAt: at, timeZone: zone))
        } else if skipped || sleptThrough {
            var metadata = EventMetadata()
            metadata.skipReason = sleptThrough ? "slept_through" : "felt unwell"
            let at = dose1.addingTimeInterval((sleptThrough ? 270 : 200) * 60)
            events.append(
                NightEvent(
                    id: EventID(rawValue: "s-\(day)"), kind: .dose2Skipped, occurredAt: at, recordedAt: at, timeZone: zone,
                    source: sleptThrough ? .system : .user, metadata: metadata))
        }
        return NightSession(id: SessionID(rawValue: "n-\(day)"), date: SessionKey(year: 2026, month: 11, day: day)!, startedAt: dose1, events: events)
    }

    @Test(
        "a night's timing against target 165 (D18): on target at exactly ±10 min, in window one minute beyond, early and late only outside 150–240",
        arguments: [
            (154.0, DoseTiming.inWindow), (155.0, .onTarget), (165.0, .onTarget), (175.0, .onTarget), (175.99, .onTarget), (176.0, .inWindow),
            (149.0, .early), (149.99, .early), (150.0, .inWindow), (239.99, .inWindow), (240.0, .late), (300.0, .late),
        ])
    func timing(interval: Double, expected: DoseTiming) throws {
        let night = try #require(Adherence.Night(Self.night(1, dose2: interval), targetMinutes: 165))
        #expect(night.timing == expected)
    }

    @Test("skipped, slept through, still open and no Dose 1 are told apart")
    func undecided() throws {
        #expect(Adherence.Night(Self.night(1, skipped: true), targetMinutes: 165)?.timing == .skipped)
        #expect(Adherence.Night(Self.night(1, sleptThrough: true), targetMinutes: 165)?.timing == .sleptThrough)
        #expect(Adherence.Night(Self.night(1), targetMinutes: 165)?.timing == .undecided)
        let empty = NightSession(id: SessionID(rawValue: "e"), date: SessionKey(year: 2026, month: 11, day: 1)!, startedAt: Self.zoneDate)
        #expect(Adherence.Night(empty, targetMinutes: 165) == nil)
    }

    static let zoneDate = WallClock.date(2026, 11, 1, 21, 0)

    @Test(
        "inside the window means 150 ≤ elapsed < 240 minutes, to the second",
        arguments: [(149.99, false), (150.0, true), (224.0, true), (225.0, true), (239.99, true), (240.0, false)])
    func insideWindow(interval: Double, inside: Bool) throws {
        #expect(Adherence.Night(Self.night(1, dose2: interval), targetMinutes: 165)?.insideWindow == inside)
    }

    @Test("ten hand-computed nights: shares of decided nights, median, quartiles, rolling mean and the window share")
    func tenNights() throws {
        // Intervals 160 170 180 150 165 200 245 (7 taken), a skip, a sleep-through, an open night, in shuffled order.
        let sessions = [
            Self.night(7, dose2: 245), Self.night(1, dose2: 160), Self.night(3, dose2: 180), Self.night(8, skipped: true),
            Self.night(2, dose2: 170), Self.night(4, dose2: 150), Self.night(5, dose2: 165), Self.night(6, dose2: 200),
            Self.night(9, sleptThrough: true), Self.night(10),
        ]
        let figures = Adherence(sessions, targetMinutes: 165)
        #expect(figures.nights.map(\.date.description) == (1...10).map { String(format: "2026-11-%02d", $0) })
        // On target (±10 of 165): 160, 170, 165 → 3. In window: 150, 180, 200 → 3. Early (< 150): none. Late (≥ 240): 245 → 1.
        // Skipped 1, slept through 1.
        #expect(figures.decided == 9)
        #expect([DoseTiming.onTarget, .inWindow, .early, .late, .skipped, .sleptThrough, .undecided].map(figures.count) == [3, 3, 0, 1, 1, 1, 1])
        #expect(
            figures.percent(.onTarget) == 33.3 && figures.percent(.inWindow) == 33.3 && figures.percent(.early) == 0 && figures.percent(.late) == 11.1
        )
        #expect(figures.percent(.skipped) == 11.1 && figures.percent(.sleptThrough) == 11.1 && figures.percent(.undecided) == nil)
        // Sorted 150 160 165 170 180 200 245: median 170; h(0.25) = 1.5 → 162.5; h(0.75) = 4.5 → 190.
        #expect(figures.intervals == [160, 170, 180, 150, 165, 200, 245])
        #expect(figures.medianInterval == 170)
        #expect(figures.interquartileRange?.lower == 162.5 && figures.interquartileRange?.upper == 190)
        // One full run of seven: (160+170+180+150+165+200+245)/7 = 1270/7.
        #expect(figures.rollingMean7.map(\.date.description) == ["2026-11-07"])
        #expect(figures.rollingMean7.first?.minutes == 1270.0 / 7)
        // 245 is past the window: 6 of 7 inside.
        #expect(figures.insideWindowPercent == 85.7)
    }

    @Test("no nights: no shares, no spread, no rolling mean")
    func empty() {
        let figures = Adherence([], targetMinutes: 165)
        #expect(figures.decided == 0 && figures.percent(.onTarget) == nil && figures.medianInterval == nil)
        #expect(figures.interquartileRange == nil && figures.rollingMean7.isEmpty && figures.insideWindowPercent == nil)
    }

    @Test("a night across the fall-back change is measured in elapsed minutes, not clock minutes")
    func daylightSaving() throws {
        // 2026-10-31 22:30 EDT; Dose 2 at 01:30 EST on 2026-11-01 is 240 elapsed minutes, though the clocks moved 3 h.
        let dose1 = WallClock.date(2026, 10, 31, 22, 30)
        let dose2 = dose1.addingTimeInterval(240 * 60)
        let session = NightSession(
            id: SessionID(rawValue: "dst"), date: SessionKey(year: 2026, month: 10, day: 31)!, startedAt: dose1,
            events: [
                NightEvent(id: EventID(rawValue: "a"), kind: .dose1, occurredAt: dose1, recordedAt: dose1, timeZone: Self.zone),
                NightEvent(id: EventID(rawValue: "b"), kind: .dose2, occurredAt: dose2, recordedAt: dose2, timeZone: Self.zone),
            ])
        #expect(LocalClock.hourMinute(dose2, in: Self.zone) == "01:30")
        let night = try #require(Adherence.Night(session, targetMinutes: 225))
        #expect(night.intervalMinutes == 240 && night.timing == .late && !night.insideWindow)
    }

    /// A night with extra events at minutes after Dose 1 (22:30 on 2026-11-`day`).
    static func night(_ day: Int, dose2 interval: Double, extra: [(EventKind, Double)]) -> NightSession {
        var session = night(day, dose2: interval)
        let dose1 = WallClock.date(2026, 11, day, 22, 30)
        for (index, (kind, minutes)) in extra.enumerated() {
            let at = dose1.addingTimeInterval(minutes * 60)
            session.events.append(NightEvent(id: EventID(rawValue: "x-\(day)-\(index)"), kind: kind, occurredAt: at, recordedAt: at, timeZone: zone))
        }
        session.events.sort { $0.occurredAt < $1.occurredAt }
        return session
    }

    @Test(
        "natural wake: Dose 2 before the wake alarm with no snooze; at the alarm, or after a snooze, it is not",
        arguments: [(160.0, 0, true), (164.99, 0, true), (165.0, 0, false), (160.0, 1, false)] as [(Double, Int, Bool)])
    func naturalWake(interval: Double, snoozes: Int, natural: Bool) throws {
        let extra = Array(repeating: (EventKind.snooze, 150.0), count: snoozes)
        let night = try #require(Adherence.Night(Self.night(1, dose2: interval, extra: extra), targetMinutes: 165))
        #expect(night.naturalWake == natural && night.snoozes == snoozes)
    }

    @Test("WASO is an estimate from logged awakenings between Dose 1 and the final wake-up; mental notes and later events do not count")
    func waso() throws {
        let session = Self.night(
            1, dose2: 170,
            extra: [
                (.sleep(.bathroom), 60), (.sleep(.wakeTemp), 120), (.sleep(.water), 200), (.sleep(.dream), 210), (.sleep(.wakeFinal), 480),
                (.sleep(.bathroom), 490), (.sleep(.snack), -30),
            ])
        let night = try #require(Adherence.Night(session, targetMinutes: 165))
        #expect(night.awakenings == 3 && night.wasoEstimateMinutes == 3 * Adherence.minutesPerAwakening)
        let figures = Adherence(
            [session, Self.night(2, dose2: 160), Self.night(3, dose2: 165, extra: [(.snooze, 160), (.snooze, 170)])], targetMinutes: 165)
        #expect(figures.wasoEstimatePerNight == 5, "15 + 0 + 0 minutes over 3 nights")
        #expect(figures.snoozesPerNight == 0.7 && figures.naturalWakePercent == 33.3)
    }

    @Test(
        "a night's summary counts an awakening strictly between Dose 1 and the final wake-up: not at either instant, not after",
        arguments: [(0.0, 0), (0.001, 1), (479.999, 1), (480.0, 0), (500.0, 0)] as [(Double, Int)])
    func summaryAwakeningBounds(minutes: Double, counted: Int) {
        let session = Self.night(1, dose2: 170, extra: [(.sleep(.bathroom), minutes), (.sleep(.wakeFinal), 480)])
        #expect(NightSummary(session).awakenings == counted)
    }

    @Test("a night's summary keeps each dose's own zone (travel), the skip's reason and whether it was the automatic expiry")
    func summaryFacts() throws {
        var travelled = Self.night(1, dose2: 170)
        let extraAt = WallClock.date(2026, 11, 1, 22, 30).addingTimeInterval(200 * 60)
        travelled.events.append(
            NightEvent(
                id: EventID(rawValue: "e"), kind: .extraDose, occurredAt: extraAt, recordedAt: extraAt,
                timeZone: TimeZone(identifier: "Europe/London")!)
        )
        let summary = NightSummary(travelled)
        #expect(summary.extraDoses == [NightSummary.Moment(at: extraAt, timeZoneID: "Europe/London")])
        #expect(summary.dose2?.timeZoneID == Self.zone.identifier && summary.intervalMinutes == 170 && summary.skip == nil)
        let insights = Insights([InsightNight(summary: summary)], period: .last(7, endingAt: summary.date), targetMinutes: 165)
        #expect(insights.notable.map(\.text) == ["Extra dose at 06:50"], "22:30 in New York + 200 min is 06:50 in London")
        #expect(NightSummary(Self.night(2, skipped: true)).skip == NightSummary.Skip(reason: "felt unwell", sleptThrough: false))
        #expect(NightSummary(Self.night(3, sleptThrough: true)).skip == NightSummary.Skip(reason: "slept_through", sleptThrough: true))
        #expect(
            NightSummary(NightSession(id: SessionID(rawValue: "empty"), date: SessionKey(year: 2026, month: 11, day: 4)!, startedAt: extraAt)).dose1
                == nil)
    }

    @Test(
        "under 3 nights with Dose 1 the figures are insufficient, and say how many more are needed",
        arguments: [(0, 3), (1, 2), (2, 1), (3, 0), (4, 0)])
    func insufficient(count: Int, needed: Int) {
        let figures = Adherence((0..<count).map { Self.night($0 + 1, dose2: 165) }, targetMinutes: 165)
        #expect(figures.nightsNeeded == needed)
    }
}
