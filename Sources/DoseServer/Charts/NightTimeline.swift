import DoseApp
import DoseCore
import DoseStore
import Foundation

/// One night on a time axis: the doses, the night's window and the target after Dose 1 (twice nightly), the logged events
/// and the naps.
enum NightTimeline {
    /// The timeline of `session`, in `zone`; nil for a night with no events.
    static func chart(_ session: NightSession, naps: [NapInterval], targetMinutes: Int, zone: TimeZone) -> RenderedChart? {
        let events = session.events.filter { $0.kind != .checkIn }.sorted { $0.occurredAt < $1.occurredAt }
        guard let first = events.first else { return nil }
        let facts = session.facts
        let dose1 = facts.dose1?.occurredAt
        var start = first.occurredAt
        var end = events.last!.occurredAt
        let window = facts.window
        if let dose1, let window { end = max(end, window.closes(after: dose1)) }
        for nap in naps { end = max(end, nap.end ?? nap.start) }
        start = start.addingTimeInterval(-15 * 60)
        end = end.addingTimeInterval(15 * 60)
        let left = 16.0
        let right = 344.0
        let axis = TimeAxis(start: start, end: end, left: left, right: right)
        func x(_ instant: Date) -> Double { axis.x(instant) }

        var writer = SVGWriter(width: InsightCharts.width, height: 200)
        let axisY = 120.0
        if let dose1, let window {
            let opens = window.opens(after: dose1)
            let closes = window.closes(after: dose1)
            writer.rect(
                x(opens), 20, x(closes) - x(opens), axisY - 20, "band",
                title: "Window \(LocalClock.hourMinute(opens, in: zone))–\(LocalClock.hourMinute(closes, in: zone))")
            let target = dose1.addingTimeInterval(Double((facts.regimen?.targetMinutes ?? targetMinutes) * 60))
            writer.line(x(target), 20, x(target), axisY, "target")
        }
        for nap in naps {
            let napEnd = nap.end ?? nap.start.addingTimeInterval(60)
            writer.rect(
                x(nap.start), axisY - 14, max(3, x(napEnd) - x(nap.start)), 10, "nap", title: "Nap \(LocalClock.hourMinute(nap.start, in: zone))")
        }
        writer.line(left, axisY, right, axisY, "axis")
        // Hour ticks on the local clock.
        for tick in axis.hours(in: zone) {
            writer.line(x(tick), axisY, x(tick), axisY + 5, "axis")
            writer.text(x(tick), axisY + 18, LocalClock.hourMinute(tick, in: zone), anchor: "middle")
        }
        drawEvents(&writer, events, axis: axis, axisY: axisY, zone: zone)
        drawLegend(&writer, left: left, zone: zone)
        let rows = events.map { [LocalClock.hourMinute($0.occurredAt, in: zone), $0.label] }
        let description =
            "\(events.count) events from \(LocalClock.hourMinute(first.occurredAt, in: zone)) to "
            + "\(LocalClock.hourMinute(events.last!.occurredAt, in: zone))"
            + (dose1.map { ", Dose 1 at \(LocalClock.hourMinute($0, in: zone))" } ?? "") + (naps.isEmpty ? "" : ", \(naps.count) nap(s)") + "."
        return writer.chart(
            id: "timeline-\(session.id.rawValue.prefix(8))", title: "Night of \(session.date)", description: description, kind: "timeline",
            table: ChartTable(caption: "Events of the night of \(session.date)", headers: ["Time", "Event"], rows: rows))
    }

    /// Doses stand tall; a skip is a short dashed mark; other events are short ticks, staggered so close ones do not
    /// overlap.
    static func drawEvents(_ writer: inout SVGWriter, _ events: [NightEvent], axis: TimeAxis, axisY: Double, zone: TimeZone) {
        var lane = 0
        var lastX = -100.0
        // A dose close after a labelled one (an extra minutes after Dose 2) keeps its mark and its title, not a label
        // written over the other's; the table under the chart lists each.
        var lastDoseLabelX = -100.0
        for event in events {
            let position = axis.x(event.occurredAt)
            let time = LocalClock.hourMinute(event.occurredAt, in: zone)
            let label = event.label
            let anchor = position > 290 ? "end" : position < 60 ? "start" : "middle"
            if event.kind.isOxybateDose {
                writer.line(position, 20, position, axisY, "dose")
                writer.circle(position, 20, 5, "dose-mark", title: "\(label) at \(time)")
                if position - lastDoseLabelX >= 60 {
                    writer.text(position, 12, event.kind.label, anchor: anchor, className: "dose-label")
                    lastDoseLabelX = position
                }
            } else if event.kind == .dose2Skipped {
                // A skip or the expiry is no dose (D18): a short dashed mark with a hollow end, never the dose spike.
                writer.line(position, 44, position, axisY, "skip")
                writer.circle(position, 44, 4, "skip-mark", title: "\(label) at \(time)")
                writer.text(position, 36, label.hasPrefix("Slept") ? "Slept through" : "Skipped", anchor: anchor, className: "dose-label")
            } else {
                lane = position - lastX < 40 ? (lane + 1) % 3 : 0
                lastX = position
                let top = axisY - 22 - Double(lane) * 22
                writer.line(position, top, position, axisY, "event")
                writer.circle(position, top, 3, "event-mark", title: "\(label) at \(time)")
            }
        }
    }

    /// The zone the times are in, and what each mark means.
    static func drawLegend(_ writer: inout SVGWriter, left: Double, zone: TimeZone) {
        writer.text(left, 160, "Times in \(zone.identifier)")
        writer.rect(left, 172, 14, 10, "band")
        writer.text(left + 18, 181, "window")
        writer.line(84, 177, 100, 177, "target")
        writer.text(104, 181, "target")
        writer.line(152, 170, 152, 184, "dose")
        writer.text(158, 181, "dose")
        writer.circle(198, 177, 3, "event-mark")
        writer.text(205, 181, "event")
        writer.rect(250, 172, 14, 10, "nap")
        writer.text(268, 181, "nap")
    }
}
