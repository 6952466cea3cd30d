import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// JSON responses and the one place where errors become HTTP (SPEC §4).
enum Reply {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(text: value.rendered(), status: status)
    }

    static func json<T: Encodable>(_ response: T, status: HTTPResponse.Status = .ok) -> Response {
        json(JSONValue(response: response), status: status)
    }

    static func json(text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func error(_ error: DoseError) -> Response {
        var response = json(JSONValue(response: ErrorResponse(error)), status: error.httpStatus)
        if let retry = error.retryAfterSeconds { response.headers[.retryAfter] = String(retry) }
        return response
    }
}

/// The 500s a server answered: each is a DoseTap bug (a client's mistake or a race answers 4xx), so tests fail on any.
public final class InternalErrorLog: Sendable {
    private let entries = Mutex<[String]>([])

    /// A log of nothing yet.
    public init() {}

    /// `METHOD path (request id): error type` of the first 500s (at most `limit`; the first ones are the ones to fix).
    public var all: [String] { entries.withLock { $0 } }
    /// How many it keeps.
    public static let limit = 100

    func record(_ line: String) { entries.withLock { if $0.count < Self.limit { $0.append(line) } } }
}

/// Maps every failure to the SPEC §4 JSON error; nothing else leaves the server. A 500 is only for DoseTap's own bugs:
/// it carries a request id, which is logged with the error's type (never its text, which may hold health data).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let internalErrors: InternalErrorLog
    let routes: RouteTable
    /// A store of several people: a browser signs in with a link, not a pairing link (the refusal says which).
    var hosted = false
    /// The domain whose people may ask the sign-up page for a link (`--sign-up domain=` with `--smtp`), which the refusal
    /// of a browser not signed in offers.
    var signUpDomain: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            // A declared length over the limit is refused before the body is read or any work is done.
            let limit = request.uri.path == "/v1/import" ? ServerLimits.importBody : ServerLimits.body
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                throw DoseError.tooLarge(what: "The request body", limit: limit == ServerLimits.body ? "64 KiB" : "20 MiB")
            }
            return try await next(request, context)
        } catch let error as DoseError {
            if !request.uri.path.hasPrefix("/v1/") {
                do { return try WebPages.errorPage(error, hosted: hosted, signUpDomain: signUpDomain) } catch {
                    return internalError(error, request, context)
                }
            }
            return Reply.error(error)
        } catch is NIOTooManyBytesError {
            return Reply.error(.tooLarge(what: "The request body", limit: "64 KiB"))
        } catch is HTTPParserError {
            // Malformed framing inside a request (a chunk size that is not hexadecimal): the client's mistake.
            return Reply.error(ConnectionPartsHandler.malformed)
        } catch let error as HTTPError {
            switch error.status {
            case .contentTooLarge: return Reply.error(.tooLarge(what: "The request body", limit: "64 KiB (imports 20 MiB)"))
            case .notFound, .methodNotAllowed:
                // An address that exists answers 405 with the methods it takes (RFC 9110 §15.5.6); any other, 404.
                let allowed = routes.methods(for: request.uri.path)
                guard !allowed.isEmpty else { return Reply.error(.notFound(what: "\(request.method) \(request.uri.path)")) }
                var response = Reply.error(.methodNotAllowed(method: request.method.rawValue, path: request.uri.path, allowed: allowed))
                response.headers[.allow] = allowed.joined(separator: ", ")
                return response
            case .badRequest: return Reply.error(.invalidInput(field: "body", problem: "the request is malformed", allowed: "a JSON object"))
            default: return internalError(error, request, context)
            }
        } catch {
            return internalError(error, request, context)
        }
    }

    /// A path as the log may keep it: a reminder link's path is its signed token, which acts on the night, so none of it
    /// is written, even in part.
    static func loggable(_ path: String) -> String {
        path.hasPrefix("/a/") ? "/a/(a reminder link)" : path
    }

    func internalError(_ error: any Error, _ request: Request, _ context: Context) -> Response {
        let id = context.id
        // Health data never goes to the log: only the error's type and where it happened.
        let path = Self.loggable(request.uri.path)
        context.logger.error("request failed", metadata: ["request_id": "\(id)", "path": "\(path)", "error": "\(type(of: error))"])
        internalErrors.record("\(request.method) \(path) (\(id)): \(type(of: error))")
        return Reply.json(
            [
                "error": [
                    "code": "500_INTERNAL",
                    "message": .string(
                        "DoseTap could not complete the request. This is a bug in DoseTap; the server log has the details under request id \(id)."),
                    "request_id": .string(id),
                ]
            ], status: .internalServerError)
    }
}

