public import DoseApp
import DoseCore
import DoseStore
import Foundation
public import Hummingbird
import ServiceLifecycle
import Synchronization

/// Everyone of a shared PostgreSQL store served by one `dosetap serve` (SPEC §5.6), through one router. Each person has a
/// site: an environment that reads and writes only their records, with their open pages and their reminder engine, kept
/// in one registry with a bound (`limit`). A request acts on a site only through something that names its person (a
/// paired device's token, a pairing code, a reminder link's night, a sign-in link), which `SiteMiddleware` resolves in
/// one query; everything else, and every credential that names no one, acts on the lobby, over nobody's records, where a
/// protected route answers "not paired".
public final class PeopleSites: Sendable {
    /// One person's records, open pages and reminders.
    struct Site: Sendable {
        /// What a request of theirs acts on.
        let served: PersonSite
        let engine: ReminderEngine

        var environment: AppEnvironment { served.environment }
        var channels: AlarmChannels { served.channels }
    }

    let shared: PostgresStore
    let base: AppEnvironment
    let pairing: PairingCodes
    let deliveries: [any ReminderDelivery]
    let push: PushOptions?
    let requestsPerMinute: Int
    let internalErrors: InternalErrorLog
    /// The most sites kept at once: past it, the one asked for least lately with no page open here is let go (made again
    /// when next needed; all it held is in the database).
    let limit: Int
    private let sites = Mutex<[String: Site]>([:])
    /// When each site was last asked for (a request, a delivery, the upkeep), so idle ones can be let go.
    private let lastUse = Mutex<[String: Date]>([:])
    private let linkBase = Mutex<String?>(nil)
    /// `serve --public-url`: where people reach this DoseTap, which every link a page makes points at, whatever a
    /// request's Host says (nil: the request's own address).
    private let publicAddress = Mutex<String?>(nil)
    private let jobsMade = Mutex<ReminderJobs?>(nil)
    /// The router's responder, for a grantee's request handed on to the person's route (`SharedAccessMiddleware`).
    private let builtResponder = Mutex<RouterResponder<DoseRequestContext>?>(nil)
    /// The people with a page open on this instance: the upkeep reads their nights, and no one else's, for the stream.
    let watched = Mutex<Set<String>>([])
    /// The environment over nobody's records, with its hub and channels: the lobby's (`lobby`).
    private let nobody: (environment: AppEnvironment, hub: EventHub, channels: AlarmChannels)

    /// The site of requests that name no one (sign-in links are answered there, for whoever they name).
    var lobby: PersonSite {
        PersonSite(environment: nobody.environment, hub: nobody.hub, channels: nobody.channels, pairing: pairing, people: self)
    }

    /// The people of `environment`'s store, each served with the configured channels; nil on a SQLite file.
    public init?(
        environment: AppEnvironment, pairing: PairingCodes, deliveries: [any ReminderDelivery] = [], push: PushOptions? = nil,
        requestsPerMinute: Int = ServerLimits.requestsPerMinute, internalErrors: InternalErrorLog = InternalErrorLog(), limit: Int = 20_000
    ) {
        guard let shared = environment.store.shared else { return nil }
        self.shared = shared
        base = environment
        self.pairing = pairing
        self.deliveries = deliveries
        self.push = push
        self.requestsPerMinute = requestsPerMinute
        self.internalErrors = internalErrors
        self.limit = max(1, limit)
        var nobody = environment
        nobody.store = environment.store.of(person: RecordStore.nobody)
        let hub = DoseTapServer.eventHub(nobody)
        self.nobody = (nobody, hub, AlarmChannels(environment: nobody, configured: [hub], push: PushOptions(sleep: nobody.sleep)))
        let jobs = ReminderJobs(store: shared, environment: environment) { [weak self] person in self?.site(person).engine }
        jobsMade.withLock { $0 = jobs }
    }

    /// Each person's heavy work running now, counted for all their requests and grants.
    let heavyWork = HeavyWork()

