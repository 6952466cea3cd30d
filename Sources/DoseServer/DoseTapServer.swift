public import DoseApp
import DoseCore
import DoseStore
public import Foundation
public import Hummingbird
import HummingbirdCore
import Logging
public import ServiceLifecycle
import UnixSignals

/// `dosetap serve`: builds the router and the application.
public enum DoseTapServer {
    /// Whether a path answers without a paired device: health, the pairing link, the page assets, and reminder
    /// action links (which are signed instead).
    public static func isOpen(_ path: String) -> Bool { AuthMiddleware.isOpen(path) }

    /// Caps the memory allocator's arenas for a long-running server (`ProcessMemory`): called first, before any thread
    /// allocates.
    public static func limitMemoryArenas() { ProcessMemory.limitArenas() }

    /// The router with every route and middleware; tests drive it directly.
    public static func router(
        environment: AppEnvironment, hub: EventHub? = nil, pairing: PairingCodes = PairingCodes(),
        requestsPerMinute: Int = ServerLimits.requestsPerMinute,
        internalErrors: InternalErrorLog = InternalErrorLog(), channels: AlarmChannels? = nil, people: PeopleSites? = nil,
        jobs: ReminderJobs? = nil, heavy: HeavyWork? = nil
    ) -> Router<DoseRequestContext> {
        let sites: SiteMiddleware.Sites
        if let people {
            sites = .everyone(people)
        } else {
            let hub = hub ?? eventHub(environment)
            let channels = channels ?? AlarmChannels(environment: environment, configured: [hub], push: PushOptions(sleep: environment.sleep))
            sites = .one(PersonSite(environment: environment, hub: hub, channels: channels, pairing: pairing, people: nil))
        }
        // HEAD answers as GET without the body (RFC 9110 §9.3.2), through the same middleware.
        let router = Router(context: DoseRequestContext.self, options: .autoGenerateHeadEndpoints)
        let routes = RouteTable()
        // Latency by route, only once `serve --metrics-port` turned collection on (before any router is built).
        if let metrics = ServerMetrics.enabled { router.add(middleware: RequestMetricsMiddleware(metrics: metrics)) }
        if case .postgres = environment.store { router.add(middleware: BlockingExecutorMiddleware()) }
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(
            middleware: ErrorMiddleware(
                internalErrors: internalErrors, routes: routes, hosted: environment.store.shared != nil,
                signUpDomain: environment.sendsMail ? environment.signUp.openDomain : nil))
        // Whose records the request acts on: the one person's, or the person its credential names (one query).
        router.add(middleware: SiteMiddleware(sites: sites))
        router.add(middleware: AuthMiddleware(limits: RequestLimits(limit: requestsPerMinute)))
        // A person's request for someone who shares with them goes on to that person's site, if a grant opens it.
        router.add(middleware: SharedAccessMiddleware())
        // Each person's heavy work is counted in one place, whichever instance of the router serves it.
        router.add(middleware: HeavyWorkMiddleware(heavy: heavy ?? people?.heavyWork ?? HeavyWork()))
        router.add(middleware: QueryMiddleware())
        let health = HealthChecks(environment: environment, jobs: jobs)
        router.get("/health") { _, _ in Reply.json(await health.health()) }
        router.get("/ready") { _, _ in try await health.readiness() }
        router.get("/openapi.json") { _, _ in Reply.json(text: APIContract.document) }
        // The JSON API of SPEC §5.3, one controller per concern, each made for the request's site; each reaches the use
        // cases, never a store.
        for controller in [
            NightController.routes, RecordsController.routes, SettingsController.routes, TransferController.routes, SupplyController.routes,
            AlarmController.routes, SharingController.routes,
        ] {
            router.addRoutes(controller, atPath: "/v1")
        }
        // The web app, one controller per concern, each made for the request's site.
        for controller in [
            TonightPages.routes, HistoryPages.routes, QuestionnairePages.routes, MedicationPages.routes, InsightsPages.routes, SupplyPages.routes,
            SettingsPages.routes, AlarmPages.routes, SupportPages.routes, WelcomePages.routes, SetupRoutes.routes, ActionLinkRoutes.routes,
            SignInPages.routes, JoinPages.routes, SignUpPages.routes, InvitationPages.routes, SharingPages.routes, OperatorPages.routes,
            AppShell.routes,
        ] {
            router.addRoutes(controller)
        }
        routes.load(router.routes.map { ($0.path.description, $0.method.rawValue) })
        return router
    }

