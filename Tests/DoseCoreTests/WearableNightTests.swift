import Foundation
import Testing

@testable import DoseCore

/// Sleeps given as totals (WHOOP), the choice of one source per night, the priority setting, and the sleep-based
/// correlations; every figure worked by hand.
@Suite("A night's wearable sleep: totals, the source chosen, the priority, the correlations")
struct WearableNightTests {
    /// 2026-11-20 at `hour:minute` UTC.
    static func at(_ hour: Int, _ minute: Int = 0, day: Int = 20) -> Date {
        let seconds: Int = ((day - 20) * 24 + hour) * 3600 + minute * 60
        return Date(timeIntervalSince1970: 1_763_596_800 + TimeInterval(seconds))
    }

    static func whoop(
        from: Date = at(4, 10), to: Date = at(11, 55), nap: Bool = false, asleep: Double? = 420, light: Double? = 210, deep: Double? = 95,
        rem: Double? = 115, awake: Double? = 45, inBed: Double? = 465, recovery: Double? = 62
    ) -> SleepSummary {
        SleepSummary(
            source: "WHOOP", start: from, end: to, offsetMinutes: -300, isNap: nap, inBedMinutes: inBed, asleepMinutes: asleep, lightMinutes: light,
            deepMinutes: deep, remMinutes: rem, awakeMinutes: awake, recovery: WearableRecovery(recoveryPercent: recovery, restingHeartRate: 54))
    }

    static func watchNight(source: String = "Apple Watch") -> [[StageSpan]] {
        let samples = [
            SleepSample(source: source, stage: .core, start: at(4, 0), end: at(5, 30)),
            SleepSample(source: source, stage: .deep, start: at(5, 30), end: at(6, 20)),
            SleepSample(source: source, stage: .awake, start: at(6, 20), end: at(6, 35)),
            SleepSample(source: source, stage: .rem, start: at(6, 35), end: at(11, 0)),
        ]
        return SleepTimeline.periods(SleepTimeline.merge(samples))
    }

    @Test(
        "totals: light is core, the asleep total beyond the stages is plain asleep, in bed beyond asleep and awake is in bed; no wake count, no stage at Dose 2"
    )
    func totals() {
        let figures = SleepFigures.of(Self.whoop(asleep: 430, inBed: 490))
        #expect(figures.minutesAsleep == 430 && figures.wasoMinutes == 45 && figures.wakeCount == nil)
        #expect(figures.stageMinutes == [.core: 210, .deep: 95, .rem: 115, .awake: 45, .asleep: 10, .inBed: 15])
        #expect(figures.sleepOnset == Self.at(4, 10) && figures.finalWake == Self.at(11, 55) && figures.periodStart == Self.at(4, 10))
        #expect(!figures.hasTimeline && figures.stageAtDose2 == nil && figures.minutesFromDeepToDose2 == nil)
        #expect(figures.recovery?.recoveryPercent == 62 && figures.recovery?.restingHeartRate == 54 && figures.sources == ["WHOOP"])
        // No asleep total: the stages add up to it. No readings: no recovery at all.
        let bare = SleepFigures.of(Self.whoop(asleep: nil, inBed: nil, recovery: nil).withoutRecovery)
        #expect(bare.minutesAsleep == 420 && bare.stageMinutes[.asleep] == 0 && bare.stageMinutes[.inBed] == 0 && bare.recovery == nil)
        // Nothing but bounds: zero minutes, not a crash or a negative.
        let empty = SleepFigures.of(Self.whoop(asleep: nil, light: nil, deep: nil, rem: nil, awake: nil, inBed: nil))
        #expect(empty.minutesAsleep == 0 && empty.stageMinutes.values.allSatisfy { $0 == 0 })
    }

    struct Choice: Sendable, CustomTestStringConvertible {
        let name: String
        let watch: String?
        let summaries: [SleepSummary]
        let priority: SourcePriority
        let expected: String?
        let timeline: Bool
        var testDescription: String { name }
    }

