import Mustache

/// Field names to key paths.
typealias MustacheFieldTable<Root> = [String: any PartialKeyPath<Root> & Sendable]

/// A view value the templates render thousands of times (chart elements, table rows): Mustache reads its fields through
/// a table of key paths instead of reflecting the whole value for every tag, which was three quarters of the time of a
/// ten-year report. `MustacheFieldsTests` checks each table names every stored property and nothing else.
protocol MustacheFields: MustacheParent {
    /// Every stored property by the name the templates use (its Swift name).
    static var mustacheFields: MustacheFieldTable<Self> { get }
}

extension MustacheFields {
    /// The field's value, an absent optional as nil so Mustache looks further up the context (as it does by reflection).
    func child(named name: String) -> Any? {
        guard let path = Self.mustacheFields[name] else { return nil }
        let value = self[keyPath: path]
        if let optional = value as? any OptionalField { return optional.wrappedField }
        return value
    }
}

/// An optional, seen through `Any`.
private protocol OptionalField {
    var wrappedField: Any? { get }
}

extension Optional: OptionalField {
    fileprivate var wrappedField: Any? { self.map { $0 as Any } }
}

extension SVGElement: MustacheFields {
    static let mustacheFields: MustacheFieldTable<SVGElement> = [
        "line": \.line, "rect": \.rect, "circle": \.circle, "path": \.path, "polyline": \.polyline, "text": \.text,
        "className": \.className, "x1": \.x1, "y1": \.y1, "x2": \.x2, "y2": \.y2, "x": \.x, "y": \.y, "width": \.width,
        "height": \.height, "cx": \.cx, "cy": \.cy, "r": \.r, "d": \.d, "points": \.points, "anchor": \.anchor,
        "content": \.content, "tooltip": \.tooltip,
    ]
}

extension ChartTable.Row: MustacheFields {
    static let mustacheFields: MustacheFieldTable<ChartTable.Row> = ["label": \.label, "cells": \.cells]
}

extension ChartTable: MustacheFields {
    static let mustacheFields: MustacheFieldTable<ChartTable> = ["caption": \.caption, "headers": \.headers, "rows": \.rows]
}

extension RenderedChart: MustacheFields {
    static let mustacheFields: MustacheFieldTable<RenderedChart> = [
        "id": \.id, "title": \.title, "description": \.description, "kind": \.kind, "width": \.width, "height": \.height,
        "elements": \.elements, "table": \.table,
    ]
}

extension ReportView.NightRow: MustacheFields {
    static let mustacheFields: MustacheFieldTable<ReportView.NightRow> = [
        "date": \.date, "dose1": \.dose1, "dose2": \.dose2, "interval": \.interval, "timing": \.timing, "taken": \.taken,
        "warning": \.warning, "flags": \.flags, "events": \.events, "checkIn": \.checkIn, "sleep": \.sleep,
    ]
}

extension ReportView: MustacheFields {
    static let mustacheFields: MustacheFieldTable<ReportView> = [
        "paperSize": \.paperSize, "paperName": \.paperName, "period": \.period, "generated": \.generated, "regimen": \.regimen,
        "figures": \.figures, "charts": \.charts, "nights": \.nights, "hasNights": \.hasNights, "medications": \.medications,
        "hasMedications": \.hasMedications, "notable": \.notable, "hasNotable": \.hasNotable, "correlations": \.correlations,
        "hasCorrelations": \.hasCorrelations, "caveat": \.caveat, "disclaimer": \.disclaimer, "insufficient": \.insufficient,
    ]
}
