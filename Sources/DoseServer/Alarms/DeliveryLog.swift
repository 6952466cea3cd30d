import Dispatch
public import DoseApp
public import DoseCore
public import DoseStore
public import Foundation
import Synchronization

/// Collects the attempts of one round of deliveries and writes each to the database as it happens, so a crash
/// mid-retry keeps what was tried.
public final class DeliveryLog: Sendable {
    private let attempts = Mutex<[AlarmDeliveryRecord]>([])
    private let persist: @Sendable (AlarmDeliveryRecord) -> Void
    let now: @Sendable () -> Date
    /// What an earlier instance already delivered of the notices this log carries (`acceptedKey`): a notice resumed after
    /// that instance died is not sent again on those channels.
    let acceptedBefore: Set<String>

    /// A log that hands each attempt to `persist`.
    public init(
        now: @escaping @Sendable () -> Date, acceptedBefore: Set<String> = [], persist: @escaping @Sendable (AlarmDeliveryRecord) -> Void
    ) {
        self.now = now
        self.acceptedBefore = acceptedBefore
        self.persist = persist
    }

    /// A log that records into the environment's database, in order, on a queue of its own: a delivery never waits
    /// for the writer (an import, another process), and a busy writer only delays the record, tried again a few times.
    public convenience init(recordingTo environment: AppEnvironment, acceptedBefore: [AlarmDeliveryRecord] = []) {
        let accepted = acceptedBefore.filter { $0.outcome == .accepted }
        let keys =
            accepted.map { Self.acceptedKey(kind: $0.kind, fireAt: $0.fireAt, channel: $0.channel, target: $0.target) }
            + accepted.map { Self.acceptedKey(kind: $0.kind, fireAt: $0.fireAt, channel: $0.channel, target: nil) }
        self.init(now: environment.now, acceptedBefore: Set(keys)) { attempt in
            Self.writes.async {
                for _ in 1...3 {
                    if (try? environment.useCases().alarms.record(attempt)) != nil { break }
                }
            }
        }
    }

    /// Where attempts are written, one after another.
    private static let writes = DispatchQueue(label: "dosetap.delivery-log")

    /// Waits until every attempt handed over so far is written (tests, and the engine when told to wait).
    public static func flush() async {
        await withCheckedContinuation { continuation in writes.async { continuation.resume() } }
    }

    /// Whether an earlier instance already delivered `notice` on `channel` to `target` (nil: to any target of the channel,
    /// as for open pages, whose count changes), so sending it again would ring the same occurrence twice there.
    public func deliveredBefore(_ notice: ReminderNotice, channel: AlarmChannel, target: String?) -> Bool {
        !acceptedBefore.isEmpty
            && acceptedBefore.contains(Self.acceptedKey(kind: notice.name, fireAt: notice.fireAt, channel: channel, target: target))
    }

    static func acceptedKey(kind: String, fireAt: Date?, channel: AlarmChannel, target: String?) -> String {
        "\(kind)@\(fireAt.map(ISO8601.string) ?? "")|\(channel.rawValue)|\(target ?? "*")"
    }

    /// Records one attempt; `started` is when it began, on the monotonic clock.
    public func record(
        _ notice: ReminderNotice, channel: AlarmChannel, target: String, attempt: Int, outcome: DeliveryOutcome, httpStatus: Int? = nil,
        detail: String? = nil, started: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let row = AlarmDeliveryRecord(
            sessionID: notice.sessionID.isEmpty ? nil : notice.sessionID, kind: notice.name, fireAt: notice.fireAt, channel: channel,
            audience: notice.audience, target: target, attempt: attempt, outcome: outcome, httpStatus: httpStatus, detail: detail,
            durationMilliseconds: max(0, milliseconds), at: now())
        attempts.withLock { $0.append(row) }
        persist(row)
    }

    /// Every attempt so far, in the order they ended.
    public var all: [AlarmDeliveryRecord] { attempts.withLock { $0 } }
}

/// When to try a failed delivery again: after each delay of `backoff` in turn (or the service's `Retry-After`),
/// and never once the notice has stopped being useful.
public struct RetryPolicy: Sendable {
    public var backoff: [Duration]
    /// The longest `Retry-After` obeyed; a longer one is cut to this.
    public var longestWait: Duration = .seconds(120)
    let sleep: @Sendable (Duration) async throws -> Void

    /// A policy that waits through `sleep` (the environment's, or a test's).
    public init(backoff: [Duration], sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.backoff = backoff
        self.sleep = sleep
    }

    /// The wait before attempt `attempt + 1`, or nil when there is none to make.
    public func delay(after attempt: Int, retryAfterSeconds: Int?, now: Date, usefulUntil: Date) -> Duration? {
        guard attempt <= backoff.count else { return nil }
        let wait = retryAfterSeconds.map { min(Duration.seconds(max(0, $0)), longestWait) } ?? backoff[attempt - 1]
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        guard now.addingTimeInterval(seconds) < usefulUntil else { return nil }
        return wait
    }

    /// Waits; false when the wait was cancelled (the server is stopping).
    func wait(_ delay: Duration) async -> Bool { (try? await sleep(delay)) != nil }
}
