public import Foundation

/// A sleep a wearable gives as totals, without a stage-by-stage timeline: WHOOP's export (`sleeps.csv`,
/// `physiological_cycles.csv`). Minutes are as the export states them; nil where it left a column empty.
public struct SleepSummary: Hashable, Sendable {
    public var source: String
    /// Sleep onset and wake onset.
    public var start: Date
    public var end: Date
    /// The cycle's UTC offset in minutes east, as the export gave it.
    public var offsetMinutes: Int?
    public var isNap: Bool
    public var inBedMinutes: Double?
    public var asleepMinutes: Double?
    /// Light sleep (N1 and N2), which Apple Health calls core.
    public var lightMinutes: Double?
    public var deepMinutes: Double?
    public var remMinutes: Double?
    public var awakeMinutes: Double?
    public var recovery: WearableRecovery

    /// A summarised sleep.
    public init(
        source: String, start: Date, end: Date, offsetMinutes: Int? = nil, isNap: Bool = false, inBedMinutes: Double? = nil,
        asleepMinutes: Double? = nil, lightMinutes: Double? = nil, deepMinutes: Double? = nil, remMinutes: Double? = nil,
        awakeMinutes: Double? = nil, recovery: WearableRecovery = WearableRecovery()
    ) {
        self.source = source
        self.start = start
        self.end = end
        self.offsetMinutes = offsetMinutes
        self.isNap = isNap
        self.inBedMinutes = inBedMinutes
        self.asleepMinutes = asleepMinutes
        self.lightMinutes = lightMinutes
        self.deepMinutes = deepMinutes
        self.remMinutes = remMinutes
        self.awakeMinutes = awakeMinutes
        self.recovery = recovery
    }

    /// Minutes asleep: the stated total, or the stages added up when the total is missing.
    public var minutesAsleep: Double? {
        if let asleepMinutes { return asleepMinutes }
        let stages = [lightMinutes, deepMinutes, remMinutes].compactMap { $0 }
        return stages.isEmpty ? nil : stages.reduce(0, +)
    }
}

/// What a band measured of the body over a night, beside the sleep itself (WHOOP's recovery); nil where not given.
public struct WearableRecovery: Hashable, Sendable {
    /// Recovery, 0–100 %.
    public var recoveryPercent: Double?
    /// Sleep performance, 0–100 % (sleep had against sleep needed).
    public var sleepPerformancePercent: Double?
    /// Sleep efficiency, 0–100 % (asleep against in bed).
    public var sleepEfficiencyPercent: Double?
    public var restingHeartRate: Double?
    /// Heart-rate variability (WHOOP: RMSSD), ms.
    public var hrvMilliseconds: Double?
    /// Breaths per minute.
    public var respiratoryRate: Double?
    /// Blood oxygen, %.
    public var oxygenSaturationPercent: Double?
    public var skinTemperatureCelsius: Double?

    /// Readings, any of them absent.
    public init(
        recoveryPercent: Double? = nil, sleepPerformancePercent: Double? = nil, sleepEfficiencyPercent: Double? = nil,
        restingHeartRate: Double? = nil, hrvMilliseconds: Double? = nil, respiratoryRate: Double? = nil, oxygenSaturationPercent: Double? = nil,
        skinTemperatureCelsius: Double? = nil
    ) {
        self.recoveryPercent = recoveryPercent
        self.sleepPerformancePercent = sleepPerformancePercent
        self.sleepEfficiencyPercent = sleepEfficiencyPercent
        self.restingHeartRate = restingHeartRate
        self.hrvMilliseconds = hrvMilliseconds
        self.respiratoryRate = respiratoryRate
        self.oxygenSaturationPercent = oxygenSaturationPercent
        self.skinTemperatureCelsius = skinTemperatureCelsius
    }

    /// Whether it holds no reading at all.
    public var isEmpty: Bool { self == WearableRecovery() }
}

extension SleepFigures {
    /// The figures of a sleep given as totals. WASO is the source's awake time inside the sleep; wake count and the
    /// stage at Dose 2 are unknown (no timeline), so nil rather than invented.
    public static func of(_ summary: SleepSummary) -> SleepFigures {
        let light = summary.lightMinutes ?? 0
        let deep = summary.deepMinutes ?? 0
        let rem = summary.remMinutes ?? 0
        let awake = summary.awakeMinutes ?? 0
        let asleep = summary.minutesAsleep ?? 0
        var stageMinutes = Dictionary(uniqueKeysWithValues: SleepStage.allCases.map { ($0, 0.0) })
        stageMinutes[.core] = light
        stageMinutes[.deep] = deep
        stageMinutes[.rem] = rem
        stageMinutes[.awake] = awake
        // Asleep with no stage: what the total says beyond the stages (none when the stages add up).
        stageMinutes[.asleep] = max(0, asleep - light - deep - rem)
        // In bed but neither asleep nor awake: what the in-bed total says beyond both.
        stageMinutes[.inBed] = max(0, (summary.inBedMinutes ?? 0) - asleep - awake)
        return SleepFigures(
            periodStart: summary.start, periodEnd: summary.end, sleepOnset: summary.start, finalWake: summary.end, minutesAsleep: asleep,
            wasoMinutes: awake, wakeCount: nil, stageMinutes: stageMinutes, stageAtDose2: nil, minutesFromDeepToDose2: nil,
            sources: [summary.source], hasTimeline: false, recovery: summary.recovery.isEmpty ? nil : summary.recovery)
    }
}

/// A night's wearable sleep, chosen from every source that saw it: the merged stage timeline of the period that
/// overlaps the night most, or a source's totals, whichever source ranks first. One source speaks for the night, so
/// nothing is counted twice; a band's recovery readings come along whichever source told the sleep.
public struct WearableNight: Sendable {
    /// The chosen timeline's stretches; empty when totals were chosen.
    public var spans: [StageSpan]
    public var figures: SleepFigures

    /// The night's sleep from `periods` (merged, split timelines) and `summaries`, for a night from `from` to `to`, with
    /// Dose 2 at `dose2`; nil when nothing overlaps it. Naps are chosen only when nothing else overlaps the night.
    public static func choose(
        periods: [[StageSpan]], summaries: [SleepSummary], from: Date, to: Date, dose2: Date?, priority: SourcePriority
    ) -> WearableNight? {
        let period = SleepTimeline.period(overlappingMost: periods, from: from, to: to)
        func overlap(_ summary: SleepSummary) -> TimeInterval { min(summary.end, to).timeIntervalSince(max(summary.start, from)) }
        let overlapping = summaries.filter { overlap($0) > 0 && $0.end > $0.start }
        let pool = overlapping.contains { !$0.isNap } ? overlapping.filter { !$0.isNap } : overlapping
        // Of the sleeps given as totals, the preferred source's, then the one overlapping the night most.
        let summary = pool.min { (priority.rank($0.source), -overlap($0), $0.source) < (priority.rank($1.source), -overlap($1), $1.source) }
        let recovery = summary.flatMap { $0.recovery.isEmpty ? nil : $0.recovery }
        if let period, var figures = SleepFigures.of(period, dose2: dose2) {
            let best = period.map { priority.rank($0.source) }.min() ?? Int.max
            if summary.map({ priority.rank($0.source) >= best }) ?? true {
                figures.recovery = recovery
                return WearableNight(spans: period, figures: figures)
            }
        }
        return summary.map { WearableNight(spans: [], figures: .of($0)) }
    }
}