/// The router's routes as path patterns and methods, to tell an unknown address (404) from a known one asked with a
/// method it does not take (405). Filled once, after the routes are registered.
final class RouteTable: Sendable {
    /// A route's path segments, which of them are literal (not a `{parameter}`), and its method.
    private let patterns = Mutex<[(segments: [Substring], literal: [Bool], method: String)]>([])

    /// Takes the routes as the router describes them (`/v1/sessions/{date}`).
    func load(_ routes: [(path: String, method: String)]) {
        patterns.withLock {
            $0 = routes.map { route in
                let segments = route.path.split(separator: "/")
                return (segments, segments.map { !$0.hasPrefix("{") }, route.method)
            }
        }
    }

    /// The methods the route at this path answers (HEAD wherever GET is), sorted; empty when no route matches it. As
    /// the router does, a literal segment wins over a parameter: `/v1/events/log` is not `/v1/events/{id}`.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        var best: [Bool]?
        var methods: Set<String> = []
        patterns.withLock { patterns in
            for pattern in patterns where pattern.segments.count == segments.count {
                guard zip(zip(pattern.segments, segments), pattern.literal).allSatisfy({ !$1 || $0.0 == $0.1 }) else { continue }
                if let current = best, pattern.literal != current {
                    guard Self.moreLiteral(pattern.literal, than: current) else { continue }
                    methods = []
                }
                best = pattern.literal
                methods.insert(pattern.method)
                if pattern.method == "GET" { methods.insert("HEAD") }
            }
        }
        return methods.sorted()
    }

    /// Whether the first match is preferred: at the first position where they differ it has the literal.
    static func moreLiteral(_ first: [Bool], than second: [Bool]) -> Bool {
        zip(first, second).first { $0 != $1 }?.0 ?? false
    }
}

/// Headers on every response: no caching of health data, no sniffing, no framing, a CSP without inline script.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    /// The headers, also sent by the connection handler with its answer to a request that is not HTTP/1.1.
    static let fields: HTTPFields = [
        .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
            + "form-action 'self'",
        HTTPField.Name("Referrer-Policy")!: "same-origin", HTTPField.Name("X-Frame-Options")!: "DENY",
    ]

    /// Sets the headers; a response that brings its own CSP keeps it (the report allows only its inline styles and no
    /// script at all).
    static func apply(to headers: inout HTTPFields) {
        for field in fields where field.name != .contentSecurityPolicy || headers[.contentSecurityPolicy] == nil {
            headers[field.name] = field.value
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.apply(to: &response.headers)
        return response
    }
}

