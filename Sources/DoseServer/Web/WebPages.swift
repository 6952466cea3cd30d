import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Server-rendered pages of the night-first web UI (SPEC §5.4). Every action is a plain form post, so the core works
/// without JavaScript; the script only adds the live countdown, alarms, announcements and dialogs.
enum WebPages {
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    static func errorPage(_ error: DoseError) -> Response {
        let body: String
        if error.code == .deviceNotRegistered {
            body = "<h1>Not paired</h1><p class=\"notice\">This browser is not paired with DoseTap. Open the pairing link that <code>dosetap serve</code> printed, on this device.</p>"
        } else {
            body = "<h1>Not done</h1><p class=\"notice\" role=\"alert\">\(HTML.escape(error.message))</p><p><a class=\"button\" href=\"/\">Back to Tonight</a></p>"
        }
        return html(HTML.page(title: "DoseTap", current: "", body: body), status: HTTPResponse.Status(code: error.httpStatus))
    }

    static func clock(_ date: Date?, _ zone: TimeZone) -> String { date.map { LocalClock.hourMinute($0, in: zone) } ?? "—" }

    /// The sentence a confirmation dialog shows: the risk, in plain words.
    static func risk(of error: DoseError, now: Date) -> String? {
        switch error {
        case .windowNotOpen(let minutes, _, let local):
            return "Dose 2 opens at \(local), in \(minutes) minutes. Taking it early is unsafe."
        case .windowExceeded(_, let local, let late):
            return "The Dose 2 window closed at \(local), \(late) minutes ago. Taking Dose 2 this late can leave you drowsy into the day."
        case .alreadyTaken(_, _, let local, .extra?):
            return "Dose 2 was already taken at \(local). Another dose tonight is an extra dose and can be dangerous."
        case .dose2Skipped(_, let local, _):
            return "Dose 2 was skipped at \(local). Taking it now reverses that decision."
        default:
            return nil
        }
    }

    /// Tonight: the ring, the one primary action, snooze, skip, the quick-log grid, wake-up.
    static func tonight(_ snapshot: StatusSnapshot, csrf: String, undo: (label: String, until: Date)?, now: Date, outages: [ServerOutage] = []) -> String {
        let status = snapshot.status
        let zone = snapshot.timeZone
        var body = "<div id=\"reminder-banner\" class=\"notice\" role=\"alert\" hidden></div>"
        body += "<h1>\(HTML.escape(status.phase.label))</h1>"
        body += ring(status, zone: zone, now: now)
        if let dose1 = status.dose1At {
            body += "<p class=\"times\">Dose 1 \(clock(dose1, zone)) · window \(clock(status.windowOpensAt, zone))–\(clock(status.windowClosesAt, zone)) · target \(clock(status.targetAt, zone))</p>"
        } else {
            body += "<p class=\"times\">Take Dose 1 at bedtime; Dose 2 follows 2½–4 hours later.</p>"
        }
        body += primary(status, zone: zone, csrf: csrf)
        if status.dose1At != nil, status.dose2At == nil, !status.dose2Skipped, status.phase < .finalizing {
            body += "<div class=\"row\">"
            body += status.canSnooze
                ? HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", "snooze")], button: "Snooze 10 min (\(status.snoozesRemaining) left)")
                : "<button class=\"button\" disabled aria-disabled=\"true\" title=\"\(HTML.escape(status.snoozeBlockedReason ?? ""))\">Snooze (\(status.snoozesRemaining) left)</button>"
            body += HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", "skip")], button: "Skip Dose 2")
            body += "</div>"
        }
        if let undo, undo.until > now {
            body += "<div class=\"snackbar\" data-undo-until=\"\(ISO8601.string(undo.until))\"><span>\(HTML.escape(undo.label)) recorded.</span>"
            body += HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", "undo")], button: "Undo <span data-undo-count></span>")
            body += "</div>"
        }
        for warning in status.warnings { body += "<p class=\"warning\">⚠ \(HTML.escape(warning))</p>" }
        if let text = outageText(outages, zone: zone) { body += "<p class=\"warning\">⚠ \(HTML.escape(text))</p>" }
        let quick = snapshot.settings.quickLog.compactMap { try? SleepEventCatalogue.standard.resolve($0) }
        body += grid(quick, csrf: csrf, dense: quick.count > 8)
        if status.dose1At != nil, status.phase != .finalizing, status.wakeAt == nil {
            body += "<div class=\"row\">" + HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", "wake")], button: "Wake Up &amp; End Session") + "</div>"
        }
        body += "<div class=\"row compact\"><a class=\"button\" href=\"/checkin\">Check-in</a><a class=\"button\" href=\"/presleep\">Pre-sleep</a><a class=\"button\" href=\"/medications\">Meds</a>"
        body += "<button type=\"button\" class=\"button\" data-enable-alarms aria-label=\"Turn on alarms\" hidden>Alarms</button></div>"
        body += """
            <dialog id="risk-dialog" aria-labelledby="risk-title"><h2 id="risk-title">Are you sure?</h2><p data-risk-text></p>
            <div class="row"><button type="button" data-risk-no>Cancel</button><button type="button" class="button primary" data-risk-yes>Take it anyway</button></div></dialog>
            """
        return "<div data-live data-revision=\"\(snapshot.revision)\">" + body + "</div>"
    }

