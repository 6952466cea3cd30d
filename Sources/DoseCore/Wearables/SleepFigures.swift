public import Foundation

/// What a night's merged sleep timeline says, in minutes, and where Dose 2 fell in it.
public struct SleepFigures: Hashable, Sendable {
    /// The first stretch of any kind (in bed or asleep).
    public var periodStart: Date
    /// The end of the last stretch.
    public var periodEnd: Date
    /// The first stretch asleep; nil when the night has none.
    public var sleepOnset: Date?
    /// The end of the last stretch asleep.
    public var finalWake: Date?
    /// Minutes asleep, any stage.
    public var minutesAsleep: Double
    /// Wake after sleep onset: minutes between onset and final wake not asleep (awake, in bed, or no data).
    public var wasoMinutes: Double
    /// Times sleep broke between onset and final wake; nil when the source gives totals only (WHOOP's export counts no
    /// disturbances).
    public var wakeCount: Int?
    /// Minutes in each stage, every stage present (0 when none).
    public var stageMinutes: [SleepStage: Double]
    /// The stage at Dose 2's instant; nil without Dose 2 or without data then.
    public var stageAtDose2: SleepStage?
    /// Minutes from the end of the last deep-sleep stretch to Dose 2 (0 when Dose 2 fell in deep sleep); nil when no
    /// deep sleep came before it.
    public var minutesFromDeepToDose2: Double?
    /// The sources that told the timeline, by name.
    public var sources: [String]
    /// Whether the figures come from a stage-by-stage timeline; false for a source that gives totals only, which cannot
    /// say what stage Dose 2 fell in.
    public var hasTimeline = true
    /// The band's morning readings for the night (WHOOP's recovery), whichever source told the sleep.
    public var recovery: WearableRecovery?

    /// Whether the source told sleep stages (light, deep or REM). A phone says only "asleep": its deep minutes are
    /// unknown, not zero.
    public var hasStages: Bool { [SleepStage.core, .deep, .rem].contains { stageMinutes[$0, default: 0] > 0 } }

    /// Minutes of deep sleep where stages were told; nil otherwise.
    public var deepMinutes: Double? { hasStages ? stageMinutes[.deep, default: 0] : nil }

    /// The figures of a merged timeline (one night's spans, in order).
    public static func of(_ spans: [StageSpan], dose2: Date? = nil) -> SleepFigures? {
        guard let first = spans.first, let last = spans.last else { return nil }
        let asleep = spans.filter(\.stage.isAsleep)
        var stageMinutes = Dictionary(uniqueKeysWithValues: SleepStage.allCases.map { ($0, 0.0) })
        for span in spans { stageMinutes[span.stage, default: 0] += span.minutes }
        let onset = asleep.first?.start
        let finalWake = asleep.last?.end
        let minutesAsleep = asleep.reduce(0) { $0 + $1.minutes }
        var waso = 0.0
        var wakes = 0
        if let onset, let finalWake {
            waso = finalWake.timeIntervalSince(onset) / 60 - minutesAsleep
            // Sleep broke wherever one asleep stretch does not run straight into the next: something not asleep (awake,
            // in bed, or no data) came between them.
            wakes = zip(asleep, asleep.dropFirst()).filter { $0.1.start > $0.0.end }.count
        }
        var atDose2: SleepStage?
        var fromDeep: Double?
        if let dose2 {
            atDose2 = spans.first { $0.start <= dose2 && dose2 < $0.end }?.stage
            if atDose2 == .deep {
                fromDeep = 0
            } else if let deep = spans.last(where: { $0.stage == .deep && $0.end <= dose2 }) {
                fromDeep = dose2.timeIntervalSince(deep.end) / 60
            }
        }
        var sources: [String] = []
        for span in spans where !sources.contains(span.source) { sources.append(span.source) }
        return SleepFigures(
            periodStart: first.start, periodEnd: last.end, sleepOnset: onset, finalWake: finalWake, minutesAsleep: minutesAsleep, wasoMinutes: waso,
            wakeCount: wakes, stageMinutes: stageMinutes, stageAtDose2: atDose2, minutesFromDeepToDose2: fromDeep, sources: sources)
    }
}
