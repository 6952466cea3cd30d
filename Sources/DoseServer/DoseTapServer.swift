public import DoseStore
public import Foundation
public import Hummingbird
import Logging

/// `dosetap serve`: builds the router and the application.
public enum DoseTapServer {
    /// The router with every route and middleware; tests drive it directly.
    public static func router(environment: ServerEnvironment) -> Router<DoseRequestContext> {
        let router = Router(context: DoseRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: AuthMiddleware(environment: environment, limiter: RateLimiter(limit: ServerLimits.requestsPerMinute)))
        APIRoutes(environment: environment).register(on: router)
        return router
    }

    /// The application on `host:port`; loopback unless told otherwise.
    public static func application(environment: ServerEnvironment, host: String, port: Int,
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "dosetap")
        logger.logLevel = .info
        return Application(
            router: router(environment: environment),
            configuration: .init(address: .hostname(host, port: port), serverName: "dosetap"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully.
    public static func run(environment: ServerEnvironment, host: String, port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await application(environment: environment, host: host, port: port, onServerRunning: onServerRunning).runService()
    }
}
