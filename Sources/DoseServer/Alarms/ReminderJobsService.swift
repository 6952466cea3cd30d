public import DoseApp
import DoseCore
public import DoseStore
public import Foundation
import ServiceLifecycle

/// Delivers the reminder jobs of a shared PostgreSQL store, whichever instances run (issue 36): each round it claims
/// the jobs due by now that no live lease holds, with `FOR UPDATE SKIP LOCKED`, and hands each person's to their engine,
/// which logs and sends them. A lease lasts `lease` and is renewed while its deliveries retry; an instance killed
/// mid-delivery loses its leases when they run out, and another takes its jobs over: one not yet logged is taken as
/// new, one logged is sent only on the channels that had not accepted it. A graceful shutdown gives the leases back at
/// once. Between rounds it sleeps until the next job falls due, a quarter of a second at most, so a job planned by
/// another instance is found as soon as a poll would. It also plans the jobs of people whose nights a writer changed
/// without planning them (an import, an older version's command).
public actor ReminderJobs {
    let store: PostgresStore
    let environment: AppEnvironment
    /// This instance's name on its leases: unique per run, so a restarted instance never mistakes a dead run's lease
    /// for its own.
    public nonisolated let owner: String
    /// Only this person's jobs (`serve --person`); nil: everyone's.
    let person: String?
    /// The engine that delivers a person's jobs.
    let engine: @Sendable (String) -> ReminderEngine?
    /// How long a claim holds without renewal.
    public static let lease: TimeInterval = 6
    /// How many jobs one round claims; a round that claims this many is followed by another at once.
    static let batch = 200
    private var inFlight: [UUID: Task<Void, Never>] = [:]
    /// When a round last reached the database and claimed (or found nothing to claim).
    public private(set) var lastRound: Date?
    /// When the next job falls due, as of the last round.
    private var nextDue: Date?

    /// Jobs of `store` delivered through `engine(person)`; `person` limits them to one person.
    public init(store: PostgresStore, environment: AppEnvironment, person: String? = nil, engine: @escaping @Sendable (String) -> ReminderEngine?) {
        self.store = store
        self.environment = environment
        self.person = person
        self.engine = engine
        owner = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UUID().uuidString.prefix(8))"
    }

    /// Whether this instance is claiming work: a round reached the database within the last few seconds.
    public func isClaiming(at now: Date) -> Bool {
        guard let lastRound else { return false }
        return abs(now.timeIntervalSince(lastRound)) < Self.lease / 2
    }

    /// One round, as the running instance makes them: plans the people whose nights changed unplanned, renews the
    /// leases of deliveries under way, claims what is due and starts its delivery. Returns how many jobs it claimed.
    /// Tests wait for the deliveries (`waitForDeliveries`), so what they see is finished.
    @discardableResult
    public func round(waitForDeliveries: Bool = false) async -> Int {
        await planChangedPeople()
        await renewLeases()
        return await claim(waitForDeliveries: waitForDeliveries)
    }

    /// Plans the jobs of the people whose nights changed without them (an import, an older version's command).
    func planChangedPeople() async {
        let (store, person) = (self.store, self.person)
        guard let people = try? await BlockingWork.run({ try store.peopleToPlan(limit: Self.batch) }) else { return }
        for someone in people where person == nil || someone == person {
            _ = try? await BlockingWork.run { try store.planReminderJobs(of: someone) }
        }
    }

    /// Extends the leases of the deliveries under way by a whole lease from now.
    func renewLeases() async {
        guard !inFlight.isEmpty else { return }
        let (store, owner, until) = (self.store, self.owner, environment.now().addingTimeInterval(Self.lease))
        _ = try? await BlockingWork.run { try store.renewReminderLeases(owner: owner, until: until) }
    }

    /// Claims what is due and starts delivering it.
    func claim(waitForDeliveries: Bool = false) async -> Int {
        let now = environment.now()
        let (store, owner, person) = (self.store, self.owner, self.person)
        guard
            let (claimed, next) = try? await BlockingWork.run({
                try store.claimReminderJobs(owner: owner, now: now, lease: Self.lease, limit: Self.batch, person: person)
            })
        else { return 0 }
        lastRound = now
        nextDue = next
        for (someone, jobs) in Dictionary(grouping: claimed, by: \.person) { start(jobs, of: someone) }
        if waitForDeliveries { await self.waitForDeliveries() }
        return claimed.count
    }

    /// Delivers one person's claimed jobs in the background, then finishes them; a delivery that fails leaves them to
    /// the lease's end and whoever claims them next.
    private func start(_ jobs: [ReminderJob], of person: String) {
        let id = UUID()
        let (store, owner, environment, engine) = (self.store, self.owner, self.environment, self.engine(person))
        inFlight[id] = Task {
            guard let engine, (try? await engine.deliverClaimed(jobs)) != nil else { return self.finished(id) }
            _ = try? await BlockingWork.run { try store.finishReminderJobs(jobs, owner: owner, at: environment.now()) }
            self.finished(id)
        }
    }

    private func finished(_ id: UUID) { inFlight[id] = nil }

    /// Waits for the deliveries under way.
    public func waitForDeliveries() async {
        while let job = inFlight.values.first { await job.value }
    }

    /// Claims until cancelled, each round after the next job's due time or `interval`, whichever is sooner; beside it,
    /// and never holding it up, renews the leases every third of a lease and plans changed people every second. Then
    /// gives the leases back, so another instance takes this one's jobs at once.
    public func run(every interval: Duration = .milliseconds(250)) async {
        let sleep = environment.sleep
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    await self.renewLeases()
                    do { try await sleep(.milliseconds(Int(Self.lease * 1000 / 3))) } catch { return }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.planChangedPeople()
                    do { try await sleep(.seconds(1)) } catch { return }
                }
            }
            while !Task.isCancelled {
                let claimed = await claim()
                if claimed >= Self.batch { continue }
                var wait = interval
                if let nextDue {
                    let seconds = max(0.01, nextDue.timeIntervalSince(environment.now()))
                    if seconds < 0.25 { wait = .milliseconds(Int(seconds * 1000)) }
                }
                do { try await sleep(wait) } catch { break }
            }
            group.cancelAll()
        }
        // Deliveries under way finish first (a few seconds at most), so what they are sending is not sent again by the
        // instance that takes the leases; one still retrying after that is handed over with the rest.
        // In a task of its own: this one is cancelled by now, and a cancelled task's sleep returns at once.
        await Task {
            let step = Duration.milliseconds(100)
            var waited = Duration.zero
            while !inFlight.isEmpty, waited < Self.shutdownWait {
                try? await Task.sleep(for: step)
                waited += step
            }
        }.value
        let (store, owner) = (self.store, self.owner)
        _ = try? await BlockingWork.run { try store.releaseReminderLeases(owner: owner) }
    }

    /// How long a shutdown waits for deliveries under way before giving their leases back.
    static let shutdownWait: Duration = .seconds(3)
}

/// Runs the reminder jobs beside the HTTP server; graceful shutdown ends them and gives their leases back.
struct ReminderJobsService: Service {
    let jobs: ReminderJobs

    func run() async throws {
        await cancelWhenGracefulShutdown { await jobs.run() }
    }
}
