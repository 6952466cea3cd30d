import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Wearable sleep: merged by source priority, figures worked by hand")
struct SleepTimelineTests {
    /// A plain winter night in New York: the evening of 7 February 2026, hours before noon on the 8th.
    static func at(_ hour: Int, _ minute: Int, day: Int = 7) -> Date {
        WallClock.date(2026, 2, hour < 12 && day == 7 ? 8 : day, hour, minute)
    }

    static func sample(_ source: String, _ stage: SleepStage, _ from: (Int, Int), _ to: (Int, Int)) -> SleepSample {
        SleepSample(source: source, stage: stage, start: at(from.0, from.1), end: at(to.0, to.1))
    }

    /// A watch night (in bed around its stages) and a phone that thinks the whole night was sleep.
    static let watchNight: [SleepSample] = [
        sample("Alice's Apple Watch", .inBed, (22, 0), (6, 30)), sample("Alice's Apple Watch", .core, (22, 20), (23, 30)),
        sample("Alice's Apple Watch", .deep, (23, 30), (0, 30)), sample("Alice's Apple Watch", .core, (0, 30), (1, 0)),
        sample("Alice's Apple Watch", .awake, (1, 0), (1, 10)), sample("Alice's Apple Watch", .rem, (1, 10), (2, 0)),
        sample("Alice's Apple Watch", .core, (2, 0), (6, 0)), sample("Alice's Apple Watch", .awake, (6, 0), (6, 30)),
        sample("iPhone", .asleep, (22, 10), (6, 20)),
    ]

    @Test("the watch speaks for the whole night; the phone's overlapping record is not counted")
    func merged() throws {
        let spans = SleepTimeline.merge(Self.watchNight)
        #expect(spans.map(\.stage) == [.inBed, .core, .deep, .core, .awake, .rem, .core, .awake])
        #expect(Set(spans.map(\.source)) == ["Alice's Apple Watch"])
        let figures = try #require(SleepFigures.of(spans, dose2: Self.at(1, 5)))
        #expect(figures.sleepOnset == Self.at(22, 20) && figures.finalWake == Self.at(6, 0))
        #expect(figures.minutesAsleep == 450)  // 70 + 60 + 30 + 50 + 240
        #expect(figures.wasoMinutes == 10)  // 22:20 → 06:00 is 460 min, 450 of them asleep
        #expect(figures.wakeCount == 1)
        #expect(figures.stageMinutes == [.inBed: 20, .asleep: 0, .core: 340, .deep: 60, .rem: 50, .awake: 40])
        #expect(figures.stageAtDose2 == .awake && figures.minutesFromDeepToDose2 == 35)
    }

    // (Dose 2, stage then, minutes from the last deep block)
    static let dose2Cases: [((Int, Int), SleepStage?, Double?)] = [
        ((0, 0), .deep, 0), ((23, 0), .core, nil), ((1, 5), .awake, 35), ((1, 30), .rem, 60), ((6, 45), nil, 375), ((21, 0), nil, nil),
    ]

    @Test("where Dose 2 fell: the stage then and the minutes since deep sleep", arguments: dose2Cases)
    func dose2(time: (Int, Int), stage: SleepStage?, fromDeep: Double?) throws {
        let figures = try #require(SleepFigures.of(SleepTimeline.merge(Self.watchNight), dose2: Self.at(time.0, time.1)))
        #expect(figures.stageAtDose2 == stage)
        #expect(figures.minutesFromDeepToDose2 == fromDeep)
    }

    @Test("a lower-priority source fills only where the preferred one is silent")
    func gapsFilled() throws {
        let spans = SleepTimeline.merge([
            Self.sample("Apple Watch", .core, (22, 0), (23, 0)), Self.sample("WHOOP", .asleep, (22, 30), (0, 0)),
        ])
        #expect(
            spans == [
                StageSpan(stage: .core, start: Self.at(22, 0), end: Self.at(23, 0), source: "Apple Watch"),
                StageSpan(stage: .asleep, start: Self.at(23, 0), end: Self.at(0, 0), source: "WHOOP"),
            ])
        #expect(SleepFigures.of(spans)?.minutesAsleep == 120, "not 150: the half hour both recorded counts once")
    }

    @Test("a configured priority can prefer another source")
    func configuredPriority() {
        let spans = SleepTimeline.merge(
            [Self.sample("Apple Watch", .core, (22, 0), (23, 0)), Self.sample("WHOOP", .deep, (22, 0), (23, 0))],
            priority: SourcePriority(words: ["whoop", "watch"]))
        #expect(spans.map(\.source) == ["WHOOP"])
    }

    @Test("minutes are real minutes across spring-forward and fall-back in New York")
    func dst() throws {
        // 01:30 EST → 03:30 EDT on 8 March 2026 is one hour; 01:30 EDT → 01:30 EST on 1 November 2026 is one hour.
        let spring = SleepSample(source: "Watch", stage: .core, start: WallClock.date(2026, 3, 8, 1, 30), end: WallClock.date(2026, 3, 8, 3, 30))
        let fall = SleepSample(
            source: "Watch", stage: .deep, start: WallClock.date(2026, 11, 1, 1, 30, first: true),
            end: WallClock.date(2026, 11, 1, 1, 30, first: false))
        #expect(SleepFigures.of(SleepTimeline.merge([spring]))?.minutesAsleep == 60)
        #expect(SleepFigures.of(SleepTimeline.merge([fall]))?.stageMinutes[.deep] == 60)
    }

    @Test("periods split at a gap of more than two hours, and each goes to the night it overlaps most")
    func periodsAndNights() {
        let spans = SleepTimeline.merge([
            Self.sample("Watch", .core, (22, 0), (6, 0)),
            SleepSample(source: "Watch", stage: .core, start: Self.at(14, 0, day: 8), end: Self.at(15, 0, day: 8)),
        ])
        let periods = SleepTimeline.periods(spans)
        #expect(periods.count == 2)
        let nights: [(key: String, from: Date, to: Date)] = [
            ("2026-02-06", Self.at(18, 0, day: 6), Self.at(23, 0)), ("2026-02-07", Self.at(21, 0), Self.at(12, 0, day: 8)),
        ]
        #expect(SleepTimeline.night(for: periods[0], among: nights) == "2026-02-07")
        #expect(SleepTimeline.night(for: periods[1], among: nights) == nil, "an afternoon nap outside every night")
    }

    @Test("empty, zero-length and reversed samples give no figures")
    func degenerate() {
        #expect(SleepTimeline.merge([]).isEmpty)
        #expect(SleepTimeline.merge([SleepSample(source: "W", stage: .core, start: Self.at(23, 0), end: Self.at(23, 0))]).isEmpty)
        #expect(SleepTimeline.merge([SleepSample(source: "W", stage: .core, start: Self.at(23, 0), end: Self.at(22, 0))]).isEmpty)
        #expect(SleepFigures.of([]) == nil)
    }
}
