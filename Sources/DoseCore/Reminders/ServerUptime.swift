public import Foundation

/// One run of `dosetap serve`: its start, its last sign of life (a heartbeat), and its clean stop if it had one.
public struct ServerRun: Sendable, Hashable {
    public var id: String
    public var startedAt: Date
    public var lastSeenAt: Date
    public var stoppedAt: Date?

    /// A run from every field.
    public init(id: String, startedAt: Date, lastSeenAt: Date, stoppedAt: Date? = nil) {
        self.id = id
        self.startedAt = startedAt
        self.lastSeenAt = lastSeenAt
        self.stoppedAt = stoppedAt
    }
}

/// A stretch of time when `dosetap serve` was not running, so no reminder could fire.
public struct ServerOutage: Sendable, Hashable {
    /// The last sign of life of the run that ended (its clean stop, or its last heartbeat if it died).
    public var from: Date
    /// When the next run started.
    public var until: Date
    /// Whether the earlier run stopped cleanly (someone stopped it) rather than dying.
    public var stoppedCleanly: Bool

    /// An outage from every field.
    public init(from: Date, until: Date, stoppedCleanly: Bool) {
        self.from = from
        self.until = until
        self.stoppedCleanly = stoppedCleanly
    }
}

/// When the server was down, from the record of its runs: what explains an alarm that could not ring.
public enum ServerUptime {
    /// How often a running server records that it is alive; an outage is known to this precision.
    public static let heartbeatInterval: TimeInterval = 30
    /// Gaps shorter than this between runs are a restart, not an outage worth telling a person about.
    public static let outageThreshold: TimeInterval = 60
    /// How long runs are kept: a year of runs is plenty to explain any night still in question.
    public static let retention: TimeInterval = 366 * 86_400

    /// The outages during a night, from its start to `now`, from `runs` in any order (those that started after the
    /// night began and the one before them are enough).
    public static func outages(of runs: [ServerRun], during night: NightSession, now: Date) -> [ServerOutage] {
        outages(of: runs, overlapping: DateInterval(start: night.startedAt, end: max(night.startedAt, now)))
    }

    /// The outages that overlap `interval` (a night from Dose 1 to now or its end), oldest first. A run that lived less
    /// than the threshold between two outages makes them one outage to a person.
    public static func outages(of runs: [ServerRun], overlapping interval: DateInterval) -> [ServerOutage] {
        let runs = runs.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
        var outages: [ServerOutage] = []
        for (earlier, later) in zip(runs, runs.dropFirst()) {
            let stopped = earlier.stoppedAt
            let from = stopped ?? earlier.lastSeenAt
            let until = later.startedAt
            guard until.timeIntervalSince(from) >= outageThreshold, from < interval.end, until > interval.start else { continue }
            if let last = outages.last, from.timeIntervalSince(last.until) < outageThreshold {
                outages[outages.count - 1] = ServerOutage(from: last.from, until: until, stoppedCleanly: last.stoppedCleanly && stopped != nil)
                continue
            }
            outages.append(ServerOutage(from: from, until: until, stoppedCleanly: stopped != nil))
        }
        return outages
    }
}
