import DoseApp
import DoseCore
import Foundation

/// A table of the values a chart plots, for screen readers and print.
struct ChartTable: Sendable {
    struct Row: Sendable {
        /// The row's header cell (the night, the time).
        let label: String
        let cells: [String]
    }

    let caption: String
    let headers: [String]
    let rows: [Row]

    init(caption: String, headers: [String], rows: [[String]]) {
        self.caption = caption
        self.headers = headers
        self.rows = rows.map { Row(label: $0.first ?? "", cells: Array($0.dropFirst())) }
    }
}

/// One SVG element as the `chart` template draws it; exactly one of the kind flags is set. Plain values only: the
/// template escapes them, so a chart never carries markup of its own.
struct SVGElement: Sendable {
    var line = false
    var rect = false
    var circle = false
    var path = false
    var polyline = false
    var text = false
    var className = ""
    var x1 = "", y1 = "", x2 = "", y2 = ""
    var x = "", y = "", width = "", height = ""
    var cx = "", cy = "", r = ""
    var d = "", points = ""
    var anchor = "start"
    var content = ""
    /// A tooltip (`<title>` child): the value under the pointer.
    var tooltip: String?
}

/// A chart ready for the `chart` template: the drawing with its title and description, and its table.
struct RenderedChart: Sendable {
    /// The element id prefix (`interval-chart`).
    let id: String
    /// The chart's heading and SVG title.
    let title: String
    /// What the chart shows in one or two sentences (the SVG `<desc>`).
    let description: String
    /// The SVG's class after `chart`.
    let kind: String
    let width: String
    let height: String
    let elements: [SVGElement]
    let table: ChartTable
}

/// Collects a chart's elements.
struct SVGWriter {
    private(set) var elements: [SVGElement] = []
    let width: Double
    let height: Double

    private func n(_ value: Double) -> String { InsightFigure.short(value) }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ className: String) {
        elements.append(SVGElement(line: true, className: className, x1: n(x1), y1: n(y1), x2: n(x2), y2: n(y2)))
    }

    mutating func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, _ className: String, title: String? = nil) {
        elements.append(
            SVGElement(rect: true, className: className, x: n(x), y: n(y), width: n(max(0, width)), height: n(max(0, height)), tooltip: title))
    }

    mutating func circle(_ x: Double, _ y: Double, _ radius: Double, _ className: String, title: String? = nil) {
        elements.append(SVGElement(circle: true, className: className, cx: n(x), cy: n(y), r: n(radius), tooltip: title))
    }

    /// A small × (a night without Dose 2).
    mutating func cross(_ x: Double, _ y: Double, _ size: Double, _ className: String, title: String? = nil) {
        let d = "M\(n(x - size)) \(n(y - size))L\(n(x + size)) \(n(y + size))M\(n(x - size)) \(n(y + size))L\(n(x + size)) \(n(y - size))"
        elements.append(SVGElement(path: true, className: className, d: d, tooltip: title))
    }

    mutating func polyline(_ points: [(Double, Double)], _ className: String) {
        guard points.count > 1 else { return }
        elements.append(SVGElement(polyline: true, className: className, points: points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")))
    }

    mutating func text(_ x: Double, _ y: Double, _ text: String, anchor: String = "start", className: String = "label") {
        elements.append(SVGElement(text: true, className: className, x: n(x), y: n(y), anchor: anchor, content: text))
    }

    /// The finished chart.
    func chart(id: String, title: String, description: String, kind: String, table: ChartTable) -> RenderedChart {
        RenderedChart(
            id: id, title: title, description: description, kind: kind, width: n(width), height: n(height), elements: elements, table: table)
    }
}

/// A night's time axis on a chart: where an instant falls between `left` and `right`, and the local hours to mark.
struct TimeAxis {
    let start, end: Date
    let left, right: Double
    var span: TimeInterval { max(60, end.timeIntervalSince(start)) }

    /// The horizontal position of an instant.
    func x(_ instant: Date) -> Double { left + instant.timeIntervalSince(start) / span * (right - left) }

    /// The whole local hours within the axis: every hour, every second one for a night over 8 hours.
    func hours(in zone: TimeZone) -> [Date] {
        let calendar = LocalClock.calendar(zone)
        var tick = calendar.nextDate(after: start, matching: DateComponents(minute: 0), matchingPolicy: .nextTime) ?? end
        let step = span > 8 * 3600 ? 2 : 1
        var ticks: [Date] = []
        while tick < end {
            ticks.append(tick)
            tick = calendar.date(byAdding: .hour, value: step, to: tick) ?? end
        }
        return ticks
    }
}