/// Every route but the open ones needs a paired device: `Authorization: Bearer <device token>` for programs, the
/// pairing cookie for browsers. The token's hash is compared in constant time with each paired device's, read from
/// the database on every request, so a revocation applies at once. Cookie requests that change anything must carry
/// the CSRF token, and an Origin, if sent, must be this server.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let limits: RequestLimits
    /// Paths that need no token.
    static let openPaths: Set<String> = [
        "/health", "/ready", "/openapi.json", "/pair", "/signin", "/join", "/signup", "/signup/confirm", "/assets/app.css", "/assets/app.js",
        "/assets/tap.js", "/setup",
        "/setup/ca",
        "/assets/period.js", "/assets/queue.js", "/sw.js", "/manifest.webmanifest", "/assets/icon.svg", "/assets/icon-192.png",
        "/assets/icon-512.png",
    ]
    /// Reminder action links carry their own signature instead of a device token.
    static let openPrefix = "/a/"

    static func isOpen(_ path: String) -> Bool { openPaths.contains(path) || path.hasPrefix(openPrefix) }
    /// The pairing cookie's name.
    static let cookie = "dosetap_device"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A grantee's request, handed on by their own site after their device, CSRF token and grant were checked there.
        if Self.isOpen(request.uri.path) || context.grantee != nil { return try await next(request, context) }
        guard let (token, viaCookie) = try Self.credential(request) else { throw DoseError.deviceNotRegistered }
        let environment = context.site.environment
        // Serving everyone, the lobby already found the device by this very token as it chose the person's routes
        // (`SiteMiddleware`): one lookup a request.
        let match = try context.device ?? environment.useCases().devices.authenticated(tokenHash: DeviceTokens.hash(token))
        // An expired device is answered as one never paired: the page leads to pairing or signing in again.
        guard let device = match, environment.useCases().devices.admit(device) else { throw DoseError.deviceNotRegistered }
        if viaCookie, ![.get, .head].contains(request.method) {
            try Self.refuseCrossSite(request, secure: context.secureTransport)
            // Form posts are checked by their handler (the token is a form field); API calls carry it as a header.
            if request.uri.path.hasPrefix("/v1/") {
                let sent = request.headers[HTTPField.Name("X-CSRF-Token")!] ?? ""
                guard try environment.csrfTokens().accepts(sent, device: device.id, at: environment.now()) else {
                    throw DoseError.forbidden(why: "the X-CSRF-Token header is missing, wrong or from a page loaded more than a day ago")
                }
            }
        }
        var counted = context.counted
        if counted == nil { counted = RequestAdmission(retryAfter: try await limits.admit(device.id, of: environment, at: environment.now())) }
        if case .wait(let seconds) = counted { throw DoseError.tooManyRequests(retryAfterSeconds: seconds) }
        var context = context
        context.device = device
        context.viaCookie = viaCookie
        return try await next(request, context)
    }

    /// The device token a request carries, and whether it came as the pairing cookie; nil when it carries none.
    static func credential(_ request: Request) throws(DoseError) -> (token: String, viaCookie: Bool)? {
        if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer ") else { throw .deviceNotRegistered }
            return (String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces), false)
        }
        return cookieValue(request.headers[.cookie]).map { ($0, true) }
    }

    /// A browser's change must come from this server's page: its `Origin`, or when a browser sends none its
    /// `Referer`, must name this scheme, host and port; with neither there is no evidence of where it came from, so
    /// it is refused. (`https://host` on the plain-HTTP listener is another origin, however alike it looks.)
    static func refuseCrossSite(_ request: Request, secure: Bool) throws {
        let ours = (secure ? "https://" : "http://") + (request.head.authority ?? "").lowercased()
        func isOurs(_ origin: String) -> Bool { origin.lowercased() == ours }
        if let origin = request.headers[HTTPField.Name("Origin")!] {
            guard isOurs(origin) else { throw DoseError.forbidden(why: "the request came from another site (Origin \(origin.prefix(80)))") }
        } else if let referer = request.headers[.referer] {
            guard let url = URL(string: referer), let scheme = url.scheme, let name = url.host,
                isOurs("\(scheme)://\(name)\(url.port.map { ":\($0)" } ?? "")")
            else {
                throw DoseError.forbidden(why: "the request came from another page (Referer \(referer.prefix(80)))")
            }
        } else {
            throw DoseError.forbidden(why: "the request carried neither Origin nor Referer, so where it came from is unknown")
        }
    }

    static func cookieValue(_ header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2, pair[0] == cookie { return pair[1] }
        }
        return nil
    }
}

/// Requests per paired device per minute: in this instance's memory for a SQLite file, which one instance serves; in
/// the database for a shared store, so that the instances behind a proxy count one window between them.
struct RequestLimits: Sendable {
    let local: RateLimiter

    init(limit: Int) { local = RateLimiter(limit: limit) }