    /// Everyone's reminder jobs, claimed by this instance as by any other.
    public var jobs: ReminderJobs { jobsMade.withLock { $0! } }

    /// The one router every request of everyone goes through.
    public func router() -> Router<DoseRequestContext> {
        let router = DoseTapServer.router(
            environment: lobby.environment, pairing: pairing, requestsPerMinute: requestsPerMinute, internalErrors: internalErrors, people: self,
            jobs: jobs)
        builtResponder.withLock { $0 = router.buildResponder() }
        return router
    }

    /// The router's responder, which a grantee's request re-enters as the person's route (a request can only arrive
    /// through `router()`, which builds it).
    var responder: RouterResponder<DoseRequestContext> {
        guard let built = builtResponder.withLock({ $0 }) else { preconditionFailure("a request arrived before PeopleSites.router() was built") }
        return built
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
        let owner = environment
        let made = Site(
            served: PersonSite(environment: environment, hub: hub, channels: channels, pairing: pairing, people: self),
            engine: ReminderEngine(
                channels: channels, linkBase: linkBase.withLock { $0 }, alertLadder: { [self] alerts in await alert(alerts, from: owner) },
                firesReminders: false))
        // Two first requests at once may both make one; the first kept is the one both use.
        let kept = sites.withLock { sites in
            if let kept = sites[person] { return kept }
            sites[person] = made
            return made
        }
        keepWithinLimit(sparing: person)
        return kept
    }

    /// Lets go of the sites asked for least lately, none with a page open here, until no more than `limit` are kept.
    private func keepWithinLimit(sparing person: String) {
        let watching = watched.withLock { $0 }
        while sites.withLock({ $0.count }) > limit {
            let spare = lastUse.withLock { uses in
                uses.filter { $0.key != person && !watching.contains($0.key) }.min { $0.value < $1.value }?.key
            }
            guard let spare else { return }
            forget(spare)
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

    /// Lets go of the sites not asked for since `cutoff`, with no page open here and no delivery under way, so an
    /// instance serving thousands keeps only those of the people active lately. A site
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

    /// The address people reach this DoseTap at (`serve --public-url`), which the links pages make point at.
    public var publicURL: String? {
        get { publicAddress.withLock { $0 } }
        set { publicAddress.withLock { $0 = newValue } }
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

    /// Whose site a request acts on; for a device's token, the device too, and the request counted in its window.
    struct Answering {
        let person: String
        var device: DeviceRecord?
        var counted: RequestAdmission?
    }

    /// The person whose site `request` acts on, or nil for the lobby; for a device's token, the device and the request's
    /// count in its window too, found and counted in the same round trip.
    func person(answering request: Request) async throws -> Answering? {
        let path = request.uri.path
        if path.hasPrefix(AuthMiddleware.openPrefix) {
            guard let night = ActionLinkSigner.claimedNight(of: String(path.dropFirst(AuthMiddleware.openPrefix.count))),
                let person = try shared.owner(of: .night(id: night))
            else {
                // No key of the lobby's could check it, and none should be made for nobody: refused as any forged link.
                throw ActionLinkSigner.forged
            }
            return Answering(person: person)
        }
        if path == "/pair" {
            let code = request.uri.queryParameters["code"].map(String.init) ?? ""
            return await pairing.owner(of: code, now: base.now()).flatMap { $0 }.map { Answering(person: $0) }
        }
        if AuthMiddleware.isOpen(path) { return nil }
        guard let (token, _) = try AuthMiddleware.credential(request) else { return nil }
        // Found, and this request counted in the device's window, in one round trip: `AuthMiddleware` counts it no more.
        let found = try shared.activeDevice(tokenHash: DeviceTokens.hash(token), countingRequestAt: base.now(), limit: requestsPerMinute)
        return found.map { Answering(person: $0.person, device: $0.device, counted: RequestAdmission(retryAfter: $0.retryAfter)) }
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
