import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import DoseServer

/// A sender that answers as a peer would, from a script, and keeps every request: the environment's HTTP client,
/// replaced, so a test reads what an alarm sent without a socket and chooses what the other side says.
final class ScriptedSender: OutboundSender {
    enum Reply: Sendable {
        case status(Int, retryAfter: Int? = nil)
        case unreachable
    }

    struct Unreachable: Error {}

    /// The replies still to give, in order; once they run out, every request is answered 200.
    private let script: Mutex<[Reply]>
    private let sent = Mutex<[(request: OutboundRequest, connection: OutboundTargets.Connection)]>([])

    init(_ script: [Reply] = []) { self.script = Mutex(script) }

    /// Every request, oldest first, with the connection it was to go over.
    var requests: [(request: OutboundRequest, connection: OutboundTargets.Connection)] { sent.withLock { $0 } }

    func send(_ request: OutboundRequest, over connection: OutboundTargets.Connection) async throws -> OutboundAnswer {
        sent.withLock { $0.append((request, connection)) }
        switch script.withLock({ $0.isEmpty ? Reply.status(200) : $0.removeFirst() }) {
        case .status(let status, let retryAfter): return OutboundAnswer(status: status, retryAfter: retryAfter)
        case .unreachable: throw Unreachable()
        }
    }
}

/// What a test's closure saw, in order.
final class Recorded<Value: Sendable>: Sendable {
    let all = Mutex<[Value]>([])

    func append(_ value: Value) { all.withLock { $0.append(value) } }
    var values: [Value] { all.withLock { $0 } }
}

/// A log handler that keeps each line as `level message key=value …`, with the logger's metadata merged in.
struct RecordingLogHandler: LogHandler {
    let lines: Recorded<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }.map { "\($0.key)=\($0.value)" }.sorted()
        lines.append(([event.level.rawValue, event.message.description] + fields).joined(separator: " "))
    }
}

@Suite("Alarms reach other hosts only through the environment's sender, and log only through its logger")
struct OutboundSenderTests {
    static let now = WallClock.date(2026, 11, 22, 1, 0)

    /// The fixture's environment with `sender` for HTTP and a logger that keeps its lines; waits are counted, not slept.
    static func environment(
        _ fixture: ServerFixture, sender: any OutboundSender, lines: Recorded<String> = Recorded(), waits: Recorded<Duration> = Recorded()
    ) -> AppEnvironment {
        var environment = fixture.environment
        environment.http = sender
        environment.logger = Logger(label: "dosetap") { _ in RecordingLogHandler(lines: lines) }
        environment.sleep = { duration in waits.append(duration) }
        return environment
    }

    static func log() -> DeliveryLog { DeliveryLog(now: { now }, persist: { _ in }) }

    @Test("an ntfy alarm goes out through the sender with ntfy's headers; a failure is retried, logged without the topic, then accepted")
    func webhookThroughTheSender() async throws {
        let fixture = try ServerFixture(now: Self.now)
        let sender = ScriptedSender([.unreachable, .status(429, retryAfter: 7)])
        let lines = Recorded<String>()
        let waits = Recorded<Duration>()
        let environment = Self.environment(fixture, sender: sender, lines: lines, waits: waits)
        let url = "https://ntfy.example.org/secret-topic-8812"
        let hook = WebhookDelivery(url: url, format: .ntfy, environment: environment, backoff: [.seconds(2), .seconds(5), .seconds(9)])
        let log = Self.log()
        let notice = ReminderNotice.test(for: .sleeper, at: Self.now)
        await hook.deliver(notice, log: log)

        #expect(sender.requests.count == 3)
        let request = try #require(sender.requests.last?.request)
        #expect(request.url == url && request.method == "POST")
        #expect(String(decoding: request.body, as: UTF8.self) == notice.message)
        // A test alarm rings as tonight's Dose 2 alarm would.
        #expect(request.header("title") == "DoseTap" && request.header("Priority") == "urgent" && request.header("Tags") == "alarm_clock")
        #expect(sender.requests.allSatisfy { $0.connection == .direct }, "the operator's own webhook is not checked against device rules")
        #expect(log.all.map(\.outcome) == [.retrying, .retrying, .accepted])
        #expect(log.all.map(\.httpStatus) == [nil, 429, 200])
        #expect(log.all.allSatisfy { $0.target == "ntfy.example.org" })
        #expect(waits.values == [.seconds(2), .seconds(7)], "the backoff first, then the peer's Retry-After")
        let logged = lines.values
        #expect(logged == ["warning webhook delivery failed attempt=1 channel=webhook error=Unreachable"])
        #expect(!logged.joined().contains("secret-topic-8812"), "an ntfy topic is its secret")
    }

