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
            (.get, "medications"), (.get, "supply"),
        ],
        .report: [(.get, "insights"), (.get, "export/sessions.csv"), (.get, "analytics/export")],
        .alarms: [(.post, "alarm/ack")],
        .log: [(.post, "doses/take"), (.post, "doses/skip"), (.post, "doses/snooze"), (.post, "events/log"), (.post, "events/wake")],
    ]

    /// The grants that open `method` on `path` (below `/v1/`); empty when no grant does. HEAD is GET without the body.
    static func grants(opening method: HTTPRequest.Method, _ path: String) -> Set<Grant> {
        let method = method == .head ? .get : method
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var grants = Set<Grant>()
        for (grant, routes) in opened {
            for (routeMethod, pattern) in routes where routeMethod == method {
                let parts = pattern.split(separator: "/")
                if parts.count == segments.count, zip(parts, segments).allSatisfy({ $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }) {
                    grants.insert(grant)
                }
            }
        }
        return grants
    }

    /// The methods some grant opens on `path` (HEAD wherever GET is), sorted; empty when no grant opens it at all.
    static func methods(for path: String) -> [String] {
        let methods = [HTTPRequest.Method.get, .post].filter { !grants(opening: $0, path).isEmpty }.map(\.rawValue)
        return (methods + (methods.contains("GET") ? ["HEAD"] : [])).sorted()
    }

    /// What a grant's use is called in the person's audit.
    static func auditAction(_ method: HTTPRequest.Method, _ path: String) -> String {
        if method == .get || method == .head { return "viewed" }
        return path == "alarm/ack" ? "acknowledged" : "logged"
    }
}

/// `/v1/people/{id}/…`: a signed-in person's request for someone who shares with them. Their own device, CSRF token and
/// rate were checked by their own site; here the grant is read (on every request, so a revocation holds at once) and
/// the request goes on to the person's site as `/v1/…`, marked with who is acting. Without any grant from that person
/// the answer is 404, as for a person who does not exist; with a grant that does not open the route, 403 naming it.
struct SharedAccessMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    /// The people served; nil when this server serves one person (a SQLite file, or `serve --person`).
    let people: PeopleSites?
    let environment: AppEnvironment

    static let prefix = "/v1/people/"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(Self.prefix) else { return try await next(request, context) }
        let rest = path.dropFirst(Self.prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return try await next(request, context) }
        let owner = String(rest[..<slash])
        let route = String(rest[rest.index(after: slash)...])
        let opening = SharedRoutes.grants(opening: request.method, route)
        let allowed = SharedRoutes.methods(for: route)
        if opening.isEmpty, !allowed.isEmpty {
            // An address a grant opens, asked with a method none does (RFC 9110 §15.5.6), as the router answers its own.
            var response = Reply.error(.methodNotAllowed(method: request.method.rawValue, path: path, allowed: allowed))
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        }
        let app = environment.useCases()
        let grants = try app.sharing.grants(on: owner)
        guard !grants.isEmpty else { throw DoseError.notFound(what: "a person with id '\(owner.prefix(64))' who shares with you") }
        guard let people else {
            throw DoseError.forbidden(
                why: "this server serves one person (`dosetap serve --person`); `dosetap serve` without --person serves those who share with you")
        }
        guard !opening.isDisjoint(with: grants) else {
            let needed = opening.isEmpty ? "only they can use it" : "it needs \(opening.sorted().map(\.rawValue).joined(separator: " or "))"
            throw DoseError.forbidden(
                why: "\(request.method) \(route.prefix(80)) is not open to you for this person: you hold \(SharingService.words(grants)); \(needed)")
        }
        var head = request.head
        let query = request.uri.query.map { "?" + $0 } ?? ""
        head.path = "/v1/" + route + query
        var forwarded = context
        let me = try app.sharing.me()
        forwarded.grantee = SharedAccess(person: me.id, email: me.email, grants: grants)
        let response = try await people.site(owner).responder.respond(to: Request(head: head, body: request.body), context: forwarded)
        if (200..<300).contains(response.status.code) {
            let action = SharedRoutes.auditAction(request.method, route)
            try app.sharing.recordAccess(to: owner, action, "\(request.method == .head ? "GET" : request.method.rawValue) \(route)")
        }
        return response
    }
}
