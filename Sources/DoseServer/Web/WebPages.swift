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

    /// This DoseTap's own address, for the links it makes (sign-in, invitations, sign-up): `serve --public-url` when
    /// given, so a request with a forged Host cannot make DoseTap mail a link to another site; else the address the
    /// browser reached it at.
    static func ownAddress(_ request: Request, _ context: DoseRequestContext) -> String {
        if let configured = context.site.people?.publicURL { return configured }
        return (isHTTPS(request, context) ? "https://" : "http://") + (request.head.authority ?? "localhost")
    }

    /// The sentence a redirect's `done` (what a form just did) shows, from the page's `sentences`; a value the page does
    /// not list is refused rather than passed over in silence.
    static func flash(_ done: String?, from sentences: [String: String]) throws -> String? {
        guard let done else { return nil }
        guard let sentence = sentences[done] else {
            throw DoseError.invalidInput(
                field: "done", problem: "'\(done.prefix(40))' is not something this page reports",
                allowed: sentences.keys.sorted().joined(separator: ", "))
        }
        return sentence
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

    /// A redirect to `location` that leaves this browser paired as the device of `token`: the pairing cookie, for a year,
    /// `Secure` when the request came over HTTPS.
    static func paired(_ location: String, token: String, _ request: Request, _ context: DoseRequestContext) -> Response {
        let secure = isHTTPS(request, context) ? "; Secure" : ""
        return redirect(location, cookie: "\(AuthMiddleware.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000\(secure)")
    }

    /// The page of a refusal. `hosted`: a store of several people, where a browser signs in with a link its operator makes
    /// (`person link`), not with the pairing link of a one-person server; `signUpDomain`: the domain whose people may ask
    /// the sign-up page for a link, which "Not signed in" then offers.
    static func errorPage(_ error: DoseError, hosted: Bool = false, signUpDomain: String? = nil) throws -> Response {
        let page =
            error.code == .deviceNotRegistered
            ? NoticePage(
                frame: Frame(hosted ? "Not signed in" : "Not paired", current: ""), heading: hosted ? "Not signed in" : "Not paired",
                message: hosted
                    ? "This browser is not signed in to DoseTap, or its sign-in has ended. Ask the person who runs this DoseTap for a "
                        + "sign-in link (they make one with `dosetap person link` and your address), then open it on this device."
                    : "This browser is not paired with DoseTap. On this device, open the pairing link that dosetap serve printed, or scan the "
                        + "code under Settings → Pair another device on a phone that is paired.",
                link: hosted ? signUpDomain.map { NoticePage.Link(href: "/signup", label: "Get a link by mail (addresses at \($0))") } : nil)
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
