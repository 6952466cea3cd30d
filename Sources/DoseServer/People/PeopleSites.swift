public import DoseApp
import DoseCore
import DoseStore
import Foundation
public import Hummingbird
import ServiceLifecycle
import Synchronization

/// Everyone of a shared PostgreSQL store served by one `dosetap serve` (SPEC §5.6). Each person has a site of their
/// own: the whole router over an environment that reads and writes only their records, with their open pages and their
/// reminder engine. A request reaches a site only through something that names its person (a paired device's token, a
/// pairing code, a reminder link's night, a sign-in link); everything else, and every credential that names no one, is
/// answered by the lobby, a router over nobody's records, where a protected route answers "not paired".
public final class PeopleSites: Sendable {
    /// One person's routes, open pages and reminders.
    struct Site: Sendable {
        let environment: AppEnvironment
        /// Built at the person's first request: most people's sites exist here only to deliver their reminders.
        let routes: LazyResponder
        let channels: AlarmChannels
        let engine: ReminderEngine

        var responder: RouterResponder<DoseRequestContext> { routes.responder }
    }

    let shared: PostgresStore
    let base: AppEnvironment
    let pairing: PairingCodes
    let deliveries: [any ReminderDelivery]
    let push: PushOptions?
    let requestsPerMinute: Int
    let internalErrors: InternalErrorLog
    private let sites = Mutex<[String: Site]>([:])
    /// When each site was last asked for (a request, a delivery, the upkeep), so idle ones can be let go.
    private let lastUse = Mutex<[String: Date]>([:])
    private let linkBase = Mutex<String?>(nil)
    private let jobsMade = Mutex<ReminderJobs?>(nil)
    /// The people with a page open on this instance: the upkeep reads their nights, and no one else's, for the stream.
    let watched = Mutex<Set<String>>([])

    /// The people of `environment`'s store, each served with the configured channels; nil on a SQLite file.
    public init?(
        environment: AppEnvironment, pairing: PairingCodes, deliveries: [any ReminderDelivery] = [], push: PushOptions? = nil,
        requestsPerMinute: Int = ServerLimits.requestsPerMinute, internalErrors: InternalErrorLog = InternalErrorLog()
    ) {
        guard let shared = environment.store.shared else { return nil }
        self.shared = shared
        base = environment
        self.pairing = pairing
        self.deliveries = deliveries
        self.push = push
        self.requestsPerMinute = requestsPerMinute
        self.internalErrors = internalErrors
        let jobs = ReminderJobs(store: shared, environment: environment) { [weak self] person in self?.site(person).engine }
        jobsMade.withLock { $0 = jobs }
    }

    /// Each person's heavy work running now, counted for all their sites and grants.
    let heavyWork = HeavyWork()

    /// Everyone's reminder jobs, claimed by this instance as by any other.
    public var jobs: ReminderJobs { jobsMade.withLock { $0! } }

    /// The router every request enters by: the lobby's routes, with the step that hands a person's request to their site.
    public func router() -> Router<DoseRequestContext> {
        var lobby = base
        lobby.store = base.store.of(person: RecordStore.nobody)
        return DoseTapServer.router(
            environment: lobby, pairing: PairingCodes(), requestsPerMinute: requestsPerMinute, internalErrors: internalErrors, shared: .lobby(self),
            jobs: jobs)
    }

    /// The site of `person`, made on first use.
    func site(_ person: String) -> Site {
        let now = base.now()
        lastUse.withLock { $0[person] = now }
        if let site = sites.withLock({ $0[person] }) { return site }
        var environment = base
        environment.store = base.store.of(person: person)
        let hub = DoseTapServer.eventHub(environment) { [weak self] pages in
            self?.watched.withLock { watched in
                if pages > 0 { watched.insert(person) } else { watched.remove(person) }
            }
        }
        let channels = AlarmChannels(environment: environment, configured: [hub] + deliveries, push: push ?? PushOptions(sleep: environment.sleep))
        let routes = LazyResponder { [self, environment] in
            DoseTapServer.router(
                environment: environment, hub: hub, pairing: pairing, requestsPerMinute: requestsPerMinute, internalErrors: internalErrors,
                channels: channels, shared: .person(self)
            ).buildResponder()
        }
        let owner = environment
        let made = Site(
            environment: environment, routes: routes, channels: channels,
            engine: ReminderEngine(
                channels: channels, linkBase: linkBase.withLock { $0 }, alertLadder: { [self] alerts in await alert(alerts, from: owner) },
                firesReminders: false))
        // Two first requests at once may both build one; the first kept is the one both use.
        return sites.withLock { sites in
            if let kept = sites[person] { return kept }
            sites[person] = made
            return made
        }
    }

    /// Tells each rung of a person's ladder on that rung's own channels (their open pages, their alarm subscriptions, the
    /// operator's hook naming them), as an alarm with no action in it; the attempts go in the person's alarm log.
    func alert(_ alerts: [LadderAlert], from owner: AppEnvironment) async {
        let log = DeliveryLog(recordingTo: owner)
        for alert in alerts {
            let site = site(alert.person)
            var notice = ReminderNotice.ladder(alert)
            notice.person = alert.person
            await site.channels.deliver([notice], settings: nil, log: log)
        }
        await DeliveryLog.flush()
    }