    /// The hub of open pages, signing each page's links for the device that opened it. Its watch keeps the wall clock's
    /// pace, never the environment's: an open page is a connection in real time, and a test's instant sleep would turn
    /// the watch of a page left open into a loop that never rests.
    public static func eventHub(_ environment: AppEnvironment, pagesChanged: (@Sendable (Int) -> Void)? = nil) -> EventHub {
        EventHub(signer: { try? environment.useCases().reminders.signer() }, pagesChanged: pagesChanged)
    }

    /// The applications of one `dosetap serve`: the main one on `listener` (HTTPS when it has certificate files), and
    /// plain HTTP on loopback beside it when asked for; both share one router, one event hub and one reminder engine.
    /// Reminder links point at `linkHost` (the name other devices reach this machine by; default the host), or at
    /// `publicURL` when people reach it through a proxy. With
    /// `everyone`, a shared PostgreSQL store is served for each of its people (`PeopleSites`), not only the environment's.
    public static func applications(
        environment: AppEnvironment, listener: Listener, linkHost: String? = nil, publicURL: String? = nil,
        deliveries: [any ReminderDelivery] = [], push: PushOptions? = nil, pairing: PairingCodes = PairingCodes(),
        requestsPerMinute: Int = ServerLimits.requestsPerMinute, limits: ConnectionLimits = ConnectionLimits(), everyone: Bool = false,
        mail: SMTPClient? = nil, mailLease: TimeInterval = MailSender.defaultLease, metricsPort: Int? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> [any Service] {
        var environment = environment
        var services: [any Service] = []
        if let metricsPort {
            services.append(ServerMetrics.enable().application(port: metricsPort, environment: environment, logger: environment.logger))
        }
        // A shared store's mail queue is sent by every instance that has a mail server, once each message.
        if let mail, let shared = environment.store.shared {
            environment.sendsMail = true
            services.append(MailSendingService(sender: MailSender(store: shared, client: mail, environment: environment, lease: mailLease)))
        }
        let logger = environment.logger
        let router: Router<DoseRequestContext>
        let reminders: any Service
        let setLinkBase: @Sendable (String) async -> Void
        if everyone,
            let people = PeopleSites(
                environment: environment, pairing: pairing, deliveries: deliveries, push: push, requestsPerMinute: requestsPerMinute)
        {
            people.publicURL = publicURL
            router = people.router()
            reminders = PeopleRemindersService(people: people)
            setLinkBase = { await people.setLinkBase($0) }
        } else {
            let hub = eventHub(environment)
            let channels = AlarmChannels(
                environment: environment, configured: [hub] + deliveries, push: push ?? PushOptions(sleep: environment.sleep))
            // On PostgreSQL the reminder jobs deliver, so another instance serving the same person never rings twice.
            let engine = ReminderEngine(channels: channels, firesReminders: environment.store.shared == nil)
            let jobs = environment.store.shared.map { store in
                ReminderJobs(store: store, environment: environment, person: environment.store.personID) { _ in engine }
            }
            router = Self.router(
                environment: environment, hub: hub, pairing: pairing, requestsPerMinute: requestsPerMinute, channels: channels, jobs: jobs)
            // The run is logged before the server listens, so that no request can see tonight's outages without it, and
            // the next run can say when the server, and the night's alarms, were down.
            let run = try? environment.useCases().reminders.serverStarted()
            // The link key is made now, so no reminder ever waits for the writer to make it.
            _ = try? environment.useCases().reminders.signer()
            reminders = ReminderEngineService(engine: engine, jobs: jobs, environment: environment, run: run)
            setLinkBase = { await engine.setLinkBase($0) }
        }
        let governor = ConnectionGovernor(limits: limits)
        var server = HTTPServerBuilder.guardedHTTP1(governor)
        if let tls = listener.tls {
            let holder = try TLSContextHolder(tls)
            server = .guardedHTTPS(governor, holder)
            services.append(
                CertificateRenewalService(
                    files: tls, holder: holder, environment: environment, interval: listener.certificateCheckInterval, logger: logger))
        }
        let scheme = listener.tls == nil ? "http" : "https"
        let main = Application(
            responder: ListenerResponder(inner: router.buildResponder(), secure: listener.tls != nil, trustedProxies: listener.trustedProxies),
            server: server,
            configuration: .init(address: .hostname(listener.host, port: listener.port), serverName: "dosetap"),
            services: [reminders] + services,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? listener.port
                await setLinkBase(publicURL ?? "\(scheme)://\(linkHost ?? listener.host):\(bound)")
                await onServerRunning(bound)
            },
            logger: logger)
        guard let plainPort = listener.loopbackHTTPPort else { return [main] }
        let plain = Application(
            responder: ListenerResponder(inner: router.buildResponder(), secure: false, trustedProxies: listener.trustedProxies),
            server: .guardedHTTP1(ConnectionGovernor(limits: limits)),
            configuration: .init(address: .hostname("127.0.0.1", port: plainPort), serverName: "dosetap"), logger: logger)
        return [main, plain]
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully.
    public static func run(
        environment: AppEnvironment, listener: Listener, linkHost: String? = nil, publicURL: String? = nil, deliveries: [any ReminderDelivery] = [],
        push: PushOptions? = nil, pairing: PairingCodes = PairingCodes(), requestsPerMinute: Int = ServerLimits.requestsPerMinute,
        limits: ConnectionLimits = ConnectionLimits(), everyone: Bool = false, mail: SMTPClient? = nil,
        mailLease: TimeInterval = MailSender.defaultLease, metricsPort: Int? = nil, onServerRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let services = try applications(
            environment: environment, listener: listener, linkHost: linkHost, publicURL: publicURL, deliveries: deliveries, push: push,
            pairing: pairing,
            requestsPerMinute: requestsPerMinute, limits: limits, everyone: everyone, mail: mail, mailLease: mailLease,
            metricsPort: metricsPort, onServerRunning: onServerRunning)
        // Listed last, so shut down first: an import under way stops before the server waits for its request.
        let group = ServiceGroup(
            configuration: .init(
                services: services + [ImportStopService(imports: environment.store.imports)], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: environment.logger))
        try await group.run()
    }
}

/// Stops every import under way as soon as graceful shutdown begins; each keeps nothing and answers 503.
struct ImportStopService: Service {
    let imports: ImportStops

