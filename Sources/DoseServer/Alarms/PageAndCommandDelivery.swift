public import DoseApp
public import DoseCore
import DoseStore
public import Foundation

/// Server-sent events to every open page, each stream held by the paired device that opened it.
public actor EventHub: ReminderDelivery {
    private var subscribers: [UUID: (device: String?, continuation: AsyncStream<String>.Continuation)] = [:]
    /// Signs the links of a notice for the device a page belongs to; nil sends the notice's links as they are.
    private let signer: @Sendable () -> ActionLinkSigner?

    /// Told the number of open pages each time one opens or closes (a shared store's upkeep watches only people with one).
    private let pagesChanged: (@Sendable (Int) -> Void)?

    public init(signer: @escaping @Sendable () -> ActionLinkSigner? = { nil }, pagesChanged: (@Sendable (Int) -> Void)? = nil) {
        self.signer = signer
        self.pagesChanged = pagesChanged
    }

    /// A new subscriber's stream of `data:` frames, for the page of `device`.
    public func subscribe(device: String? = nil) -> (UUID, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        subscribers[id] = (device, continuation)
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        pagesChanged?(subscribers.count)
        return (id, stream)
    }

    public func unsubscribe(_ id: UUID) {
        guard let gone = subscribers.removeValue(forKey: id) else { return }
        gone.continuation.finish()
        pagesChanged?(subscribers.count)
    }

    /// Ends every stream of a device (it was revoked).
    public func close(device: String) {
        for (id, subscriber) in subscribers where subscriber.device == device { unsubscribe(id) }
    }

    /// Sends a notice (or a status change) to every subscriber.
    public func broadcast(_ json: JSONValue, event: String) {
        let frame = Self.frame(json, event: event)
        for subscriber in subscribers.values { subscriber.continuation.yield(frame) }
    }

    static func frame(_ json: JSONValue, event: String) -> String { "event: \(event)\ndata: \(json.rendered())\n\n" }

    public var count: Int { subscribers.count }

    public func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        if log.deliveredBefore(notice, channel: .page, target: nil) { return }
        let started = ContinuousClock.now
        let signer = notice.actionLinks.isEmpty ? nil : self.signer()
        for subscriber in subscribers.values {
            let sent = subscriber.device.map { notice.issued(to: $0, signer: signer) } ?? notice
            subscriber.continuation.yield(Self.frame(sent.json, event: "reminder"))
        }
        let pages = subscribers.count
        log.record(
            notice, channel: .page, target: pages == 1 ? "1 open page" : "\(pages) open pages", attempt: 1, outcome: pages > 0 ? .accepted : .none,
            started: started)
    }

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

    public func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        let target = URL(fileURLWithPath: executable).lastPathComponent
        if log.deliveredBefore(notice, channel: .command, target: target) { return }
        let started = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DOSETAP_REMINDER_KIND"] = notice.name
        environment["DOSETAP_REMINDER_MESSAGE"] = notice.message
        environment["DOSETAP_REMINDER_FIRE_AT"] = ISO8601.string(notice.fireAt)
        environment["DOSETAP_REMINDER_RINGS"] = notice.rings ? "1" : "0"
        for (action, url) in notice.links { environment["DOSETAP_REMINDER_\(action.rawValue.uppercased())_URL"] = url }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            log.record(notice, channel: .command, target: target, attempt: 1, outcome: .accepted, started: started)
        } catch {
            log.record(notice, channel: .command, target: target, attempt: 1, outcome: .failed, detail: "it could not be started", started: started)
        }
    }
}
