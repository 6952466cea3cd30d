import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseServer

/// The key-path tables the templates read hot view values through must match the values' stored properties: a field
/// missing from a table would render empty (Mustache would look past it), silently.
@Suite("Mustache field tables")
struct MustacheFieldsTests {
    /// Each table's names against the type's own stored properties, and each value through the table against the value
    /// reflection gives.
    static func check<Value: MustacheFields>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) {
        let children = Mirror(reflecting: value).children.compactMap { child in child.label.map { ($0, child.value) } }
        #expect(Set(Value.mustacheFields.keys) == Set(children.map(\.0)), "\(Value.self)", sourceLocation: sourceLocation)
        for (name, reflected) in children {
            let expected = Self.unwrapped(reflected).map { String(describing: $0) }
            let read = value.child(named: name).map { String(describing: $0) }
            #expect(read == expected, "\(Value.self).\(name)", sourceLocation: sourceLocation)
        }
        #expect(value.child(named: "no_such_field") == nil, sourceLocation: sourceLocation)
    }

    /// The value inside an optional (nil when absent), as Mustache should see it; any other value as it is.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map(\.value)
    }

    @Test("chart elements, tables, charts and the report's view read the same through their tables as by reflection")
    func tablesMatch() throws {
        var element = SVGElement(circle: true, className: "dot", cx: "10", cy: "20", r: "3")
        element.tooltip = "2026-11-21: 180 min"
        Self.check(element)
        Self.check(SVGElement(line: true, x1: "0", y1: "1", x2: "2", y2: "3"))
        let table = ChartTable(caption: "Interval per night", headers: ["Night", "Minutes"], rows: [["2026-11-21", "180"]])
        Self.check(table)
        Self.check(table.rows[0])
        let chart = RenderedChart(
            id: "c", title: "Interval", description: "The interval", kind: "interval", width: "360", height: "200", elements: [element], table: table)
        Self.check(chart)

        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 9, 0))
        let (result, rows) = try fixture.environment.useCases().insights.report(nights: 7) { record, result in
            ReportView.row(record, targetMinutes: result.settings.targetIntervalMinutes)
        }
        let view = ReportView(
            result, nights: rows, paper: .a4, generatedAt: WallClock.date(2026, 11, 22, 9, 0), zone: TimeZone(identifier: "America/New_York")!)
        Self.check(view)
        Self.check(
            ReportView.NightRow(
                date: "2026-11-21", dose1: "22:30", dose2: "01:30", interval: "180", timing: "in window", taken: "2.25 g + 2.25 g", flags: "",
                events: "",
                checkIn: "—", sleep: "7 h asleep, deep 1 h 35 min, awake 45 min (WHOOP)", warning: false))
    }
}
