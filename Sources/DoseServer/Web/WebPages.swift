import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// Responses every page shares: redirects and the notice page for errors outside Tonight.
enum WebPages {
    /// Whether the browser reached DoseTap over HTTPS (through a proxy that says so).
    static func isHTTPS(_ request: Request, _ context: DoseRequestContext) -> Bool {
        context.secureTransport || request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https"
    }

    /// Whether the browser treats the page as a secure context: HTTPS, or this machine itself (browsers trust
    /// loopback addresses and `localhost` as they trust HTTPS).
    static func isSecureContext(_ request: Request, _ context: DoseRequestContext) -> Bool {
        if isHTTPS(request, context) { return true }
        var host = request.head.authority ?? ""
        if host.hasPrefix("[") { host = String(host.dropFirst().prefix { $0 != "]" }) } else { host = String(host.prefix { $0 != ":" }) }
        return Listener.isLoopback(host)
    }

    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    static func errorPage(_ error: DoseError) throws -> Response {
        let page =
            error.code == .deviceNotRegistered
            ? NoticePage(
                frame: Frame("Not paired", current: ""), heading: "Not paired",
                message:
                    "This browser is not paired with DoseTap. On this device, open the pairing link that dosetap serve printed, or scan the "
                    + "code under Settings → Pair another device on a phone that is paired.",
                link: nil)
            : NoticePage(
                frame: Frame("Not done", current: ""), heading: "Not done", message: error.message,
                link: NoticePage.Link(href: "/", label: "Back to Tonight"))
        var response = try Templates.page("notice", page, status: error.httpStatus)
        // A page that says "wait" tells the browser how long, as the API does.
        if let retry = error.retryAfterSeconds { response.headers[.retryAfter] = String(retry) }
        return response
    }

    static func clock(_ date: Date?, _ zone: TimeZone) -> String { date.map { LocalClock.hourMinute($0, in: zone) } ?? "—" }

    /// One short line for the times the server was down during the night (Tonight must still fit a phone).
    static func outageText(_ outages: [ServerOutage], zone: TimeZone) -> String? {
        guard !outages.isEmpty else { return nil }
        let spans = outages.map { "\(clock($0.from, zone))–\(clock($0.until, zone))" }.joined(separator: ", ")
        return "DoseTap's server was not running \(spans); reminders due then did not ring."
    }
}
