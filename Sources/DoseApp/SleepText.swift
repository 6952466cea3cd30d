public import DoseCore
public import DoseStore
public import Foundation

/// A night's wearable sleep in words, the same on every surface (Details, History, the report, the CLI).
public enum SleepText {
    /// A stage as people say it ("light" for core, which is what WHOOP calls it too).
    public static func name(_ stage: SleepStage) -> String {
        switch stage {
        case .core: "light (core)"
        case .inBed: "in bed"
        case .rem: "REM"
        default: stage.rawValue
        }
    }

    public static func sentence(_ figures: SleepFigures, zone: TimeZone) -> String {
        func minutes(_ value: Double) -> String { DurationText.words(minutes: Int(value.rounded())) }
        var text = "Asleep \(minutes(figures.minutesAsleep))"
        if let onset = figures.sleepOnset { text += " from \(LocalClock.hourMinute(onset, in: zone))" }
        if let wake = figures.finalWake { text += " to \(LocalClock.hourMinute(wake, in: zone))" }
        text += "; awake \(minutes(figures.wasoMinutes)) after falling asleep"
        if let count = figures.wakeCount { text += ", \(count) time\(count == 1 ? "" : "s")" }
        text += "; deep \(minutes(figures.stageMinutes[.deep] ?? 0)), REM \(minutes(figures.stageMinutes[.rem] ?? 0))."
        if !figures.hasTimeline {
            text += " \(figures.sources.joined(separator: ", ")) gives stage totals, not when each stage came, so the stage at Dose 2 is not known."
        }
        if let stage = figures.stageAtDose2 {
            text += " At Dose 2: \(stage == .awake || stage == .inBed ? "awake" : "asleep (\(name(stage)))")"
            if let deep = figures.minutesFromDeepToDose2 {
                text += deep == 0 ? ", in deep sleep." : ", \(minutes(deep)) after deep sleep."
            } else {
                text += "."
            }
        }
        if let recovery = figures.recovery {
            var parts: [String] = []
            if let value = recovery.recoveryPercent { parts.append("recovery \(Int(value.rounded()))%") }
            if let value = recovery.sleepPerformancePercent { parts.append("sleep performance \(Int(value.rounded()))%") }
            if let value = recovery.restingHeartRate { parts.append("resting heart rate \(Int(value.rounded())) bpm") }
            if let value = recovery.hrvMilliseconds { parts.append("HRV \(Int(value.rounded())) ms") }
            if let value = recovery.respiratoryRate { parts.append("\(NumberText.tenths(value)) breaths a minute") }
            if let value = recovery.oxygenSaturationPercent { parts.append("blood oxygen \(NumberText.tenths(value))%") }
            if !parts.isEmpty { text += " Morning readings: " + parts.joined(separator: ", ") + "." }
        }
        return text
    }

    /// A night's sleep in a few words, for a table cell: "7 h 12 min asleep, deep 64 min, awake 22 min (Apple Watch)".
    public static func short(_ figures: SleepFigures) -> String {
        var parts = ["\(DurationText.words(minutes: Int(figures.minutesAsleep.rounded()))) asleep"]
        if let deep = figures.deepMinutes { parts.append("deep \(Int(deep.rounded())) min") }
        parts.append("awake \(Int(figures.wasoMinutes.rounded())) min")
        if let recovery = figures.recovery?.recoveryPercent { parts.append("recovery \(Int(recovery.rounded()))%") }
        return parts.joined(separator: ", ") + " (\(figures.sources.joined(separator: ", ")))"
    }

    /// The means of the vitals measured over the sleep besides the heart rate; nil when none was.
    public static func vitals(_ sleep: NightSleep) -> String? {
        var parts: [String] = []
        if let value = sleep.meanHRV { parts.append("HRV \(Int(value.rounded())) ms") }
        if let value = sleep.meanRespiratoryRate { parts.append("\(NumberText.tenths(value)) breaths a minute") }
        if let value = sleep.meanOxygenSaturation { parts.append("blood oxygen \(NumberText.plain((value * 1000).rounded() / 10))%") }
        return parts.isEmpty ? nil : "Over the sleep, on average: " + parts.joined(separator: ", ") + "."
    }
}
