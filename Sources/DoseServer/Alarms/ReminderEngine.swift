import AsyncHTTPClient
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

    /// An engine over the configured deliveries; `push` nil sends no Web Push.
    public init(environment: AppEnvironment, deliveries: [any ReminderDelivery], push: PushOptions? = nil, linkBase: String? = nil) {
        self.init(channels: AlarmChannels(environment: environment, configured: deliveries, push: push), linkBase: linkBase)
    }

    /// An engine over its channels.
    public init(channels: AlarmChannels, linkBase: String? = nil) {
        environment = channels.environment
        self.channels = channels
        self.linkBase = linkBase
    }

    /// Sets the address links point to (known once the server is listening).
    public func setLinkBase(_ base: String) { linkBase = base }

    /// Checks the plan once and delivers what came due, in time order. With `waitForDeliveries` false (the running
    /// server), deliveries and their retries go on in the background, so a slow push service never delays the next
    /// reminder; tests wait for them.
    @discardableResult
    public func tick(waitForDeliveries: Bool = true) async throws -> DueReminders {
        let app = environment.useCases()
        let due = try app.reminders.takeDue()
        var notices: [ReminderNotice] = []
        for reminder in due.fire.sorted(by: { ($0.fireAt, $0.kind.urgency) < ($1.fireAt, $1.kind.urgency) }) {
            let notice = try notice(for: reminder, due: due, app: app)
            notices.append(notice)
            delivered.append(notice)
            if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
        }
        // The day's refill reminder, claimed in the database so a restart or a second tick never sends it twice; looked
        // at once a minute, which is soon enough for a reminder about days.
        if lastRefillCheck.map({ app.clock.now.timeIntervalSince($0) >= 60 || app.clock.now < $0 }) ?? true,
            let supply = try refillReminder(app)
        {
            let message = "DoseTap: " + Supply.lowSupplyMessage(supply.status, leadDays: supply.settings.pharmacyLeadDays)
            let notice = ReminderNotice.refill(message: message, at: app.clock.now)
            notices.append(notice)
            delivered.append(notice)
            if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
        }
        if !notices.isEmpty {
            let channels = self.channels
            let log = DeliveryLog(recordingTo: environment)
            let settings = due.settings
            let id = UUID()
            let job = Task { [notices] in
                await channels.deliver(notices, settings: settings, log: log)
                self.finished(id)
            }
            inFlight[id] = job
            if waitForDeliveries { await job.value }
        }
        if let lastRevision, lastRevision != due.revision {
            for delivery in channels.configured { await delivery.statusChanged(revision: due.revision) }
        }
        lastRevision = due.revision
        return due
    }

    private func finished(_ id: UUID) { inFlight[id] = nil }

    private func refillReminder(_ app: UseCases) throws -> (status: SupplyStatus, settings: DoseSettings)? {
        lastRefillCheck = app.clock.now
        return try app.supply.claimRefillReminder()
    }

    /// Deliveries still under way (retries waiting).
    public var deliveriesInFlight: Int { inFlight.count }

    func notice(for reminder: Reminder, due: DueReminders, app: UseCases) throws -> ReminderNotice {
        let sessionID = due.sessionID?.rawValue ?? ""
        var tokens: [ActionLink.Action: String] = [:]
        if reminder.kind.audience == .sleeper, !sessionID.isEmpty {
            let signer = try app.reminders.signer()
            let expiresAt = max(reminder.fireAt, app.clock.now).addingTimeInterval(ActionLinkSigner.lifetime)
            // Only buttons that can work: a phone shows two or three at most, and a dead Snooze would take a place.
            for action in ActionLink.Action.allCases where action != .snooze || due.canSnooze {
                let link = ActionLink(action: action, sessionID: sessionID, expiresAt: expiresAt, nonce: ActionLinkSigner.nonce(app.clock.random))
                tokens[action] = signer.token(for: link)
            }
        }
        var message = reminder.kind.message
        if reminder.kind == .escalation, let dose1 = due.dose1At, let zone = due.timeZone {
            let closes = DoseWindow.closes(after: dose1)
            message =
                "DoseTap: Dose 2 has not been taken. Dose 1 was at \(LocalClock.hourMinute(dose1, in: zone)); the window closes at "
                + "\(LocalClock.hourMinute(closes, in: zone)). Please wake them; they decide about the dose."
        }
        return ReminderNotice(
            kind: reminder.kind, fireAt: reminder.fireAt, usefulUntil: reminder.usefulUntil, sessionID: sessionID, message: message, tokens: tokens,
            linkBase: linkBase)
    }

    /// Ticks every second until cancelled; the sleep is injected so tests never wait on a real clock. With a server
    /// run id it also records, every 30 seconds, that the server is alive, so a later run can tell when it was down.
    public func run(
        every interval: Duration = .seconds(1), heartbeat run: String? = nil,
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async {
        var lastHeartbeat = environment.now()
        while !Task.isCancelled {
            // Catching up after a restart happens here, on the first tick: due within 2 minutes fires, older is missed.
            _ = try? await tick(waitForDeliveries: false)
            if let run, environment.now().timeIntervalSince(lastHeartbeat) >= ServerRuns.heartbeatInterval {
                lastHeartbeat = environment.now()
                try? environment.useCases().reminders.serverAlive(run)
            }
            do { try await sleep(interval) } catch { return }
        }
    }
}
