import DoseApp
import DoseCore
import DoseStore
import Foundation

/// A night's wearable sleep as a hypnogram: one row per stage (awake at the top, deep at the bottom), the doses,
/// events and alarms as markers, and the heart rate as a line beneath. A source of totals (WHOOP's export) has no
/// timeline: its sleep is one band from onset to wake, and its stage minutes are the table.
enum Hypnogram {
    /// The rows, top to bottom; unspecified sleep sits with core, in bed with awake.
    static let rows: [(label: String, stages: Set<SleepStage>)] = [
        ("Awake", [.awake, .inBed]), ("REM", [.rem]), ("Core", [.core, .asleep]), ("Deep", [.deep]),
    ]
    /// The order of a totals bar: sleep from light to deep, then awake.
    static let totals: [SleepStage] = [.core, .asleep, .rem, .deep, .awake, .inBed]

    /// A stage's name in a totals bar's legend, short enough for four on a phone.
    static func shortName(_ stage: SleepStage) -> String {
        switch stage {
        case .core: "Light"
        case .asleep: "Asleep"
        case .rem: "REM"
        case .deep: "Deep"
        case .awake: "Awake"
        case .inBed: "In bed"
        }
    }

    static func chart(_ sleep: NightSleep, session: NightSession, zone: TimeZone, alarms: [(at: Date, label: String)] = []) -> RenderedChart {
        let figures = sleep.figures
        // The axis runs from the earlier of the first stage and Dose 1 (if within three hours of it) to the last stage.
        let dose1 = session.facts.dose1?.occurredAt
        let start =
            dose1.map { $0 < figures.periodStart && figures.periodStart.timeIntervalSince($0) <= 3 * 3600 ? $0 : figures.periodStart }
            ?? figures.periodStart
        let end = figures.periodEnd
        let events = session.events.filter { $0.kind != .checkIn && $0.occurredAt >= start && $0.occurredAt <= end }
        let left = 52.0
        let right = 344.0
        let axis = TimeAxis(start: start, end: end, left: left, right: right)
        let rowHeight = 22.0
        let top = 24.0
        // A source of totals has no stage rows: one row for the sleep's bounds, the time axis, and its stage minutes as a
        // bar beneath, with their names; the chart is as tall as that.
        let stageRows = sleep.spans.isEmpty ? [(label: "Asleep", stages: Set<SleepStage>())] : Self.rows
        let bottom = top + Double(stageRows.count) * rowHeight
        let rates = sleep.heartRate.filter { $0.at >= start && $0.at <= end }
        let heartTop = bottom + 24
        let heartHeight = rates.isEmpty ? -24.0 : 60.0
        let axisY = heartTop + heartHeight + 14
        let barTop = axisY + 40
        var writer = SVGWriter(width: InsightCharts.width, height: sleep.spans.isEmpty ? barTop + 40 : 250)
        for (index, row) in stageRows.enumerated() {
            let y = top + Double(index) * rowHeight
            writer.text(left - 6, y + 15, row.label, anchor: "end")
            writer.line(left, y + rowHeight, right, y + rowHeight, "grid")
        }
        drawStages(&writer, sleep, rows: stageRows, axis: axis, rowTop: top, rowHeight: rowHeight, zone: zone, totalsTop: barTop)
        drawMarks(&writer, alarms: alarms, events: events, axis: axis, top: top, bottom: bottom, zone: zone)
        drawHeartRate(&writer, rates, axis: axis, top: heartTop, height: heartHeight)
        drawHours(&writer, axis: axis, y: axisY, zone: zone)
        var description = SleepText.sentence(figures, zone: zone)
        if let vitals = SleepText.vitals(sleep) { description += " " + vitals }
        if !alarms.isEmpty { description += " Alarms are the squares at the top." }
        let rows = tableRows(sleep, zone: zone)
        return writer.chart(
            id: "hypnogram-\(session.id.rawValue.prefix(8))", title: "Sleep stages, night of \(session.date)", description: description,
            kind: "hypnogram",
            table: ChartTable(caption: "Sleep stages of the night of \(session.date)", headers: ["Time", "Stage", "Minutes", "Source"], rows: rows))
    }

    /// Each measured stage as a bar in its row, with its times and source; for a source of totals, one band from onset to
    /// wake and the stage minutes as a bar beneath (`drawStageTotals`), no stage placed where it was not measured.
    static func drawStages(
        _ writer: inout SVGWriter, _ sleep: NightSleep, rows: [(label: String, stages: Set<SleepStage>)], axis: TimeAxis, rowTop: Double,
        rowHeight: Double, zone: TimeZone, totalsTop: Double
    ) {
        let figures = sleep.figures
        for spanItem in sleep.spans {
            guard let row = rows.firstIndex(where: { $0.stages.contains(spanItem.stage) }) else { continue }
            let y = rowTop + Double(row) * rowHeight + 3
            let from = LocalClock.hourMinute(spanItem.start, in: zone)
            let to = LocalClock.hourMinute(spanItem.end, in: zone)
            writer.rect(
                axis.x(spanItem.start), y, max(1, axis.x(spanItem.end) - axis.x(spanItem.start)), rowHeight - 6,
                "stage stage-\(spanItem.stage.rawValue)",
                title: "\(spanItem.stage.rawValue.replacingOccurrences(of: "_", with: " ")) \(from)–\(to) (\(spanItem.source))")
        }
        guard sleep.spans.isEmpty else { return }
        writer.rect(
            axis.x(figures.periodStart), rowTop + 3, max(1, axis.x(figures.periodEnd) - axis.x(figures.periodStart)),
            Double(rows.count) * rowHeight - 6, "stage stage-totals",
            title:
                "\(figures.sources.joined(separator: ", ")) "
                + "\(LocalClock.hourMinute(figures.periodStart, in: zone))–\(LocalClock.hourMinute(figures.periodEnd, in: zone)): stage "
                + "totals only"
        )
        drawStageTotals(&writer, figures, left: axis.left, right: axis.right, top: totalsTop)
    }

