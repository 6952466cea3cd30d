public import DoseApp
import DoseStore
import Foundation
public import Hummingbird
import Logging
import ServiceLifecycle

/// `dosetap serve`: builds the router and the application.
public enum DoseTapServer {
    /// Whether a path answers without a paired device: health, the pairing link, the page assets, and reminder
    /// action links (which are signed instead).
    public static func isOpen(_ path: String) -> Bool { AuthMiddleware.isOpen(path) }

    /// The router with every route and middleware; tests drive it directly.
    public static func router(
        environment: AppEnvironment, hub: EventHub = EventHub(), pairing: PairingCodes = PairingCodes(),
        requestsPerMinute: Int = ServerLimits.requestsPerMinute,
        internalErrors: InternalErrorLog = InternalErrorLog()
    ) -> Router<DoseRequestContext> {
        // HEAD answers as GET without the body (RFC 9110 §9.3.2), through the same middleware.
        let router = Router(context: DoseRequestContext.self, options: .autoGenerateHeadEndpoints)
        let routes = RouteTable()
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware(internalErrors: internalErrors, routes: routes))
        router.add(middleware: AuthMiddleware(environment: environment, limiter: RateLimiter(limit: requestsPerMinute)))
        router.add(middleware: QueryMiddleware())
        APIRoutes(environment: environment, hub: hub).register(on: router)
        WebRoutes(environment: environment, pairing: pairing).register(on: router)
        ActionLinkRoutes(environment: environment).register(on: router)
        routes.load(router.routes.map { ($0.path.description, $0.method.rawValue) })
        return router
    }

    /// The application on `host:port`; loopback unless told otherwise. Reminder links point at `linkHost` (the name
    /// other devices reach this machine by; default `host`).
    public static func application(
        environment: AppEnvironment, host: String, port: Int, linkHost: String? = nil,
        deliveries: [any ReminderDelivery] = [], pairing: PairingCodes = PairingCodes(),
        requestsPerMinute: Int = ServerLimits.requestsPerMinute, limits: ConnectionLimits = ConnectionLimits(),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var logger = Logger(label: "dosetap")
        logger.logLevel = .info
        let hub = EventHub()
        let engine = ReminderEngine(environment: environment, deliveries: [hub] + deliveries)
        // The run is logged before the server listens, so that no request can see tonight's outages without it, and
        // the next run can say when the server, and the night's alarms, were down.
        let run = try? environment.useCases().reminders.serverStarted()
        return Application(
            router: router(environment: environment, hub: hub, pairing: pairing, requestsPerMinute: requestsPerMinute),
            server: .guardedHTTP1(ConnectionGovernor(limits: limits)),
            configuration: .init(address: .hostname(host, port: port), serverName: "dosetap"),
            services: [ReminderEngineService(engine: engine, environment: environment, run: run)],
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await engine.setLinkBase("http://\(linkHost ?? host):\(bound)")
                await onServerRunning(bound)
            },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully.
    public static func run(
        environment: AppEnvironment, host: String, port: Int, linkHost: String? = nil, deliveries: [any ReminderDelivery] = [],
        pairing: PairingCodes = PairingCodes(), requestsPerMinute: Int = ServerLimits.requestsPerMinute,
        limits: ConnectionLimits = ConnectionLimits(), onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        try await application(
            environment: environment, host: host, port: port, linkHost: linkHost, deliveries: deliveries, pairing: pairing,
            requestsPerMinute: requestsPerMinute, limits: limits, onServerRunning: onServerRunning
        ).runService()
    }
}

/// Runs the reminder engine beside the HTTP server and stops with it.
struct ReminderEngineService: Service {
    let engine: ReminderEngine
    let environment: AppEnvironment
    /// This server run's id in the run log (nil if it could not be logged).
    let run: String?

    func run() async throws {
        // The engine's loop ends when its task is cancelled, which graceful shutdown does.
        await cancelWhenGracefulShutdown { await engine.run(heartbeat: run) }
        if let run { try? environment.useCases().reminders.serverAlive(run, stopped: true) }
    }
}
