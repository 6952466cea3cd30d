public import DoseApp
public import DoseCore
import DoseStore
public import Foundation

/// Server-sent events to every open page, each stream held by the paired device that opened it.
///
/// A stream lasts while the access that opened it stands: its device paired, and for a grantee the person's share. One
/// watch for the whole hub asks every open stream's standing four times a second, on a queue of its own so that a busy
/// server's database work never holds it up, and ends a stream whose access has gone with an `ended` event that says
/// why, within a second of the revocation, wherever it was made (here, the CLI, another instance).
///
/// A page that closes says nothing the server hears until something is written to it: the watch writes a comment line to
/// every stream every few seconds, so a closed page's stream fails its write and ends, instead of staying open (and
/// asked about) for as long as the server runs.
public actor EventHub: ReminderDelivery {
    /// Why an open page's access has ended, or nil while it stands.
    public typealias Standing = @Sendable () throws -> String?

    private struct Subscriber {
        let device: String?
        let continuation: AsyncStream<String>.Continuation
        let standing: Standing?
    }

    private var subscribers: [UUID: Subscriber] = [:]
    /// Signs the links of a notice for the device a page belongs to; nil sends the notice's links as they are.
    private let signer: @Sendable () -> ActionLinkSigner?

    /// Told the number of open pages each time one opens or closes (a shared store's upkeep watches only people with one).
    private let pagesChanged: (@Sendable (Int) -> Void)?
    /// Waits between two rounds of the watch (the wall clock's; a test parks it and runs `watchRound` itself).
    private let sleep: @Sendable (Duration) async throws -> Void
    private var watch: Task<Void, Never>?

    /// How often the open streams' standing is asked.
    public static let standingCheck: Duration = .milliseconds(250)
    private static let checks = DispatchQueue(label: "dosetap.stream-standing")
    /// Every how many standing checks a keep-alive comment is written (every 10 s).
    static let checksPerKeepAlive = 40
    static let keepAlive = ": keep-alive\n\n"

    public init(
        signer: @escaping @Sendable () -> ActionLinkSigner? = { nil }, pagesChanged: (@Sendable (Int) -> Void)? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.signer = signer
        self.pagesChanged = pagesChanged
        self.sleep = sleep
    }

    /// A new subscriber's stream of `data:` frames, for the page of `device`, open while `standing` says nothing.
    public func subscribe(device: String? = nil, standing: Standing? = nil) -> (UUID, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(32))
        subscribers[id] = Subscriber(device: device, continuation: continuation, standing: standing)
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        pagesChanged?(subscribers.count)
        if watch == nil { watch = Task { await self.watchStanding() } }
        return (id, stream)
    }

    public func unsubscribe(_ id: UUID) {
        guard let gone = subscribers.removeValue(forKey: id) else { return }
        gone.continuation.finish()
        pagesChanged?(subscribers.count)
    }

    /// Ends a stream with a last `ended` event that says why.
    public func end(_ id: UUID, because message: String) {
        subscribers[id]?.continuation.yield(Self.frame(["message": .string(message)], event: "ended"))
        unsubscribe(id)
    }

    /// Ends every stream of a device (it was revoked).
    public func close(device: String) {
        for (id, subscriber) in subscribers where subscriber.device == device {
            end(id, because: "This device was unpaired, so this page stopped following tonight.")
        }
    }

    /// Runs the watch's rounds until no stream is left.
    private func watchStanding() async {
        var round = 0
        while !Task.isCancelled {
            if subscribers.isEmpty {
                watch = nil
                return
            }
            round += 1
            await watchRound(round)
            try? await sleep(Self.standingCheck)
        }
    }

    /// One round of the watch: ends each stream whose access has gone, and every `checksPerKeepAlive`-th round writes a
    /// keep-alive to every stream.
    func watchRound(_ round: Int) async {
        let asked = subscribers.compactMap { id, subscriber in subscriber.standing.map { (id, $0) } }
        if !asked.isEmpty {
            let ended = await Self.ask(asked)
            for (id, message) in ended { end(id, because: message) }
        }
        if round % Self.checksPerKeepAlive == 0 {
            for subscriber in subscribers.values { subscriber.continuation.yield(Self.keepAlive) }
        }
    }

    /// The streams whose access has gone, and why; a standing that cannot be read now (a database that does not answer)
    /// keeps its stream open: losing the live night on a blip would be worse than a second's delay.
    private static func ask(_ asked: [(UUID, Standing)]) async -> [(UUID, String)] {
        await withCheckedContinuation { continuation in
            checks.async {
                continuation.resume(returning: asked.compactMap { id, standing in (try? standing()).flatMap { $0 }.map { (id, $0) } })
            }
        }
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