    /// nil when admitted, else seconds to wait.
    func admit(_ device: String, of environment: AppEnvironment, at now: Date) async throws -> Int? {
        guard let store = environment.store.shared, let person = environment.store.personID else { return await local.admit(device, at: now) }
        // Requests of a shared store run on the request threads, where a round trip may wait.
        return try store.admitRequest(of: person, device: device, at: now, limit: local.limit)
    }
}

/// A request counted in its device's window: admitted, or to be refused for the seconds until the window ends.
enum RequestAdmission: Sendable {
    case admitted
    case wait(seconds: Int)

    init(retryAfter: Int?) { self = retryAfter.map { .wait(seconds: $0) } ?? .admitted }
}

/// A fixed window of requests per device per minute, in memory.
actor RateLimiter {
    let limit: Int
    private var windows: [String: (start: Date, count: Int)] = [:]

    init(limit: Int) { self.limit = limit }

    /// How many windows are kept at the most; windows older than a minute are dropped first.
    static let tracked = 1024

    /// Devices with a window now (for tests of its bound).
    var trackedCount: Int { windows.count }

    /// nil when admitted, else seconds to wait.
    func admit(_ key: String, at now: Date) -> Int? {
        if windows.count >= Self.tracked, windows[key] == nil {
            windows = windows.filter { now.timeIntervalSince($0.value.start) < 60 }
            // Still full within one minute: forget the oldest window (that device starts a fresh one).
            if windows.count >= Self.tracked, let oldest = windows.min(by: { $0.value.start < $1.value.start })?.key { windows[oldest] = nil }
        }
        var window = windows[key] ?? (now, 0)
        if now.timeIntervalSince(window.start) >= 60 { window = (now, 0) }
        window.count += 1
        windows[key] = window
        guard window.count > limit else { return nil }
        return max(1, Int((60 - now.timeIntervalSince(window.start)).rounded(.up)))
    }
}

/// The `/v1` routes that take query parameters, and which; every other `/v1` route takes none. A parameter a route
/// does not take is refused by name rather than ignored (`/v1/export?start_date=…` exported everything).
struct QueryMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    static let allowed: [String: Set<String>] = [
        "/v1/sessions": ["from", "to", "limit", "page"], "/v1/analytics/export": ["start_date", "end_date"],
        "/v1/medications": ["date"], "/v1/insights": ["nights", "from", "to"], "/v1/export/sessions.csv": ["from", "to"], "/v1/alarm/log": ["date"],
        "/v1/people": ["name"],
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/v1/") {
            let names = Self.allowed[path] ?? []
            for (name, _) in request.uri.queryParameters where !names.contains(String(name)) {
                let shown = String(name.prefix(40))
                throw DoseError.invalidInput(
                    field: shown, problem: "\(path) does not take the query parameter '\(shown)'",
                    allowed: names.isEmpty ? "no query parameters" : names.sorted().joined(separator: ", "))
            }
        }
        return try await next(request, context)
    }
}

extension ErrorCode {
    /// The HTTP status of a SPEC §4 code, mapped here, at the HTTP edge, once. (Each code's wire name starts with the
    /// same number, and a test holds the two together; the status is never read back out of the name.)
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .invalidInput: .badRequest
        case .deviceNotRegistered: .unauthorized
        case .forbidden: .forbidden
        case .notFound, .nothingToUndo: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .alreadyTaken, .alreadySkipped, .dose2Skipped, .sessionFinalizing, .napState, .duplicateMedication, .recentDose, .dose2Pending:
            .conflict
        case .tooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .dose1Required, .notInRegimen, .titrationTooFast, .nightlyMaximum, .windowNotOpen, .windowExceeded, .snoozeLimit, .snoozeUnavailable,
            .undoExpired,
            .idempotencyMismatch:
            .unprocessableContent
        case .rateLimit: .tooManyRequests
        case .storageBusy: .serviceUnavailable
        }
    }
}

extension DoseError {
    /// The HTTP status of the answer to this refusal.
    var httpStatus: HTTPResponse.Status { code.httpStatus }
}