    @Test("a push goes out encrypted and signed through the sender; a 503 is retried after Retry-After and a 410 removes the subscription")
    func pushThroughTheSender() async throws {
        let fixture = try ServerFixture(now: Self.now)
        let sender = ScriptedSender([.status(503, retryAfter: 3), .status(410)])
        let waits = Recorded<Duration>()
        let environment = Self.environment(fixture, sender: sender, waits: waits)
        let app = environment.useCases()
        let body: JSONValue = [
            "endpoint": "https://8.8.8.8/push/abc", "role": "alarm",
            "keys": ["p256dh": .string(OutboundTargetTests.p256dh), "auth": .string(OutboundTargetTests.auth)],
        ]
        let subscription = try BodyDecoder.decode(PushSubscriptionBody.self, from: body).subscription(targets: environment.outbound)
        _ = try app.alarms.subscribe(subscription, device: try app.devices.all()[0].id)

        let options = PushOptions(backoff: [.seconds(20)], sleep: environment.sleep)
        let log = Self.log()
        await PushDelivery(environment: environment, role: .alarm, options: options).deliver(
            ReminderNotice.test(for: .sleeper, at: Self.now), log: log)

        #expect(log.all.map(\.outcome) == [.retrying, .removed], "\(log.all)")
        #expect(waits.values == [.seconds(3)])
        #expect(try app.alarms.subscriptions(role: .alarm).isEmpty, "the push service said it is gone")
        let request = try #require(sender.requests.first?.request)
        #expect(request.url == "https://8.8.8.8/push/abc" && sender.requests.first?.connection == .direct)
        #expect(request.header("Urgency") == "high" && request.header("Content-Encoding") == "aes128gcm")
        #expect(request.header("TTL").flatMap { Int($0) }.map { (1...60).contains($0) } == true)
        #expect(request.header("Authorization")?.hasPrefix("vapid t=") == true)
        #expect(!String(decoding: request.body, as: UTF8.self).contains("DoseTap"), "the payload is encrypted")
    }

    @Test("a target a device chose is checked before the sender is called: an internal address is never sent to")
    func checkedTargetsNeverReachTheSender() async throws {
        let fixture = try ServerFixture(now: Self.now, allowLoopbackTargets: false)
        let sender = ScriptedSender()
        let environment = Self.environment(fixture, sender: sender)
        let hook = WebhookDelivery(
            url: "https://169.254.169.254/latest", format: .json, audience: .contact, environment: environment, checkingTargets: true)
        let log = Self.log()
        await hook.deliver(ReminderNotice.test(for: .contact, at: Self.now), log: log)
        #expect(sender.requests.isEmpty)
        #expect(log.all.map(\.outcome) == [.failed] && log.all.first?.detail?.hasPrefix("not sent: ") == true)
    }

    @Test("an environment given no HTTP client sends nothing and logs the alarm as not sent, with the reason, without retrying")
    func noSenderSaysSo() async throws {
        let fixture = try ServerFixture(now: Self.now)
        let waits = Recorded<Duration>()
        let environment = Self.environment(fixture, sender: NoOutboundSender(), waits: waits)
        let hook = WebhookDelivery(url: "https://hooks.example.org/x", format: .json, environment: environment)
        let log = Self.log()
        await hook.deliver(ReminderNotice.test(for: .sleeper, at: Self.now), log: log)
        #expect(log.all.map(\.outcome) == [.failed])
        #expect(log.all.first?.detail == "not sent: this DoseTap was started without an HTTP client, so nothing can be sent to another host")
        #expect(waits.values.isEmpty)
    }
}