    func run() async throws {
        try? await gracefulShutdown()
        imports.stopAll()
    }
}

/// Where `dosetap serve` listens, and whether it speaks HTTPS.
public struct Listener: Sendable {
    public var host: String
    public var port: Int
    /// The certificate and key for HTTPS; nil serves plain HTTP.
    public var tls: TLSFiles?
    /// With HTTPS: also plain HTTP on 127.0.0.1 at this port, for programs on this machine.
    public var loopbackHTTPPort: Int?
    /// The proxies whose `X-Forwarded-For` is believed (`serve --trusted-proxy`); none by default.
    public var trustedProxies: [AddressRange] = []
    /// Whether a host name or address is this machine itself, which browsers treat as a secure context like HTTPS.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "::1"
    }

    /// With HTTPS: how often the running server looks at its certificate (renewal is due 30 days before the end).
    public var certificateCheckInterval: Duration = .seconds(12 * 3_600)

    /// A listener on `host:port`.
    public init(host: String, port: Int, tls: TLSFiles? = nil, loopbackHTTPPort: Int? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.loopbackHTTPPort = loopbackHTTPPort
    }
}

/// Runs the reminder engine beside the HTTP server and stops with it.
struct ReminderEngineService: Service {
    let engine: ReminderEngine
    /// On PostgreSQL, the person's reminder jobs.
    let jobs: ReminderJobs?
    let environment: AppEnvironment
    /// This server run's id in the run log (nil if it could not be logged).
    let run: String?

    func run() async throws {
        // The engine's loop ends when its task is cancelled, which graceful shutdown does.
        await cancelWhenGracefulShutdown {
            async let engine: Void = engine.run(heartbeat: run)
            async let jobs: Void = jobs?.run() ?? ()
            _ = await (engine, jobs)
        }
        if let run { try? environment.useCases().reminders.serverAlive(run, stopped: true) }
    }
}
