import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// The routes a grant opens under `/v1/people/{id}/` (SPEC §5.6), each the person's own route of the same method and
/// path below `/v1/`. Everything else of theirs (settings, devices, corrections, imports, exports of every event, Clear
/// All) stays theirs alone.
enum SharedRoutes {
    static let opened: [Grant: [(HTTPRequest.Method, String)]] = [
        .view: [
            (.get, "status"), (.get, "sessions"), (.get, "sessions/:date"), (.get, "nights/:id"), (.get, "reminders"), (.get, "alarm/log"),
            (.get, "medications"), (.get, "supply"), (.get, "stream"), (.get, "insights"),
        ],
        .report: [(.get, "insights"), (.get, "export/sessions.csv"), (.get, "analytics/export")],
        .alarms: [(.post, "alarm/ack")],
        .log: [(.post, "doses/take"), (.post, "doses/skip"), (.post, "doses/snooze"), (.post, "events/log"), (.post, "events/wake")],
    ]

    /// The pages a grant opens under `/people/{id}/`, each the person's own page at the site's root: with `view` their
    /// Tonight, Details, History and Insights (and Tonight's taps with `log`), with `report` their Insights and the
    /// clinician's report, as the invitation says. Insights are read with either (SPEC §5.6: reads with `view` or
    /// `report`); the report, which leaves the app, needs `report`.
    static let pages: [Grant: [(HTTPRequest.Method, String)]] = [
        .view: [(.get, ""), (.get, "details"), (.get, "history"), (.get, "insights")],
        .report: [(.get, "insights"), (.get, "report"), (.get, "report/file")],
        .log: [(.post, "ui/act")],
    ]

    /// The grants that open `method` on `path` (below `/v1/`); empty when no grant does. HEAD is GET without the body.
    static func grants(opening method: HTTPRequest.Method, _ path: String, in table: [Grant: [(HTTPRequest.Method, String)]] = opened) -> Set<Grant> {
        let method = method == .head ? .get : method
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var grants = Set<Grant>()
        for (grant, routes) in table {
            for (routeMethod, pattern) in routes where routeMethod == method {
                let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
                if parts.count == segments.count, zip(parts, segments).allSatisfy({ $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }) {
                    grants.insert(grant)
                }
            }
        }
        return grants
    }

    /// The methods some grant opens on `path` (HEAD wherever GET is), sorted; empty when no grant opens it at all.
    static func methods(for path: String, in table: [Grant: [(HTTPRequest.Method, String)]] = opened) -> [String] {
        let methods = [HTTPRequest.Method.get, .post].filter { !grants(opening: $0, path, in: table).isEmpty }.map(\.rawValue)
        return (methods + (methods.contains("GET") ? ["HEAD"] : [])).sorted()
    }

    /// What a grant's use is called in the person's audit.
    static func auditAction(_ method: HTTPRequest.Method, _ path: String) -> String {
        if method == .get || method == .head { return "viewed" }
        return path.hasSuffix("alarm/ack") ? "acknowledged" : "logged"
    }
}

