import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Logging
import Hummingbird
import NIOCore

/// JSON responses and the one place where errors become HTTP (SPEC §4).
enum Reply {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(text: value.rendered(), status: status)
    }

    static func json(text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func error(_ error: DoseError) -> Response {
        var response = json(Wire.error(error), status: HTTPResponse.Status(code: error.httpStatus))
        if let retry = error.retryAfterSeconds { response.headers[.retryAfter] = String(retry) }
        return response
    }
}

/// Maps every failure to the SPEC §4 JSON error; nothing else leaves the server.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            // A declared length over the limit is refused before the body is read or any work is done.
            let limit = request.uri.path == "/v1/import" ? ServerLimits.importBody : ServerLimits.body
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                throw DoseError.tooLarge(what: "The request body", limit: limit == ServerLimits.body ? "64 KiB" : "20 MiB")
            }
            return try await next(request, context)
        } catch let error as DoseError {
            return Reply.error(error)
        } catch is NIOTooManyBytesError {
            return Reply.error(.tooLarge(what: "The request body", limit: "64 KiB"))
        } catch let error as HTTPError {
            switch error.status {
            case .contentTooLarge: return Reply.error(.tooLarge(what: "The request body", limit: "64 KiB (imports 20 MiB)"))
            case .notFound: return Reply.error(.notFound(what: "\(request.method) \(request.uri.path)"))
            case .methodNotAllowed: return Reply.error(.notFound(what: "\(request.method) \(request.uri.path)"))
            case .badRequest: return Reply.error(.invalidInput(field: "body", problem: "the request is malformed", allowed: "a JSON object"))
            default:
                context.logger.error("request failed", metadata: ["status": "\(error.status.code)"])
                return Reply.json(["error": ["code": "500_INTERNAL", "message": "DoseTap could not complete the request."]], status: .internalServerError)
            }
        } catch {
            // Health data never goes to the log: only the error's type.
            context.logger.error("request failed", metadata: ["error": "\(type(of: error))"])
            return Reply.json(["error": ["code": "500_INTERNAL", "message": "DoseTap could not complete the request."]], status: .internalServerError)
        }
    }
}

/// Headers on every response: no caching of health data, no sniffing, no framing, a CSP without inline script.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-store"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return response
    }
}

/// Every route but the open ones needs `Authorization: Bearer <device token>`; the token's hash is compared in
/// constant time with each paired device's, read from the database on every request so a revocation applies at once.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let environment: ServerEnvironment
    let limiter: RateLimiter
    /// Paths that need no token.
    static let openPaths: Set<String> = ["/health"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.openPaths.contains(request.uri.path) { return try await next(request, context) }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw DoseError.deviceNotRegistered }
        let hash = DeviceTokens.hash(String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces))
        var match: DeviceRecord?
        for device in try environment.ledger.activeDevices() where DeviceTokens.constantTimeEqual(device.tokenHash, hash) { match = device }
        guard let device = match else { throw DoseError.deviceNotRegistered }
        if let wait = await limiter.admit(device.id, at: environment.now()) {
            throw DoseError.tooManyRequests(retryAfterSeconds: wait)
        }
        var context = context
        context.device = device
        return try await next(request, context)
    }
}

/// A fixed window of requests per device per minute.
actor RateLimiter {
    let limit: Int
    private var windows: [String: (start: Date, count: Int)] = [:]

    init(limit: Int) { self.limit = limit }

    /// nil when admitted, else seconds to wait.
    func admit(_ key: String, at now: Date) -> Int? {
        var window = windows[key] ?? (now, 0)
        if now.timeIntervalSince(window.start) >= 60 { window = (now, 0) }
        window.count += 1
        windows[key] = window
        guard window.count > limit else { return nil }
        return max(1, Int((60 - now.timeIntervalSince(window.start)).rounded(.up)))
    }
}
