import DoseApp
import DoseCore
import Foundation

/// The Insights page's and the report's charts, drawn on the server: axes with units, the label's Dose 2 window, the target
/// line and a legend, each with a title, a description and a table of the same numbers.
enum InsightCharts {
    /// The plot's frame inside a 360-unit-wide chart: readable at 390 px without scaling text below 10 px.
    static let width = 360.0
    static let left = 44.0
    static let right = 350.0

    /// Whole days from `start` to `date` (negative before).
    static func days(from start: SessionKey, to date: SessionKey) -> Int {
        func noon(_ key: SessionKey) -> Double {
            let calendar = LocalClock.calendar(TimeZone(secondsFromGMT: 0)!)
            return calendar.date(from: DateComponents(year: key.year, month: key.month, day: key.day, hour: 12))!.timeIntervalSince1970
        }
        return Int(((noon(date) - noon(start)) / 86_400).rounded())
    }

    /// The x of a night in the period, at the middle of its day's slot.
    static func x(_ date: SessionKey, in period: InsightsPeriod) -> Double {
        let span = Double(days(from: period.from, to: period.to) + 1)
        return left + (Double(days(from: period.from, to: date)) + 0.5) * (right - left) / span
    }

    /// Date labels under the x axis: the first, middle and last nights of the period.
    static func dateAxis(_ writer: inout SVGWriter, period: InsightsPeriod, y: Double) {
        let span = days(from: period.from, to: period.to)
        let middle = period.from.adding(days: span / 2)
        writer.text(left, y, period.from.description)
        if span >= 4 { writer.text((left + right) / 2, y, middle.description, anchor: "middle") }
        if span >= 1 { writer.text(right, y, period.to.description, anchor: "end") }
    }

    // MARK: Interval per night

    static let intervalFloor = 120.0
    static let intervalCeiling = 270.0

    /// Dose 1 → Dose 2 minutes per night against the label's Dose 2 window and the target, with the 7-night mean.
    static func interval(_ insights: Insights) -> RenderedChart {
        let adherence = insights.adherence
        let period = insights.period
        var writer = SVGWriter(width: width, height: 232)
        let top = 20.0
        let bottom = 176.0
        func y(_ minutes: Double) -> Double {
            let clamped = min(max(minutes, intervalFloor), intervalCeiling)
            return bottom - (clamped - intervalFloor) / (intervalCeiling - intervalFloor) * (bottom - top)
        }
        // Every night in these figures is twice nightly, in the label's window (once-nightly nights have no interval).
        let window = DoseWindow.label
        let (opens, closes) = (Double(window.opensAfterMinutes), Double(window.closesAfterMinutes))
        writer.rect(left, y(closes), right - left, y(opens) - y(closes), "band")
        for tick in stride(from: 120, through: 270, by: 30) {
            writer.line(left - 4, y(Double(tick)), right, y(Double(tick)), Double(tick) == opens || Double(tick) == closes ? "edge" : "grid")
            writer.text(left - 6, y(Double(tick)) + 4, String(tick), anchor: "end")
        }
        writer.line(left, y(Double(adherence.targetMinutes)), right, y(Double(adherence.targetMinutes)), "target")
        writer.line(left, bottom, right, bottom, "axis")
        writer.line(left, top, left, bottom, "axis")
        writer.text(left, top - 8, "minutes after Dose 1", className: "unit")
        let span = Double(days(from: period.from, to: period.to) + 1)
        let radius = max(1.6, min(4.5, (right - left) / span / 2.2))
        for night in adherence.nights {
            let x = x(night.date, in: period)
            if let minutes = night.intervalMinutes {
                writer.circle(
                    x, y(Double(minutes)), radius, "dose2 \(night.timing.rawValue)", title: "\(night.date): \(minutes) min, \(words(night.timing))")
            } else if night.timing == .skipped || night.timing == .sleptThrough {
                writer.cross(x, bottom - 5, min(radius, 3.5), "missed", title: "\(night.date): \(words(night.timing))")
            }
        }
        writer.polyline(adherence.rollingMean7.map { (x($0.date, in: period), y($0.minutes)) }, "mean")
        dateAxis(&writer, period: period, y: 192)
        // The legend, one row under the axis; each item starts where the last one's text ends (about 6 units a letter).
        var legendX = 8.0
        func item(_ label: String, draw: (inout SVGWriter, Double) -> Void) {
            draw(&writer, legendX)
            writer.text(legendX + 19, 215, label)
            legendX += 19 + Double(label.count) * 6 + 10
        }
        item("window \(RegimenWords.minutes(window))") { writer, x in writer.rect(x, 206, 15, 10, "band") }
        item("target \(adherence.targetMinutes)") { writer, x in writer.line(x, 211, x + 15, 211, "target") }
        item("Dose 2") { writer, x in writer.circle(x + 7, 211, 3.5, "dose2 on_target") }
        item("none") { writer, x in writer.cross(x + 7, 211, 3.5, "missed") }
        if !adherence.rollingMean7.isEmpty {
            writer.line(8, 226, 23, 226, "mean")
            writer.text(27, 229, "7-night mean")
        }
        let median = adherence.medianInterval.map { "median \(InsightFigure.short($0)) min" } ?? "no Dose 2 yet"
        let description =
            "\(period.label): \(adherence.intervals.count) nights with Dose 2, \(median), against a target of \(adherence.targetMinutes) min "
            + "and \(RegimenWords.windowPhrase(window))."
        let rows = adherence.nights.map { night in
            [night.date.description, night.intervalMinutes.map { "\($0) min" } ?? "—", words(night.timing)]
        }
        return writer.chart(
            id: "interval-chart", title: "Dose 1 → Dose 2 interval per night", description: description, kind: "interval",
            table: ChartTable(caption: "Interval per night", headers: ["Night", "Interval", "Dose 2"], rows: rows))
    }

