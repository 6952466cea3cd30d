public import DoseApp
public import DoseCore
public import DoseStore
import Foundation

/// Somewhere a notice goes: open pages, Web Push, a webhook, a local command.
public protocol ReminderDelivery: Sendable {
    /// Whose notices it carries: the sleeper's reminders, or the escalation contact's notice.
    var audience: ReminderAudience { get }
    /// Delivers one notice, recording every attempt in `log`.
    func deliver(_ notice: ReminderNotice, log: DeliveryLog) async
    /// Tonight changed (from any surface: a page, the API, the CLI, a link).
    func statusChanged(revision: Int) async
}

extension ReminderDelivery {
    public var audience: ReminderAudience { .sleeper }
    public func statusChanged(revision: Int) async {}
}

/// Fires the reminder plan of SPEC §3.4 for the open night: at most once per reminder (logged in the database, so a
/// restart does not repeat one), with reminders missed while the server was down logged as missed, not fired late.
public actor ReminderEngine {
    let environment: AppEnvironment
    let channels: AlarmChannels
    /// The latest notices delivered, newest last (for status pages and tests): a few nights' worth, never more, so a
    /// server that runs for years holds no more than one that started tonight.
    public private(set) var delivered: [ReminderNotice] = []
    /// How many notices `delivered` keeps (a night has about 15).
    public static let deliveredLimit = 64
    /// Where action links point, e.g. `http://192.168.1.20:8080`; nil sends reminders without absolute links (push
    /// notifications still get theirs, relative to the page that subscribed).
    public private(set) var linkBase: String?
    private var lastRevision: Int?
    private var inFlight: [UUID: Task<Void, Never>] = [:]
    private var lastRefillCheck: Date?
    /// Reminders sent from a read whose claim is not written yet, by log key, with their fire time.
    private var sentUnclaimed: [String: Date] = [:]
    /// The background write of the reminder log, one at a time.
    private var claim: Task<Void, Never>?
    /// Notices a claim found that the read had not (due in between), sent with the next tick.
    private var claimedNotices: [ReminderNotice] = []
    /// Sends the escalation ladder's alerts to the people told (everyone of a shared store); nil: no ladder.
    let alertLadder: (@Sendable ([LadderAlert]) async -> Void)?
    private var lastLadderCheck: Date?
    /// Whether this engine finds and sends the plan's reminders itself; on a shared store the reminder jobs do
    /// (`ReminderJobsService`, through `deliverClaimed`), and the engine keeps the rest: the stream, the ladder, refills.
    let firesReminders: Bool
    /// How often the ladder is read: its rungs are minutes of the window, and a read is a few queries.
    static let ladderInterval: TimeInterval = 2

    /// An engine over the configured deliveries; `push` nil sends no Web Push.
    public init(environment: AppEnvironment, deliveries: [any ReminderDelivery], push: PushOptions? = nil, linkBase: String? = nil) {
        self.init(channels: AlarmChannels(environment: environment, configured: deliveries, push: push), linkBase: linkBase)
    }

    /// An engine over its channels.
    public init(
        channels: AlarmChannels, linkBase: String? = nil, alertLadder: (@Sendable ([LadderAlert]) async -> Void)? = nil, firesReminders: Bool = true
    ) {
        environment = channels.environment
        self.channels = channels
        self.linkBase = linkBase
        self.alertLadder = alertLadder
        self.firesReminders = firesReminders
    }

    /// Sets the address links point to (known once the server is listening).
    public func setLinkBase(_ base: String) { linkBase = base }

    /// Checks the plan once and delivers what came due, in time order. With `waitForDeliveries` false (the running
    /// server), deliveries and their retries go on in the background, so a slow push service never delays the next
    /// reminder; tests wait for them.
    ///
    /// What is due is found by a read, which never waits for the writer, and sent at once; the claim in the reminder
    /// log (and the night's lifecycle step) is written after, in the background. A reminder sent but not yet claimed
    /// is remembered here, so a writer busy with an import or another process delays the record, never the alarm.
    @discardableResult
    public func tick(waitForDeliveries: Bool = true) async throws -> DueReminders {
        let app = environment.useCases()
        var (peeked, settles) = try app.reminders.peekDue()
        if !firesReminders {
            (peeked.fire, peeked.missed, settles) = ([], [], false)
        }
        var due = peeked
        due.fire = peeked.fire.filter { !sentUnclaimed.keys.contains($0.logKey) }
        for reminder in due.fire { sentUnclaimed[reminder.logKey] = reminder.fireAt }
        var notices = try due.fire.sorted(by: Self.firstDue).map { try notice(for: $0, due: due, app: app) }
        let claimsWork = !peeked.fire.isEmpty || !peeked.missed.isEmpty || settles
        let refillDue = lastRefillCheck.map { app.clock.now.timeIntervalSince($0) >= 60 || app.clock.now < $0 } ?? true
        if claimsWork || refillDue, claim == nil {
            if refillDue { lastRefillCheck = app.clock.now }
            let sent = Set(sentUnclaimed.keys)
            let environment = self.environment
            let job = Task {
                let outcome: Result<Claimed, any Error>
                do {
                    outcome = .success(
                        try await BlockingWork.run { () -> Claimed in
                            let app = environment.useCases()
                            let taken = claimsWork ? try app.reminders.takeDue(sent: sent) : nil
                            return Claimed(due: taken, at: app.clock.now, refill: refillDue ? try app.supply.claimRefillReminder() : nil)
                        })
                } catch {
                    outcome = .failure(error)
                }
                self.claimed(outcome)
            }
            claim = job
            // Tests wait, so what they see is recorded.
            if waitForDeliveries { await job.value }
        }
        // What a finished claim found due in between goes out with this tick.
        notices += claimedNotices
        claimedNotices = []
        deliver(notices, settings: due.settings)
        if waitForDeliveries {
            await self.waitForDeliveries()
            await DeliveryLog.flush()
        }
        if alertLadder != nil, lastLadderCheck.map({ abs(app.clock.now.timeIntervalSince($0)) >= Self.ladderInterval }) ?? true {
            await checkLadder(waitForDeliveries: waitForDeliveries)
        }
        await pagesSee(revision: due.revision)
        return due
    }

    /// Tells the open pages that tonight changed, when its revision moved since they were last told.
    private func pagesSee(revision: Int) async {
        if let lastRevision, lastRevision != revision {
            for delivery in channels.configured { await delivery.statusChanged(revision: revision) }
        }
        lastRevision = revision
    }

    /// Reads tonight and tells the open pages if it changed: on a shared store another instance may have recorded the
    /// change, and only a read here can see it.
    public func refreshPages() async throws {
        let app = environment.useCases()
        await pagesSee(revision: try app.reminders.peekDue().0.revision)
    }

    /// Alerts the rungs of the escalation ladder now due (a shared store). Each alert is claimed in the night's log
    /// before it is sent, so two checks at once, on two instances, never tell anyone twice.
    public func checkLadder(waitForDeliveries: Bool = false) async {
        guard let alertLadder else { return }
        lastLadderCheck = environment.now()
        let environment = self.environment
        let job = Task {
            let alerts = (try? await BlockingWork.run { try environment.useCases().ladder.due() }) ?? []
            if !alerts.isEmpty { await alertLadder(alerts) }
        }
        if waitForDeliveries { await job.value }
    }

    /// Sends the day's refill reminder, already claimed in the database (so once, whichever instance found it due).
    func sendRefill(_ refill: (status: SupplyStatus, settings: DoseSettings), at instant: Date, waitForDeliveries: Bool = false) async {
        let job = deliver([Self.refillNotice(refill, at: instant)], settings: refill.settings)
        if waitForDeliveries { await job?.value }
    }

    /// What a background claim wrote: the reminders it logged, when, and the day's refill reminder if it was due.
    private struct Claimed: Sendable {
        var due: DueReminders?
        var at: Date
        var refill: (status: SupplyStatus, settings: DoseSettings)?
    }

    /// Earliest first; at one instant, the most urgent first.
    private static func firstDue(_ a: Reminder, _ b: Reminder) -> Bool { (a.fireAt, a.kind.urgency) < (b.fireAt, b.kind.urgency) }

    /// Takes in a finished claim: reminders that came due between the read and the claim are sent now, and those now
    /// in the log are forgotten here. A failed claim (the writer busy past its timeout) is tried again next tick.
    private func claimed(_ outcome: Result<Claimed, any Error>) {
        claim = nil
        guard case .success(let claimed) = outcome else { return }
        if let due = claimed.due {
            let app = environment.useCases()
            let late = due.fire.filter { !sentUnclaimed.keys.contains($0.logKey) }.sorted(by: Self.firstDue)
            claimedNotices += late.compactMap { try? notice(for: $0, due: due, app: app) }
            sentUnclaimed = sentUnclaimed.filter { $0.value > claimed.at }
        }
        if let supply = claimed.refill { claimedNotices.append(Self.refillNotice(supply, at: claimed.at)) }
    }

    /// The day's refill reminder, worded from the supply's figures.
    private static func refillNotice(_ supply: (status: SupplyStatus, settings: DoseSettings), at instant: Date) -> ReminderNotice {
        .refill(message: "DoseTap: " + Supply.lowSupplyMessage(supply.status, leadDays: supply.settings.pharmacyLeadDays), at: instant)
    }

    /// Delivers this person's claimed reminder jobs (a shared store): takes those due, each logged once in the
    /// transaction that marks its job as being delivered, and returns once every channel has been tried, so the caller
    /// can finish the jobs. One resumed from an instance that died goes only where that instance's attempts were not
    /// accepted. Returns the notices sent.
    @discardableResult
    public func deliverClaimed(_ jobs: [ReminderJob]) async throws -> [ReminderNotice] {
        let environment = self.environment
        let claimed = Set(jobs.map(\.logKey))
        let resuming = Set(jobs.filter { $0.state == .sending }.map(\.logKey))
        let (due, before) = try await BlockingWork.run { () -> (DueReminders, [AlarmDeliveryRecord]) in
            let app = environment.useCases()
            let due = try app.reminders.takeClaimed(claimed, resuming: resuming)
            guard let night = due.sessionID, !due.resumed.isEmpty else { return (due, []) }
            return (due, try app.alarms.deliveries(night: night))
        }
        let app = environment.useCases()
        let notices = try (due.fire + due.resumed).sorted(by: Self.firstDue).map { try notice(for: $0, due: due, app: app) }
        await deliver(notices, settings: due.settings, log: DeliveryLog(recordingTo: environment, acceptedBefore: before))?.value
        await DeliveryLog.flush()
        return notices
    }

    /// Hands notices to the channels in the background (remembering them for status pages and tests); returns the
    /// delivery's task.
    @discardableResult
    private func deliver(_ notices: [ReminderNotice], settings: DoseSettings?, log: DeliveryLog? = nil) -> Task<Void, Never>? {
        guard !notices.isEmpty else { return nil }
        let person = environment.store.personID
        let notices = notices.map { notice in
            var named = notice
            named.person = person
            return named
        }
        delivered += notices
        if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
        let channels = self.channels
        let log = log ?? DeliveryLog(recordingTo: environment)
        let id = UUID()
        let job = Task { [notices] in
            await channels.deliver(notices, settings: settings, log: log)
            self.finished(id)
        }
        inFlight[id] = job
        return job
    }

    private func finished(_ id: UUID) { inFlight[id] = nil }

    /// Waits for the reminder log's background claim under way, if any.
    public func waitForClaim() async { await claim?.value }

    /// Waits for the deliveries under way (their attempts are written after, in order: `DeliveryLog.flush`).
    public func waitForDeliveries() async { for job in inFlight.values { await job.value } }

    /// Deliveries still under way (retries waiting).
    public var deliveriesInFlight: Int { inFlight.count }

    func notice(for reminder: Reminder, due: DueReminders, app: UseCases) throws -> ReminderNotice {
        ServerMetrics.reminderSent(fireAt: reminder.fireAt, now: app.clock.now)
        let sessionID = due.sessionID?.rawValue ?? ""
        var tokens: [ActionLink.Action: String] = [:]
        var links: [ActionLink.Action: ActionLink] = [:]
        if reminder.kind.audience == .sleeper, !sessionID.isEmpty {
            let signer = try app.reminders.signer()
            let expiresAt = max(reminder.fireAt, app.clock.now).addingTimeInterval(ActionLinkSigner.lifetime)
            // Only buttons that can work: a phone shows two or three at most, and a dead Snooze would take a place.
            for action in ActionLink.Action.allCases where action != .snooze || due.canSnooze {
                let link = ActionLink(action: action, sessionID: sessionID, expiresAt: expiresAt, nonce: ActionLinkSigner.nonce(app.clock.random))
                links[action] = link
                tokens[action] = signer.token(for: link)
            }
        }
        var message = reminder.kind.message
        if reminder.kind == .escalation, let dose1 = due.dose1At, let zone = due.timeZone {
            // An escalation is useful until the window closes.
            let closes = reminder.usefulUntil
            message =
                "DoseTap: Dose 2 has not been taken. Dose 1 was at \(LocalClock.hourMinute(dose1, in: zone)); the window closes at "
                + "\(LocalClock.hourMinute(closes, in: zone)). Please wake them; they decide about the dose."
        }
        var notice = ReminderNotice(
            kind: reminder.kind, fireAt: reminder.fireAt, usefulUntil: reminder.usefulUntil, sessionID: sessionID, message: message, tokens: tokens,
            linkBase: linkBase)
        notice.actionLinks = links
        return notice
    }

    /// Ticks every quarter second until cancelled, waiting through the environment's sleep so tests never wait on a
    /// real clock. With a server run id it also records, every 30 seconds, that the server is alive, so a later run can
    /// tell when it was down.
    public func run(every interval: Duration = .milliseconds(250), heartbeat run: String? = nil) async {
        // A tick reads the plan synchronously. On PostgreSQL that read is a round trip, and two engines waiting on a
        // stalled database would hold both threads of Swift's cooperative pool, and every timer with them (the health
        // check's deadline among them); on the request threads they wait like any request.
        await withTaskExecutorPreference(BlockingExecutor.shared) { await loop(every: interval, heartbeat: run) }
    }

    private func loop(every interval: Duration, heartbeat run: String?) async {
        var lastHeartbeat = environment.now()
        while !Task.isCancelled {
            // On a shared store the reminder jobs ring; with no page open here the engine has only the ladder (read every
            // 2 s) and the refill to look at, so it looks no more often than that.
            let watched = await channels.hasOpenPages()
            let pace = firesReminders || watched ? interval : .seconds(Self.ladderInterval)
            // Catching up after a restart happens here, on the first tick: due within 2 minutes fires, older is missed.
            _ = try? await tick(waitForDeliveries: false)
            if let run, environment.now().timeIntervalSince(lastHeartbeat) >= ServerUptime.heartbeatInterval {
                lastHeartbeat = environment.now()
                // In the background: a busy writer must not hold up the next tick.
                let environment = self.environment
                Task { _ = try? await BlockingWork.run { try environment.useCases().reminders.serverAlive(run) } }
            }
            do { try await environment.sleep(pace) } catch { return }
        }
    }
}