/// `/v1/people/{id}/…` and `/people/{id}/…`: a signed-in person's request for someone who shares with them. Their own
/// device, CSRF token and rate were checked by their own site; here the grant is read (on every request, so a
/// revocation holds at once) and the request goes on to the person's site as `/v1/…` (or the page at `/…`), marked with
/// who is acting. Without any grant from that person the answer is 404, as for a person who does not exist; with a
/// grant that does not open the route, 403 naming it.
struct SharedAccessMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    /// Where a grantee reaches another person's routes, and where each leads on that person's site.
    struct Entry {
        let prefix: String
        let target: String
        let routes: [Grant: [(HTTPRequest.Method, String)]]
    }

    static let api = Entry(prefix: "/v1/people/", target: "/v1/", routes: SharedRoutes.opened)
    static let pages = Entry(prefix: "/people/", target: "/", routes: SharedRoutes.pages)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard let entry = [Self.api, Self.pages].first(where: { path.hasPrefix($0.prefix) }) else { return try await next(request, context) }
        let rest = path.dropFirst(entry.prefix.count)
        guard let slash = rest.firstIndex(of: "/") else {
            // `/people/{id}` is their Tonight, at the address its links are relative to.
            return entry.prefix == Self.pages.prefix && !rest.isEmpty ? WebPages.redirect(path + "/") : try await next(request, context)
        }
        let owner = String(rest[..<slash])
        let route = String(rest[rest.index(after: slash)...])
        let opening = SharedRoutes.grants(opening: request.method, route, in: entry.routes)
        let allowed = SharedRoutes.methods(for: route, in: entry.routes)
        if opening.isEmpty, !allowed.isEmpty {
            // An address a grant opens, asked with a method none does (RFC 9110 §15.5.6), as the router answers its own.
            var response = Reply.error(.methodNotAllowed(method: request.method.rawValue, path: path, allowed: allowed))
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        }
        // The grantee's own site: their device, CSRF token and rate were checked on it.
        let environment = context.site.environment
        let app = environment.useCases()
        guard let share = try app.sharing.share(from: owner) else {
            throw DoseError.notFound(what: "a person with id '\(owner.prefix(64))' who shares with you")
        }
        guard let people = context.site.people else {
            throw DoseError.forbidden(
                why: "this server serves one person (`dosetap serve --person`); `dosetap serve` without --person serves those who share with you")
        }
        guard !opening.isDisjoint(with: share.grants) else {
            let holds = SharingService.words(share.grants)
            let ownerName = share.owner.name ?? share.owner.shownName
            if entry.prefix == Self.pages.prefix {
                // A page says which grant opens it, in words, and who can add it.
                let page = route.hasPrefix("report") ? "report" : Self.pageDetail(route, Response(status: .ok))
                let what = route == "ui/act" ? "Logging on \(ownerName)'s Tonight" : "Seeing \(ownerName)'s \(page)"
                let needed = opening.isEmpty ? "is theirs alone" : "needs the \(opening.sorted().map(\.rawValue).joined(separator: " or ")) grant"
                throw DoseError.notShared(
                    why: "\(what) \(needed), and their share gives you \(holds). \(ownerName) can add it in Settings → Sharing")
            }
            let needed = opening.isEmpty ? "only they can use it" : "it needs \(opening.sorted().map(\.rawValue).joined(separator: " or "))"
            throw DoseError.notShared(
                why: "\(request.method) \(route.prefix(80)) is not open to you for \(share.owner.shownName): "
                    + "you hold \(SharingService.words(share.grants)); \(needed)")
        }
        var head = request.head
        let query = request.uri.query.map { "?" + $0 } ?? ""
        head.path = entry.target + route + query
        var forwarded = context
        let ownerName = share.owner.name ?? share.owner.shownName
        forwarded.grantee = SharedAccess(
            person: share.grantee.id, email: share.grantee.email, grants: share.grants, owner: share.owner.id, ownerName: ownerName,
            standing: Self.standing(of: context.device?.id, on: owner, named: ownerName, environment: environment))
        forwarded.chosenSite = people.site(owner).served
        // The same router again, for the person's route of the same method and path.
        var response = try await people.responder.respond(to: Request(head: head, body: request.body), context: forwarded)
        // A page's tap is done only when it goes back to Tonight; its answer of 200 is a question asked, nothing logged.
        let done =
            entry.prefix == Self.pages.prefix && request.method == .post ? response.status == .seeOther : (200..<300).contains(response.status.code)
        if done {
            let detail = entry.prefix == Self.pages.prefix ? Self.pageDetail(route, response) : Self.apiDetail(request.method, route)
            try app.sharing.recordAccess(to: owner, SharedRoutes.auditAction(request.method, route), detail)
        }
        // The person's site sends a tap back to its Tonight; the grantee's Tonight for them is under their prefix.
        if let location = response.headers[.location], location.hasPrefix("/"), !location.hasPrefix("//") {
            response.headers[.location] = Self.pages.prefix + owner + location
        }
        return response
    }

    /// Why a grantee's access through `device` to `owner`'s night has ended, asked of the grantee's own records.
    static func standing(of device: String?, on owner: String, named ownerName: String, environment: AppEnvironment) -> EventHub.Standing {
        {
            let app = environment.useCases()
            if let device, try !app.devices.isActive(device) {
                return "This device was signed out, so this page stopped showing \(ownerName)'s night."
            }
            guard let share = try app.sharing.share(from: owner), !Set(share.grants).isDisjoint(with: [.view, .log]) else {
                return "\(ownerName) no longer shares their night with you, so this page stopped showing it."
            }
            return nil
        }
    }

    /// An API route's use in the person's audit, in words ("the live night", "Dose 2 recorded"), so the person reads what
    /// was seen or done, not a method and a path.
    static func apiDetail(_ method: HTTPRequest.Method, _ route: String) -> String {
        let words: [String: String] = [
            "status": "tonight's status", "stream": "the live night", "sessions": "the history", "reminders": "tonight's alarms",
            "alarm/log": "the alarm log", "medications": "the medications", "supply": "the supply", "insights": "the insights",
            "export/sessions.csv": "the nights' export (sessions.csv)", "analytics/export": "the analytics export",
            "doses/take": "a dose", "doses/skip": "a skip of Dose 2", "doses/snooze": "a snooze", "events/log": "an event",
            "events/wake": "Wake Up", "alarm/ack": "tonight's alarm",
        ]
        if let known = words[route] { return known }
        if route.hasPrefix("sessions/") { return "the night of \(route.dropFirst("sessions/".count).prefix(10))" }
        if route.hasPrefix("nights/") { return "a night's details" }
        return "\(method == .head ? "GET" : method.rawValue) \(route.prefix(80))"
    }

    /// A page's use in the person's audit, in words: which page was opened, or what a tap recorded (read from where it
    /// sent the browser back to: Tonight's `did=` names the kind).
    static func pageDetail(_ route: String, _ response: Response) -> String {
        switch route {
        case "": return "Tonight"
        case "details": return "Details"
        case "history": return "History"
        case "insights": return "Insights"
        case "report": return "the report's page"
        case "report/file": return "the report"
        default:
            let location = response.headers[.location] ?? ""
            let did = URLComponents(string: location)?.queryItems?.first { $0.name == "did" }?.value
            return did.map { "\(TonightPages.recordedSentence($0).dropLast()) on Tonight" } ?? "a tap on Tonight"
        }
    }
}
