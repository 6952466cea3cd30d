import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// The whole of insights on hand-computed nights: periods, the seed's correlations and their minimum n, notable
/// nights, mornings, other medications, and intervals across DST and travel.
@Suite("Insights: periods, correlations, notable nights (seed 003)")
struct InsightsTests {
    static let today = SessionKey(year: 2026, month: 11, day: 23)!

    @Test(
        "a period is 7, 30 or 90 nights ending tonight, or a custom range; anything else is refused by name",
        arguments: [
            (nil, nil, nil, "2026-10-25", "2026-11-23"), (7, nil, nil, "2026-11-17", "2026-11-23"), (90, nil, nil, "2026-08-26", "2026-11-23"),
            (nil, "2026-01-01", "2026-03-31", "2026-01-01", "2026-03-31"), (nil, "2026-11-20", nil, "2026-11-20", "2026-11-23"),
            (nil, nil, "2026-06-30", "2026-06-01", "2026-06-30"),
        ] as [(Int?, String?, String?, String, String)])
    func periods(nights: Int?, from: String?, to: String?, first: String, last: String) throws {
        let period = try InsightsPeriod.choose(
            nights: nights, from: from.flatMap(SessionKey.init(parsing:)), to: to.flatMap(SessionKey.init(parsing:)), today: Self.today)
        #expect(period.from.description == first && period.to.description == last)
        #expect(period.length == (from == nil && to == nil ? nights ?? 30 : nil))
    }