    /// Forgets the site of a person who is gone.
    func forget(_ person: String) {
        _ = sites.withLock { $0.removeValue(forKey: person) }
        _ = lastUse.withLock { $0.removeValue(forKey: person) }
    }

    /// Lets go of the sites not asked for since `cutoff`, with no page open here and no delivery under way: a site
    /// holds a person's routes, so an instance serving thousands keeps only those of the people active lately. A site
    /// let go is made again when next needed; all it held is in the database.
    @discardableResult
    func releaseIdleSites(before cutoff: Date) async -> Int {
        let idle = lastUse.withLock { $0.filter { $0.value < cutoff }.map(\.key) }
        let watching = watched.withLock { $0 }
        var released = 0
        for person in idle where !watching.contains(person) {
            guard let site = sites.withLock({ $0[person] }), await site.engine.deliveriesInFlight == 0 else { continue }
            forget(person)
            released += 1
        }
        return released
    }

    /// How many people's sites this instance holds now.
    var siteCount: Int { sites.withLock { $0.count } }

    /// Sets where every site's reminder links point, once the server knows its address.
    public func setLinkBase(_ base: String) async {
        linkBase.withLock { $0 = base }
        for site in sites.withLock({ Array($0.values) }) { await site.engine.setLinkBase(base) }
    }

    /// The environment of the person a sign-in link's hash was made for; nil when it was made for no one here.
    var signInOwner: @Sendable (_ tokenHash: String) throws -> AppEnvironment? {
        { [self] hash in try shared.owner(of: .signInLink(hash: hash)).map { site($0).environment } }
    }

    /// The person whose site answers `request`, or nil for the lobby; for a device's token, the device too, found in the
    /// same query.
    func person(answering request: Request) async throws -> (person: String, device: DeviceRecord?)? {
        let path = request.uri.path
        if path.hasPrefix(AuthMiddleware.openPrefix) {
            guard let night = ActionLinkSigner.claimedNight(of: String(path.dropFirst(AuthMiddleware.openPrefix.count))),
                let person = try shared.owner(of: .night(id: night))
            else {
                // No key of the lobby's could check it, and none should be made for nobody: refused as any forged link.
                throw ActionLinkSigner.forged
            }
            return (person, nil)
        }
        if path == "/pair" {
            let code = request.uri.queryParameters["code"].map(String.init) ?? ""
            return await pairing.owner(of: code, now: base.now()).flatMap { $0 }.map { ($0, nil) }
        }
        if AuthMiddleware.isOpen(path) { return nil }
        guard let (token, _) = try AuthMiddleware.credential(request) else { return nil }
        return try shared.activeDevice(tokenHash: DeviceTokens.hash(token)).map { ($0.person, $0.device) }
    }
}

/// Which part a router plays for everyone of a shared store.
public enum SharedRole: Sendable {
    /// The router every request enters by, over nobody's records.
    case lobby(PeopleSites)
    /// One person's site.
    case person(PeopleSites)

    /// The people served.
    var people: PeopleSites {
        switch self {
        case .lobby(let people), .person(let people): people
        }
    }
}

/// Hands each request of a person to that person's site; what names no one stays with the lobby.
struct PeopleMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let people: PeopleSites

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix(AuthMiddleware.openPrefix), !ActionLinkRoutes.methods.contains(request.method) {
            // A reminder link takes GET and POST, whoever's it is: another method is told so before its token is read.
            let allowed = ActionLinkRoutes.methods.map(\.rawValue).sorted()
            var response = Reply.error(.methodNotAllowed(method: request.method.rawValue, path: request.uri.path, allowed: allowed))
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        }
        guard let answering = try await people.person(answering: request) else { return try await next(request, context) }
        var context = context
        context.device = answering.device
        return try await people.site(answering.person).responder.respond(to: request, context: context)
    }
}

/// Runs everyone's reminder jobs and everyone's upkeep beside the HTTP server and stops them with it.
struct PeopleRemindersService: Service {
    let people: PeopleSites

    func run() async throws {
        await cancelWhenGracefulShutdown {
            async let upkeep: Void = people.runUpkeep()
            async let jobs: Void = people.jobs.run()
            _ = await (upkeep, jobs)
        }
    }
}

/// A router built on first use, once.
final class LazyResponder: Sendable {
    private let build: @Sendable () -> RouterResponder<DoseRequestContext>
    private let built = Mutex<RouterResponder<DoseRequestContext>?>(nil)

    init(_ build: @escaping @Sendable () -> RouterResponder<DoseRequestContext>) { self.build = build }

    var responder: RouterResponder<DoseRequestContext> {
        if let made = built.withLock({ $0 }) { return made }
        let made = build()
        return built.withLock { kept in
            if let kept { return kept }
            kept = made
            return made
        }
    }
}