    /// One short line for the times the server was down during the night (Tonight must still fit a phone).
    static func outageText(_ outages: [ServerOutage], zone: TimeZone) -> String? {
        guard !outages.isEmpty else { return nil }
        let spans = outages.map { "\(clock($0.from, zone))–\(clock($0.until, zone))" }.joined(separator: ", ")
        return "DoseTap's server was not running \(spans); reminders due then did not ring."
    }

    /// A grid of one-tap log buttons; more than eight make it denser so Tonight still fits a phone.
    static func grid(_ events: [SleepEventDefinition], csrf: String, dense: Bool = false) -> String {
        var body = "<div class=\"grid\(dense ? " dense" : "")\" role=\"group\" aria-label=\"Log an event\">"
        for event in events {
            body += HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", "log"), ("event", event.type.rawValue)], button: HTML.escape(event.label),
                              label: "Log \(event.label)")
        }
        return body + "</div>"
    }

    /// The countdown ring: to the window's opening, then to its closing. Without script it shows the minutes left.
    static func ring(_ status: NightStatus, zone: TimeZone, now: Date) -> String {
        let (start, end, caption): (Date?, Date?, String) = switch status.phase {
        case .beforeWindow: (status.dose1At, status.windowOpensAt, "until Dose 2 opens")
        case .active, .nearClose: (status.windowOpensAt, status.windowClosesAt, "left to take Dose 2")
        default: (nil, nil, "")
        }
        let radius = 80.0
        let length = 2 * Double.pi * radius
        guard let start, let end else {
            return "<svg class=\"ring\" viewBox=\"0 0 190 190\" role=\"img\" aria-label=\"\(HTML.escape(status.phase.label))\"><circle class=\"track\" cx=\"95\" cy=\"95\" r=\"80\" fill=\"none\" stroke-width=\"12\"/><text x=\"95\" y=\"104\">\(status.dose2At != nil ? "✓" : "—")</text></svg>"
        }
        let left = max(0, end.timeIntervalSince(now))
        let done = min(1, max(0, 1 - left / end.timeIntervalSince(start)))
        let text = String(format: "%d:%02d", Int(left) / 3600, Int(left) / 60 % 60)
        return """
            <svg class="ring" viewBox="0 0 190 190" role="img" aria-label="\(HTML.escape(text)) \(caption)" data-ring data-start="\(ISO8601.string(start))" data-end="\(ISO8601.string(end))" data-now="\(ISO8601.string(now))">
            <circle class="track" cx="95" cy="95" r="80" fill="none" stroke-width="12"/>
            <circle class="progress" cx="95" cy="95" r="80" fill="none" stroke-width="12" stroke-linecap="round" transform="rotate(-90 95 95)" stroke-dasharray="\(String(format: "%.1f", length))" stroke-dashoffset="\(String(format: "%.1f", length * done))" data-length="\(String(format: "%.1f", length))"/>
            <text x="95" y="100" data-countdown>\(text)</text><text class="small" x="95" y="124">\(caption)</text></svg>
            """
    }

    /// The one big button that always means the right thing; risky doses carry the risk for the dialog.
    static func primary(_ status: NightStatus, zone: TimeZone, csrf: String) -> String {
        func button(_ action: String, _ label: String, risk: String? = nil, confirm: String? = nil) -> String {
            let extra = risk.map { " data-risk=\"\(HTML.escape($0))\" data-confirm=\"\(confirm ?? "")\"" } ?? ""
            return "<div class=\"row\">" + HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", action)], button: label, className: "button primary", extra: extra) + "</div>"
        }
        switch status.primaryAction {
        case .takeDose1: return button("dose1", "Take Dose 1")
        case .waitForWindow:
            let minutes = status.minutesUntilOpen ?? 0
            return button("dose2", "Dose 2 at \(clock(status.windowOpensAt, zone))",
                          risk: "Dose 2 opens at \(clock(status.windowOpensAt, zone)), in \(minutes) minutes. Taking it early is unsafe.", confirm: "early")
        case .takeDose2: return button("dose2", "Take Dose 2")
        case .takeDose2Late:
            return button("dose2", "Window closed — Dose 2 late?",
                          risk: "The Dose 2 window closed at \(clock(status.windowClosesAt, zone)). Taking Dose 2 this late can leave you drowsy into the day.", confirm: "late")
        case .checkIn: return "<div class=\"row\"><a class=\"button primary\" href=\"/checkin\">Morning check-in</a></div>"
        case .none: return "<p class=\"times\">Night complete. Sleep well.</p>"
        }
    }

    /// The confirmation page for a risky dose (what the dialog shows, without JavaScript).
    static func confirm(action: String, risk: String, confirm: ConfirmKind, csrf: String) -> String {
        HTML.page(title: "Confirm", current: "/", body: """
            <h1>Are you sure?</h1><p class="notice" role="alert">\(HTML.escape(risk))</p>
            <div class="row"><a class="button" href="/">Cancel</a>\(HTML.form(action: "/ui/act", csrf: csrf, fields: [("action", action), ("confirm", confirm.rawValue)], button: "Take it anyway", className: "button primary"))</div>
            """)
    }
}