    @Test(
        "refused periods: a length not offered, a backwards range, a range over twenty years, a length with a range",
        arguments: [
            (14, nil, nil, "nights"), (0, nil, nil, "nights"), (nil, "2026-11-02", "2026-11-01", "from"), (nil, "2000-01-01", "2026-11-01", "to"),
            (7, "2026-11-01", nil, "nights"),
        ] as [(Int?, String?, String?, String)])
    func refusedPeriods(nights: Int?, from: String?, to: String?, field: String) {
        #expect {
            try InsightsPeriod.choose(
                nights: nights, from: from.flatMap(SessionKey.init(parsing:)), to: to.flatMap(SessionKey.init(parsing:)), today: Self.today)
        } throws: { error in
            (error as? DoseError)?.code == .invalidInput && (error as? DoseError)?.message.contains(field) == true
        }
    }

    @Test("twenty years is the longest custom range: 7,305 nights pass, 7,306 do not")
    func longestRange() throws {
        let from = SessionKey(year: 2000, month: 1, day: 1)!
        #expect(try InsightsPeriod.custom(from: from, to: from.adding(days: 7_304)).from == from)
        #expect(throws: DoseError.self) { try InsightsPeriod.custom(from: from, to: from.adding(days: 7_305)) }
    }

    /// A night with a check-in of `quality`, the TV on or not, and a pre-sleep log with `caffeine` cups.
    static func answered(_ day: Int, interval: Double, quality: Int, tv: Bool?, caffeine: Int? = nil) -> InsightNight {
        var checkIn = MorningCheckIn()
        checkIn.sleepQuality = quality
        if let tv {
            var environment = SleepEnvironment()
            environment.sleepAids = tv ? [.tvOn] : [.darkRoom]
            checkIn.environment = environment
        }
        var preSleep: PreSleepLog?
        if let caffeine {
            var log = PreSleepLog()
            log.caffeineCups = caffeine
            preSleep = log
        }
        return InsightNight(session: AdherenceTests.night(day, dose2: interval), checkIn: checkIn, preSleep: preSleep)
    }

    static func comparison(_ id: String, _ nights: [InsightNight]) throws -> Correlation {
        try #require(Correlations.all(nights, targetMinutes: 165).first { $0.id == id })
    }

    @Test("sleep quality against the TV: hand-computed means, difference and Cohen's d, in one sentence with n on both sides")
    func tvAndQuality() throws {
        // With the TV: 2 2 2 2 3 (mean 2.2, variance 0.2). Without: 4 4 4 5 4 (mean 4.2, variance 0.2). Pooled sd √0.2.
        let nights =
            [2, 2, 2, 2, 3].enumerated().map { Self.answered($0.offset + 1, interval: 165, quality: $0.element, tv: true) }
            + [4, 4, 4, 5, 4].enumerated().map { Self.answered($0.offset + 11, interval: 165, quality: $0.element, tv: false) }
        let correlation = try Self.comparison("sleep_quality_vs_tv_on", nights)
        #expect(correlation.comparison.isShown)
        #expect(abs((correlation.comparison.difference ?? 0) + 2.0) < 1e-9)
        #expect(abs((correlation.comparison.effectSize ?? 0) + 2.0 / 0.2.squareRoot()) < 1e-9)
        #expect(
            correlation.sentence
                == "Sleep quality with the TV on: 2.2 of 5 over 5 nights, against 4.2 of 5 over 5 nights without; difference −2.0; effect large (d = −4.47)."
        )
    }

    @Test("a correlation needs 5 nights on each side: 4 with the factor hides it, 5 shows it", arguments: [(4, false), (5, true)])
    func minimumNights(with: Int, shown: Bool) throws {
        let nights =
            (0..<with).map { Self.answered($0 + 1, interval: 165, quality: 2, tv: true) }
            + (0..<6).map { Self.answered($0 + 11, interval: 165, quality: 4, tv: false) }
        let correlation = try Self.comparison("sleep_quality_vs_tv_on", nights)
        #expect(correlation.comparison.isShown == shown && (correlation.sentence != nil) == shown)
        #expect(
            Insights(nights, period: .last(30, endingAt: Self.today), targetMinutes: 165).shownCorrelations.contains { $0.id == correlation.id }
                == shown)
    }

    @Test("nights without the answer are left out: a check-in without the environment card says nothing about the TV")
    func unknownsLeftOut() throws {
        let nights =
            (0..<5).map { Self.answered($0 + 1, interval: 165, quality: 2, tv: true) }
            + (0..<5).map { Self.answered($0 + 11, interval: 165, quality: 4, tv: nil) }
        let correlation = try Self.comparison("sleep_quality_vs_tv_on", nights)
        #expect(correlation.comparison.with.nights == 5 && correlation.comparison.without.nights == 0 && !correlation.comparison.isShown)
    }

    @Test("on time against caffeine: a share of decided nights, in percentage points")
    func caffeineAndOnTime() throws {
        // With caffeine: 165 165 190 190 190 → 40% on time. Without: 165 ×5 → 100%.
        let with = [165.0, 165, 190, 190, 190].enumerated().map {
            Self.answered($0.offset + 1, interval: $0.element, quality: 3, tv: nil, caffeine: 2)
        }
        let without = (0..<5).map { Self.answered($0 + 11, interval: 165, quality: 3, tv: nil, caffeine: 0) }
        let correlation = try Self.comparison("on_time_vs_caffeine", with + without)
        #expect(correlation.comparison.with.mean == 40 && correlation.comparison.without.mean == 100)
        #expect(correlation.sentence?.contains("40.0% over 5 nights, against 100.0% over 5 nights without; difference −60.0 points") == true)
        #expect(try Self.comparison("sleep_quality_vs_caffeine", with + without).comparison.difference == 0)
    }

    @Test(
        "the sixteen correlations: the seed's four, caffeine, alcohol, stress, exercise against quality and on time, and four of a wearable's sleep")
    func sixteen() {
        let ids = Correlations.all([], targetMinutes: 165).map(\.id)
        #expect(
            ids == [
                "sleep_quality_vs_tv_on", "wake_events_vs_noise", "grogginess_vs_phone_in_bed", "dose2_skip_or_early_vs_screen",
                "sleep_quality_vs_caffeine", "on_time_vs_caffeine", "sleep_quality_vs_alcohol", "on_time_vs_alcohol", "sleep_quality_vs_stress",
                "on_time_vs_stress", "sleep_quality_vs_exercise", "on_time_vs_exercise", "deep_sleep_vs_late_dose2", "asleep_vs_late_dose2",
                "waso_vs_snoozes", "recovery_vs_late_dose2",
            ])
    }

    @Test("notable nights: an extra dose, Dose 2 after the window closed or before it opened, a skip with its reason, a sleep-through")
    func notable() {
        let nights = [
            AdherenceTests.night(1, dose2: 170, extra: [(.extraDose, 300)]), AdherenceTests.night(2, dose2: 240),
            AdherenceTests.night(3, dose2: 239.99),
            AdherenceTests.night(4, dose2: 149), AdherenceTests.night(5, skipped: true), AdherenceTests.night(6, sleptThrough: true),
        ].map { InsightNight(session: $0) }
        let insights = Insights(nights, period: .last(30, endingAt: SessionKey(year: 2026, month: 11, day: 10)!), targetMinutes: 165)
        #expect(insights.notable.map(\.kind) == [.extraDose, .lateDose, .earlyDose, .skipped, .sleptThrough])
        #expect(insights.notable.map(\.date.description) == ["2026-11-01", "2026-11-02", "2026-11-04", "2026-11-05", "2026-11-06"])
        #expect(insights.notable[1].text.hasSuffix("240 min after Dose 1: after the window closed"))
        #expect(insights.notable[3].text == "Dose 2 skipped: felt unwell")
    }

    @Test("only the period's nights count; mornings, wellness means and other medications come from them")
    func periodFilters() {
        var inside = Self.answered(20, interval: 165, quality: 5, tv: nil)
        inside.medications = ["Modafinil", "Modafinil"]
        var second = Self.answered(21, interval: 170, quality: 3, tv: nil)
        second.medications = ["Modafinil", "Melatonin"]
        let outside = Self.answered(1, interval: 200, quality: 1, tv: nil)
        let insights = Insights([outside, second, inside], period: .last(7, endingAt: Self.today), targetMinutes: 165)
        #expect(insights.nightsRecorded == 2 && insights.adherence.nights.map(\.date.description) == ["2026-11-20", "2026-11-21"])
        #expect(insights.mornings.map(\.sleepQuality) == [5, 3] && insights.meanSleepQuality == 4)
        #expect(insights.medications.map { "\($0.name) \($0.nightsTaken)" } == ["Modafinil 2", "Melatonin 1"])
        #expect(insights.state == .insufficientData && insights.adherence.nightsNeeded == 1)
    }

    @Test(
        "the interval is elapsed time: across spring-forward, fall-back and a flight west it is the minutes between the doses",
        arguments: [
            // Spring-forward night (2026-03-08 in New York): 00:30 EST → 03:15 EDT is 165 elapsed minutes, 165 on the clock less one hour.
            ("America/New_York", "America/New_York", 2026, 3, 8, 5, 30, 165.0),
            // Fall-back night (2026-11-01): 00:30 EDT → 02:15 EST is 165 elapsed minutes.
            ("America/New_York", "America/New_York", 2026, 11, 1, 4, 30, 165.0),
            // Dose 1 in New York, Dose 2 logged after landing in Chicago: still 170 minutes.
            ("America/New_York", "America/Chicago", 2026, 11, 20, 3, 30, 170.0),
        ] as [(String, String, Int, Int, Int, Int, Int, Double)])
    func intervalsAcrossClocks(firstZone: String, secondZone: String, year: Int, month: Int, day: Int, hour: Int, minute: Int, minutes: Double) throws
    {
        let dose1 = try #require(
            Calendar(identifier: .gregorian).date(
                from: DateComponents(timeZone: TimeZone(identifier: "UTC"), year: year, month: month, day: day, hour: hour, minute: minute)))
        let dose2 = dose1.addingTimeInterval(minutes * 60)
        let session = NightSession(
            id: SessionID(rawValue: "n"), date: SessionKey(for: dose1, in: TimeZone(identifier: firstZone)!), startedAt: dose1,
            events: [
                NightEvent(
                    id: EventID(rawValue: "1"), kind: .dose1, occurredAt: dose1, recordedAt: dose1, timeZone: TimeZone(identifier: firstZone)!),
                NightEvent(
                    id: EventID(rawValue: "2"), kind: .dose2, occurredAt: dose2, recordedAt: dose2, timeZone: TimeZone(identifier: secondZone)!),
            ])
        let night = try #require(Adherence.Night(session, targetMinutes: 165))
        #expect(night.intervalMinutes == Int(minutes) && night.insideWindow)
        #expect(night.timing == (abs(minutes - 165) <= 10 ? .onTarget : .inWindow))
    }
}