    /// How a night's Dose 2 went, in words (D18).
    static func words(_ timing: DoseTiming) -> String { timing.words }

    /// A one-letter mark for the calendar, so it reads without colour.
    static func mark(_ timing: DoseTiming) -> String {
        switch timing {
        case .onTarget: "✓"
        case .inWindow: "W"
        case .early: "E!"
        case .late: "L!"
        case .skipped: "S"
        case .sleptThrough: "Z"
        case .undecided: "·"
        case .endedWithoutDose2: "X"
        case .oneDose: "1"
        }
    }

    // MARK: On-time calendar

    /// Weeks the calendar draws at most; longer periods show their latest weeks (the table has every night).
    static let calendarWeeks = 27

    /// The on-time calendar: one row per week (Monday first), each night marked and shaded by how Dose 2 went.
    static func calendar(_ insights: Insights) -> RenderedChart {
        let period = insights.period
        let byDate = Dictionary(insights.adherence.nights.map { ($0.date, $0) }, uniquingKeysWith: { $1 })
        // Monday of the first week shown.
        let lastMonday = period.to.adding(days: -weekday(period.to))
        let firstMonday = max(period.from.adding(days: -weekday(period.from)), lastMonday.adding(days: -7 * (calendarWeeks - 1)))
        let weeks = days(from: firstMonday, to: lastMonday) / 7 + 1
        let cell = 38.0
        let labelWidth = 78.0
        let top = 20.0
        var writer = SVGWriter(width: width, height: top + Double(weeks) * 30 + 72)
        for (index, day) in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated() {
            writer.text(labelWidth + Double(index) * cell + cell / 2, 13, day, anchor: "middle")
        }
        for week in 0..<weeks {
            let monday = firstMonday.adding(days: week * 7)
            let rowY = top + Double(week) * 30
            writer.text(labelWidth - 6, rowY + 18, monday.description, anchor: "end")
            for offset in 0..<7 {
                let date = monday.adding(days: offset)
                guard period.contains(date) else { continue }
                let x = labelWidth + Double(offset) * cell
                if let night = byDate[date] {
                    writer.rect(x + 2, rowY + 2, cell - 4, 26, "day \(night.timing.rawValue)", title: "\(date): \(words(night.timing))")
                    writer.text(x + cell / 2, rowY + 20, mark(night.timing), anchor: "middle", className: "mark \(night.timing.rawValue)")
                } else {
                    writer.rect(x + 2, rowY + 2, cell - 4, 26, "day none", title: "\(date): no Dose 1 recorded")
                }
            }
        }
        let legendY = top + Double(weeks) * 30 + 16
        let legend: [(DoseTiming?, String)] = [
            (.onTarget, "on target"), (.inWindow, "in window"), (.early, "early"), (.late, "late"), (.skipped, "skipped"),
            (.sleptThrough, "slept through"), (nil, "none"),
        ]
        for (index, item) in legend.enumerated() {
            let x = 4 + Double(index % 3) * 118
            let y = legendY + Double(index / 3) * 20
            writer.rect(x, y - 11, 18, 15, "day \(item.0?.rawValue ?? "none")")
            if let timing = item.0 { writer.text(x + 9, y, mark(timing), anchor: "middle", className: "mark \(timing.rawValue)") }
            writer.text(x + 23, y, item.1)
        }
        let shown = weeks * 7 < days(from: period.from, to: period.to) + 1 ? " The latest \(weeks) weeks are drawn; the table lists every night." : ""
        let adherence = insights.adherence
        let onTarget = adherence.percent(.onTarget).map { "\(InsightFigure.short($0))% on target" } ?? "no nights decided"
        let outside = adherence.count(.early) + adherence.count(.late)
        let warning = outside == 0 ? "" : " \(outside) \(outside == 1 ? "night" : "nights") outside the window (early or late)."
        let description =
            "\(period.label): \(onTarget) (\(adherence.count(.onTarget)) of \(adherence.decided) nights; on target is within 10 minutes of the "
            + "target, "
            + "in window the rest of \(RegimenWords.minutes(.label)) minutes).\(warning)\(shown)"
        let rows = adherence.nights.map { [$0.date.description, words($0.timing)] }
        return writer.chart(
            id: "calendar-chart", title: "Dose 2 calendar", description: description, kind: "calendar",
            table: ChartTable(caption: "How Dose 2 went each night", headers: ["Night", "Dose 2"], rows: rows))
    }

