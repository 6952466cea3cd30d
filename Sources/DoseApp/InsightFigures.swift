public import DoseCore
import Foundation

/// The figures a person and a clinician read first, in words, shared by the page and the report.
public struct InsightFigure: Sendable {
    public let name: String
    public let value: String
    /// What the figure means or how it was made, when that needs saying.
    public let note: String?

    /// The figures of a period, in reading order.
    public static func all(_ insights: Insights) -> [InsightFigure] {
        let adherence = insights.adherence
        // The Dose 2 figures are of twice-nightly nights, all in the label's window.
        let window = DoseWindow.label
        func share(_ timing: DoseTiming) -> String {
            adherence.percent(timing).map { "\(Correlation.decimal($0, places: 1))% (\(adherence.count(timing)) of \(adherence.decided))" } ?? "—"
        }
        var figures = [
            InsightFigure(
                name: "On target", value: share(.onTarget), note: "Dose 2 within 10 minutes of the \(adherence.targetMinutes)-minute target"),
            InsightFigure(name: "In window", value: share(.inWindow), note: "the rest of \(RegimenWords.minutes(window)) minutes after Dose 1"),
            InsightFigure(name: "⚠ Early", value: share(.early), note: "before the window opened (\(RegimenWords.early(window)))"),
            InsightFigure(name: "⚠ Late", value: share(.late), note: "after the window closed (\(RegimenWords.late(window)))"),
            InsightFigure(name: "Skipped", value: share(.skipped), note: nil),
            InsightFigure(name: "Slept through", value: share(.sleptThrough), note: "the window closed with no Dose 2"),
        ]
        if let bedtime = insights.bedtime {
            figures.append(
                InsightFigure(
                    name: "Bedtime dose", value: "\(bedtime.clock) (±\(bedtime.spreadMinutes) min)",
                    note: "median time of Dose 1 over \(bedtime.nights) nights; ± the median distance from it"))
        }
        if insights.onceNightlyNights > 0 {
            figures.append(
                InsightFigure(
                    name: "Once nightly", value: "\(insights.onceNightlyNights) nights",
                    note: "one dose each; the Dose 2 figures count only twice-nightly nights"))
        }
        // Each regimen and titration step with how its nights went, once there is more than one to tell apart.
        if insights.regimenPeriods.count > 1 || insights.regimenPeriods.contains(where: { $0.regimen?.titrationStep != nil }) {
            for period in insights.regimenPeriods {
                figures.append(InsightFigure(name: period.span, value: period.regimenWords, note: period.outcome))
            }
        }
        let quartiles = adherence.interquartileRange.map { "IQR \(short($0.lower))–\(short($0.upper))" }
        figures.append(
            InsightFigure(
                name: "Median interval", value: adherence.medianInterval.map { "\(short($0)) min" } ?? "—",
                note: quartiles.map { "\($0) min over \(adherence.intervals.count) nights" }))
        figures.append(
            InsightFigure(
                name: "Inside \(RegimenWords.minutes(window)) min",
                value: adherence.insideWindowPercent.map { "\(Correlation.decimal($0, places: 1))%" } ?? "—",
                note: "of nights with Dose 2"))
        figures.append(
            InsightFigure(
                name: "Natural wake", value: adherence.naturalWakePercent.map { "\(Correlation.decimal($0, places: 1))%" } ?? "—",
                note: "Dose 2 in the window before the alarm, without a snooze"))
        figures.append(
            InsightFigure(name: "Snoozes per night", value: adherence.snoozesPerNight.map { Correlation.decimal($0, places: 1) } ?? "—", note: nil))
        figures.append(
            InsightFigure(
                name: "Awake after Dose 1 (estimate)", value: adherence.wasoEstimatePerNight.map { "\($0) min per night" } ?? "—",
                note: Adherence.wasoMethod))
        figures.append(
            InsightFigure(
                name: "Wellness", value: insights.meanWellness.map { "\($0) of 100" } ?? "—",
                note: insights.mornings.isEmpty ? "no check-ins" : "mean of \(insights.mornings.count) check-ins"))
        figures.append(
            InsightFigure(
                name: "Sleep quality", value: insights.meanSleepQuality.map { "\(Correlation.decimal($0, places: 1)) of 5" } ?? "—", note: nil))
        return figures
    }

    /// A number to at most one decimal, without a trailing `.0` (`170`, `172.5`): minutes, and chart coordinates.
    public static func short(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : Correlation.decimal(rounded, places: 1)
    }
}