    static let choices: [Choice] = [
        Choice(
            name: "two sources of totals: the preferred one, not the longer", watch: nil,
            summaries: [whoop(to: at(12, 30)), whoop().renamed("Oura Ring")], priority: SourcePriority(words: ["ring", "whoop"]),
            expected: "Oura Ring", timeline: false),
        Choice(
            name: "watch and WHOOP, standard priority: the watch", watch: "Apple Watch", summaries: [whoop()], priority: .standard,
            expected: "Apple Watch", timeline: true),
        Choice(
            name: "WHOOP put first: WHOOP", watch: "Apple Watch", summaries: [whoop()], priority: SourcePriority(words: ["whoop", "watch"]),
            expected: "WHOOP", timeline: false),
        Choice(
            name: "an iPhone's timeline ranks below WHOOP", watch: "iPhone", summaries: [whoop()], priority: .standard, expected: "WHOOP",
            timeline: false),
        Choice(name: "WHOOP alone", watch: nil, summaries: [whoop()], priority: .standard, expected: "WHOOP", timeline: false),
        Choice(name: "the watch alone", watch: "Apple Watch", summaries: [], priority: .standard, expected: "Apple Watch", timeline: true),
        Choice(
            name: "a nap beside the main sleep: the main sleep", watch: nil,
            summaries: [whoop(from: at(2, 0), to: at(2, 40), nap: true, asleep: 35, recovery: nil), whoop()], priority: .standard,
            expected: "WHOOP", timeline: false),
        Choice(
            name: "a sleep wholly outside the night: none", watch: nil, summaries: [whoop(from: at(4, 0, day: 22), to: at(11, 0, day: 22))],
            priority: .standard, expected: nil, timeline: false),
    ]

    @Test("one source speaks for the night, by the priority; a timeline wins a tie; naps only when nothing else overlaps", arguments: choices)
    func choice(_ case: Choice) {
        let night = WearableNight.choose(
            periods: `case`.watch.map { Self.watchNight(source: $0) } ?? [], summaries: `case`.summaries, from: Self.at(2), to: Self.at(14),
            dose2: Self.at(6, 50), priority: `case`.priority)
        #expect(night?.figures.sources.first == `case`.expected)
        if `case`.expected != nil {
            #expect(night?.figures.hasTimeline == `case`.timeline)
            #expect((night?.spans.isEmpty == false) == `case`.timeline)
        }
    }

    @Test("the watch's night keeps its own figures and takes WHOOP's recovery: nothing counted twice")
    func recoveryBesideTimeline() throws {
        let night = try #require(
            WearableNight.choose(
                periods: Self.watchNight(), summaries: [Self.whoop()], from: Self.at(2), to: Self.at(14), dose2: Self.at(6, 50), priority: .standard))
        // 90 core + 50 deep + 265 REM = 405 asleep; 15 awake between; Dose 2 at 06:50 in REM, 30 min after deep ended at 06:20.
        #expect(night.figures.minutesAsleep == 405 && night.figures.wasoMinutes == 15 && night.figures.wakeCount == 1)
        #expect(night.figures.stageAtDose2 == .rem && night.figures.minutesFromDeepToDose2 == 30)
        #expect(night.figures.recovery?.recoveryPercent == 62 && night.figures.sources == ["Apple Watch"])
        // A nap alone: chosen, as nothing else overlaps.
        let nap = WearableNight.choose(
            periods: [], summaries: [Self.whoop(from: Self.at(2, 0), to: Self.at(2, 40), nap: true, asleep: 35)], from: Self.at(2), to: Self.at(14),
            dose2: nil, priority: .standard)
        #expect(nap?.figures.minutesAsleep == 35)
    }

    @Test(
        "sleep_source_priority: comma-separated words, first preferred; refused when empty, too many, repeated or odd",
        arguments: [
            ("whoop,watch", ["whoop", "watch"]), (" Oura Ring , WATCH ", ["oura ring", "watch"]), ("galaxy-watch", ["galaxy-watch"]),
            ("a,b,c,d,e,f,g,h,i,j,k,l", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]),
        ])
    func priorityAccepted(_ text: String, _ words: [String]) throws {
        let settings = try DoseSettings(timeZoneID: "UTC").setting("sleep_source_priority", to: text)
        #expect(settings.sleepSourcePriority.words == words)
        #expect(try settings.value(of: "sleep_source_priority") == words.joined(separator: ","))
    }

    @Test(
        "a refused priority names the setting and what is allowed, and changes nothing",
        arguments: [
            "", ",", "watch,,whoop", "watch,Watch", "a,b,c,d,e,f,g,h,i,j,k,l,m", String(repeating: "w", count: 41), "watch;whoop", "<script>",
        ])
    func priorityRefused(_ text: String) {
        let before = DoseSettings(timeZoneID: "UTC")
        #expect(before.sleepSourcePriority == .standard)
        #expect {
            _ = try before.setting("sleep_source_priority", to: text)
        } throws: { error in
            guard let error = error as? DoseError, case .invalidInput(let field, _, let allowed) = error else { return false }
            return field == "sleep_source_priority" && allowed?.contains("comma-separated") == true
        }
    }

    @Test("the ranks: the first word matched wins, case-insensitive; unmatched sources come last")
    func ranks() {
        let priority = SourcePriority(words: ["whoop", "watch"])
        #expect(priority.rank("WHOOP") == 0 && priority.rank("Alice’s Apple Watch") == 1 && priority.rank("Sleep Cycle") == 2)
        #expect(SourcePriority.standard.rank("iPhone") < SourcePriority.standard.rank("Sleep Cycle"))
    }
}

