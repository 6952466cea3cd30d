public import DoseApp
public import DoseCore
public import DoseStore
public import Foundation

/// One reminder as it is delivered.
public struct ReminderNotice: Sendable, Hashable {
    public var kind: ReminderKind
    public var fireAt: Date
    public var sessionID: String
    /// Signed one-time action links (absolute URLs), when the server knows its address.
    public var links: [ActionLink.Action: String]

    public init(kind: ReminderKind, fireAt: Date, sessionID: String, links: [ActionLink.Action: String] = [:]) {
        self.kind = kind
        self.fireAt = fireAt
        self.sessionID = sessionID
        self.links = links
    }

    /// The JSON body of SSE events and webhooks.
    public var json: JSONValue {
        var body: JSONValue = [
            "type": "reminder", "kind": .string(kind.rawValue), "message": .string(kind.message), "rings": .bool(kind.rings),
            "fire_at": .string(ISO8601.string(fireAt)), "session_id": .string(sessionID),
        ]
        if !links.isEmpty {
            body["actions"] = .object(Dictionary(uniqueKeysWithValues: links.map { ($0.key.rawValue, JSONValue.string($0.value)) }))
        }
        return body
    }
}

/// Somewhere a reminder goes: open pages, a webhook, a local command.
public protocol ReminderDelivery: Sendable {
    func deliver(_ notice: ReminderNotice) async
    /// Tonight changed (from any surface: a page, the API, the CLI, a link).
    func statusChanged(revision: Int) async
}

extension ReminderDelivery {
    public func statusChanged(revision: Int) async {}
}

/// Fires the reminder plan of SPEC §3.4 for the open night: at most once per reminder (logged in the database, so a
/// restart does not repeat one), with reminders missed while the server was down logged as missed, not fired late.
public actor ReminderEngine {
    let environment: AppEnvironment
    let deliveries: [any ReminderDelivery]
    /// The latest notices delivered, newest last (for status pages and tests): a few nights' worth, never more, so a
    /// server that runs for years holds no more than one that started tonight.
    public private(set) var delivered: [ReminderNotice] = []
    /// How many notices `delivered` keeps (a night has about 15).
    public static let deliveredLimit = 64
    /// Where action links point, e.g. `http://192.168.1.20:8080`; nil sends reminders without links.
    public private(set) var linkBase: String?
    private var lastRevision: Int?

    public init(environment: AppEnvironment, deliveries: [any ReminderDelivery], linkBase: String? = nil) {
        self.environment = environment
        self.deliveries = deliveries
        self.linkBase = linkBase
    }

    /// Sets the address links point to (known once the server is listening).
    public func setLinkBase(_ base: String) { linkBase = base }

    /// Checks the plan once and delivers what came due, in time order.
    @discardableResult
    public func tick() async throws -> DueReminders {
        let app = environment.useCases()
        let due = try app.reminders.takeDue()
        for reminder in due.fire.sorted(by: { $0.fireAt < $1.fireAt }) {
            let sessionID = due.sessionID?.rawValue ?? ""
            var links: [ActionLink.Action: String] = [:]
            if let linkBase, !sessionID.isEmpty {
                let signer = try app.reminders.signer()
                let expiresAt = max(reminder.fireAt, app.clock.now).addingTimeInterval(ActionLinkSigner.lifetime)
                for action in ActionLink.Action.allCases {
                    let link = ActionLink(action: action, sessionID: sessionID, expiresAt: expiresAt, nonce: ActionLinkSigner.nonce(app.clock.random))
                    links[action] = linkBase + "/a/" + signer.token(for: link)
                }
            }
            let notice = ReminderNotice(kind: reminder.kind, fireAt: reminder.fireAt, sessionID: sessionID, links: links)
            delivered.append(notice)
            if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
            for delivery in deliveries { await delivery.deliver(notice) }
        }
        if let lastRevision, lastRevision != due.revision {
            for delivery in deliveries { await delivery.statusChanged(revision: due.revision) }
        }
        lastRevision = due.revision
        return due
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
            _ = try? await tick()
            if let run, environment.now().timeIntervalSince(lastHeartbeat) >= ServerRuns.heartbeatInterval {
                lastHeartbeat = environment.now()
                try? environment.useCases().reminders.serverAlive(run)
            }
            do { try await sleep(interval) } catch { return }
        }
    }
}

/// Server-sent events to every open page.
public actor EventHub: ReminderDelivery {
    private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]

    public init() {}

    /// A new subscriber's stream of `data:` frames.
    public func subscribe() -> (UUID, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return (id, stream)
    }

    public func unsubscribe(_ id: UUID) { subscribers.removeValue(forKey: id)?.finish() }

    /// Sends a notice (or a status change) to every subscriber.
    public func broadcast(_ json: JSONValue, event: String) {
        let frame = "event: \(event)\ndata: \(json.rendered())\n\n"
        for continuation in subscribers.values { continuation.yield(frame) }
    }

    public var count: Int { subscribers.count }

    public func deliver(_ notice: ReminderNotice) async { broadcast(notice.json, event: "reminder") }

    public func statusChanged(revision: Int) async { broadcast(["type": "status", "revision": .string(String(revision))], event: "status") }
}

/// Runs a local command for each reminder, with the reminder in its environment (never on a shell command line).
public struct CommandDelivery: ReminderDelivery {
    public let executable: String
    public let arguments: [String]

    public init(command: String) {
        let parts = command.split(separator: " ").map(String.init)
        executable = parts.first ?? command
        arguments = Array(parts.dropFirst())
    }

    public func deliver(_ notice: ReminderNotice) async {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DOSETAP_REMINDER_KIND"] = notice.kind.rawValue
        environment["DOSETAP_REMINDER_MESSAGE"] = notice.kind.message
        environment["DOSETAP_REMINDER_FIRE_AT"] = ISO8601.string(notice.fireAt)
        environment["DOSETAP_REMINDER_RINGS"] = notice.kind.rings ? "1" : "0"
        for (action, url) in notice.links { environment["DOSETAP_REMINDER_\(action.rawValue.uppercased())_URL"] = url }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