    /// 0 for Monday … 6 for Sunday.
    static func weekday(_ date: SessionKey) -> Int {
        // 2024-01-01 was a Monday.
        let monday = SessionKey(year: 2024, month: 1, day: 1)!
        return ((days(from: monday, to: date) % 7) + 7) % 7
    }

    // MARK: Wellness

    /// The morning check-in's wellness score (0–100) over the period, with its mean.
    static func wellness(_ insights: Insights) -> RenderedChart {
        let period = insights.period
        var writer = SVGWriter(width: width, height: 216)
        let top = 20.0
        let bottom = 166.0
        func y(_ score: Double) -> Double { bottom - score / 100 * (bottom - top) }
        for tick in stride(from: 0, through: 100, by: 25) {
            writer.line(left - 4, y(Double(tick)), right, y(Double(tick)), "grid")
            writer.text(left - 6, y(Double(tick)) + 4, String(tick), anchor: "end")
        }
        writer.line(left, bottom, right, bottom, "axis")
        writer.line(left, top, left, bottom, "axis")
        writer.text(left, top - 8, "wellness score", className: "unit")
        let points = insights.mornings.map { (x($0.date, in: period), y(Double($0.wellness))) }
        writer.polyline(points, "wellness")
        for (morning, point) in zip(insights.mornings, points) {
            writer.circle(
                point.0, point.1, 3, "wellness-point",
                title: "\(morning.date): wellness \(morning.wellness), sleep quality \(morning.sleepQuality) of 5")
        }
        if let mean = insights.meanWellness { writer.line(left, y(Double(mean)), right, y(Double(mean)), "target") }
        dateAxis(&writer, period: period, y: 182)
        writer.line(left, 201, left + 16, 201, "wellness")
        writer.circle(left + 8, 201, 3, "wellness-point")
        writer.text(left + 22, 205, "wellness (0–100)")
        if let mean = insights.meanWellness {
            writer.line(180, 201, 198, 201, "target")
            writer.text(202, 205, "mean \(mean)")
        }
        let description =
            insights.mornings.isEmpty
            ? "\(period.label): no morning check-ins."
            : "\(period.label): \(insights.mornings.count) check-ins, mean wellness \(insights.meanWellness ?? 0) of 100, mean sleep quality "
                + "\(insights.meanSleepQuality.map { InsightFigure.short($0) } ?? "—") of 5."
        let rows = insights.mornings.map { [$0.date.description, String($0.wellness), "\($0.sleepQuality) of 5"] }
        return writer.chart(
            id: "wellness-chart", title: "Wellness over time", description: description, kind: "wellness",
            table: ChartTable(caption: "Morning check-ins", headers: ["Night", "Wellness", "Sleep quality"], rows: rows))
    }
}