    /// A source of totals: the stage minutes as one bar, in proportion to each other, not placed in time.
    static func drawStageTotals(_ writer: inout SVGWriter, _ figures: SleepFigures, left: Double, right: Double, top: Double) {
        let parts = totals.map { (stage: $0, minutes: figures.stageMinutes[$0] ?? 0) }.filter { $0.minutes > 0 }
        let whole = parts.reduce(0) { $0 + $1.minutes }
        guard whole > 0 else { return }
        writer.text(left, top - 6, "Stage totals, minutes (not times)")
        var at = left
        for part in parts {
            let width = part.minutes / whole * (right - left)
            writer.rect(
                at, top, width, 14, "stage stage-\(part.stage.rawValue)", title: "\(SleepText.name(part.stage)) \(Int(part.minutes.rounded())) min")
            at += width
        }
        writer.text(left, top + 30, parts.map { "\(shortName($0.stage)) \(Int($0.minutes.rounded()))" }.joined(separator: " · "))
    }

    /// The alarms as squares at the top, the doses as lines through the stages, and other events as dots beneath.
    static func drawMarks(
        _ writer: inout SVGWriter, alarms: [(at: Date, label: String)], events: [NightEvent], axis: TimeAxis, top: Double, bottom: Double,
        zone: TimeZone
    ) {
        for alarm in alarms where alarm.at >= axis.start && alarm.at <= axis.end {
            let position = axis.x(alarm.at)
            writer.line(position, top - 14, position, bottom, "alarm")
            writer.rect(position - 3.5, top - 18, 7, 7, "alarm-mark", title: "\(alarm.label) at \(LocalClock.hourMinute(alarm.at, in: zone))")
        }
        for event in events {
            let position = axis.x(event.occurredAt)
            let time = LocalClock.hourMinute(event.occurredAt, in: zone)
            if event.kind.isOxybateDose {
                writer.line(position, top - 8, position, bottom, "dose")
                writer.circle(position, top - 8, 4, "dose-mark", title: "\(event.kind.label) at \(time)")
            } else {
                writer.circle(position, bottom + 4, 3, "event-mark", title: "\(event.label) at \(time)")
            }
        }
    }

    /// The heart rate beneath, scaled to its own range; no room is kept for it when none was measured.
    static func drawHeartRate(_ writer: inout SVGWriter, _ rates: [(at: Date, beatsPerMinute: Double)], axis: TimeAxis, top: Double, height: Double) {
        guard let low = rates.map(\.beatsPerMinute).min(), let high = rates.map(\.beatsPerMinute).max() else { return }
        let range = max(10, high - low)
        writer.polyline(rates.map { (axis.x($0.at), top + height - ($0.beatsPerMinute - low) / range * height) }, "heart")
        writer.text(axis.left - 6, top + 8, "\(Int(high.rounded()))", anchor: "end")
        writer.text(axis.left - 6, top + height, "\(Int(low.rounded()))", anchor: "end")
        writer.text(axis.left, top - 6, "Heart rate (bpm)")
    }

    /// The hours under the chart.
    static func drawHours(_ writer: inout SVGWriter, axis: TimeAxis, y: Double, zone: TimeZone) {
        for tick in axis.hours(in: zone) {
            writer.line(axis.x(tick), y - 6, axis.x(tick), y, "axis")
            writer.text(axis.x(tick), y + 12, LocalClock.hourMinute(tick, in: zone), anchor: "middle")
        }
    }

    /// The chart's table: each stage span, or for a source of totals each stage's minutes over the whole sleep.
    static func tableRows(_ sleep: NightSleep, zone: TimeZone) -> [[String]] {
        let figures = sleep.figures
        guard !sleep.spans.isEmpty else {
            let whole = "\(LocalClock.hourMinute(figures.periodStart, in: zone))–\(LocalClock.hourMinute(figures.periodEnd, in: zone))"
            return [SleepStage.core, .deep, .rem, .awake, .asleep, .inBed].compactMap { stage -> [String]? in
                let minutes = figures.stageMinutes[stage] ?? 0
                guard minutes > 0 || [.core, .deep, .rem, .awake].contains(stage) else { return nil }
                return [whole + " (in total)", SleepText.name(stage), NumberText.tenths(minutes), figures.sources.joined(separator: ", ")]
            }
        }
        return sleep.spans.map { span in
            [
                "\(LocalClock.hourMinute(span.start, in: zone))–\(LocalClock.hourMinute(span.end, in: zone))", SleepText.name(span.stage),
                NumberText.tenths(span.minutes), span.source,
            ]
        }
    }
}