extension SleepSummary {
    fileprivate func renamed(_ source: String) -> SleepSummary {
        var copy = self
        copy.source = source
        return copy
    }

    fileprivate var withoutRecovery: SleepSummary {
        var copy = self
        copy.recovery = WearableRecovery()
        return copy
    }
}

@Suite("Correlations of a wearable's sleep with the night's timing and snoozes")
struct SleepCorrelationTests {
    /// A night on 2026-11-`day` with Dose 2 `interval` minutes after Dose 1 (target 165) and a wearable's figures.
    static func night(_ day: Int, interval: Double, snoozes: Int = 0, deep: Double?, asleep: Double = 400, waso: Double = 30, recovery: Double? = nil)
        -> InsightNight
    {
        let session = AdherenceTests.night(day, dose2: interval, extra: (0..<snoozes).map { (EventKind.snooze, 160.0 + Double($0)) })
        var stages = Dictionary(uniqueKeysWithValues: SleepStage.allCases.map { ($0, 0.0) })
        if let deep {
            stages[.deep] = deep
            stages[.core] = asleep - deep
        } else {
            stages[.asleep] = asleep
        }
        let figures = SleepFigures(
            periodStart: session.startedAt, periodEnd: session.startedAt.addingTimeInterval(8 * 3600), sleepOnset: session.startedAt,
            finalWake: session.startedAt.addingTimeInterval(8 * 3600), minutesAsleep: asleep, wasoMinutes: waso, wakeCount: 1,
            stageMinutes: stages, stageAtDose2: nil, minutesFromDeepToDose2: nil, sources: ["Apple Watch"],
            recovery: recovery.map { WearableRecovery(recoveryPercent: $0) })
        return InsightNight(session: session, sleep: figures)
    }

    static func correlation(_ id: String, _ nights: [InsightNight]) throws -> Correlation {
        try #require(Correlations.all(nights, targetMinutes: 165).first { $0.id == id })
    }

    @Test(
        "deep sleep on late nights against on-time ones: 5 late at 40, 50, 60, 50, 50 and 5 on time at 90 ×5 → −40 min; other timings and phone-only nights left out"
    )
    func deepAgainstLate() throws {
        let late = [40.0, 50, 60, 50, 50].enumerated().map { Self.night($0.offset + 1, interval: 200, deep: $0.element) }
        let onTime = (0..<5).map { Self.night($0 + 11, interval: 165, deep: 90) }
        // An early night (150) and an on-time night measured only by a phone ("asleep", no stages) count on neither side.
        let others = [Self.night(21, interval: 150, deep: 10), Self.night(22, interval: 165, deep: nil)]
        let correlation = try Self.correlation("deep_sleep_vs_late_dose2", late + onTime + others)
        #expect(correlation.comparison.with.nights == 5 && correlation.comparison.without.nights == 5)
        #expect(correlation.comparison.with.mean == 50 && correlation.comparison.without.mean == 90)
        #expect(correlation.comparison.difference == -40)
        // Variance late: (100+0+100+0+0)/4 = 50; on time: 0. Pooled (4·50 + 4·0)/8 = 25, d = −40/5 = −8.
        #expect(correlation.comparison.effectSize == -8)
        #expect(
            correlation.sentence
                == "Deep sleep (wearable) with Dose 2 over 10 min after the target (against on target): 50 min over 5 nights, against 90 min over 5 nights without; difference −40 min; effect large (d = −8.00)."
        )
    }

    @Test("awake after falling asleep with a snooze against without; recovery with a late Dose 2; hidden under 5 nights a side")
    func wasoAndRecovery() throws {
        let snoozed = (0..<5).map { Self.night($0 + 1, interval: 200, snoozes: 1, deep: 60, waso: 40, recovery: 40) }
        let plain = (0..<5).map { Self.night($0 + 11, interval: 165, deep: 60, waso: 20, recovery: 70) }
        let waso = try Self.correlation("waso_vs_snoozes", snoozed + plain)
        #expect(
            waso.comparison.difference == 20
                && waso.sentence?.contains("40 min over 5 nights, against 20 min over 5 nights without; difference +20 min") == true)
        let recovery = try Self.correlation("recovery_vs_late_dose2", snoozed + plain)
        #expect(
            recovery.comparison.difference == -30
                && recovery.sentence?.contains("40% over 5 nights, against 70% over 5 nights without; difference −30 points") == true)
        let few = try Self.correlation("waso_vs_snoozes", Array(snoozed.prefix(4)) + plain)
        #expect(!few.comparison.isShown && few.sentence == nil)
        // Nights without a wearable count on neither side.
        let bare = (0..<5).map { InsightNight(session: AdherenceTests.night($0 + 21, dose2: 165)) }
        #expect(try Self.correlation("waso_vs_snoozes", snoozed + bare).comparison.without.nights == 0)
    }
}
