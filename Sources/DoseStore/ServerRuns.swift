public import DoseCore
public import Foundation
import GRDB

/// A stretch of time when `dosetap serve` was not running, so no reminder could fire.
public struct ServerOutage: Sendable, Hashable {
    /// The last sign of life of the run that ended (its clean stop, or its last heartbeat if it died).
    public var from: Date
    /// When the next run started.
    public var until: Date
    /// Whether the earlier run stopped cleanly (someone stopped it) rather than dying.
    public var stoppedCleanly: Bool
}

/// The record of `dosetap serve` runs: when each started, its heartbeats and its clean stop, and the outages between.
public struct ServerRuns: Sendable {
    let database: AppDatabase

    /// How often a running server records that it is alive; an outage is known to this precision.
    public static let heartbeatInterval: TimeInterval = 30
    /// Gaps shorter than this between runs are a restart, not an outage worth telling a person about.
    public static let outageThreshold: TimeInterval = 60

    /// Records the start of a server run; returns its id for heartbeats and the clean stop.
    public func started(clock: StoreClock) throws -> String {
        let run = ServerRunRecord(id: clock.makeID(), startedAt: clock.now, lastSeenAt: clock.now)
        try database.write { db in
            try run.insert(db)
            // A year of runs is plenty to explain any night still in question.
            try ServerRunRecord.filter(ServerRunRecord.Columns.startedAt < ISO8601.string(clock.now.addingTimeInterval(-366 * 86_400))).deleteAll(db)
        }
        return run.id
    }

    /// Records that the run is alive (or, with `stopped`, that it stopped cleanly).
    public func alive(_ run: String, stopped: Bool = false, at now: Date) throws {
        try database.write { db in
            guard var record = try ServerRunRecord.fetchOne(db, key: run) else { return }
            record.lastSeenAt = now
            record.stoppedAt = stopped ? now : nil
            try record.update(db)
        }
    }

    /// The outages during a night, from its start to `now` (none when no night is open).
    public func outages(during night: NightSession?, now: Date) throws -> [ServerOutage] {
        guard let night else { return [] }
        return try outages(overlapping: DateInterval(start: night.startedAt, end: max(night.startedAt, now)))
    }

    /// The outages that overlap `interval` (a night from Dose 1 to now or its end), oldest first.
    public func outages(overlapping interval: DateInterval) throws -> [ServerOutage] {
        try database.read { db in
            let runs = try ServerRunRecord.order(ServerRunRecord.Columns.startedAt).fetchAll(db)
            var outages: [ServerOutage] = []
            for (earlier, later) in zip(runs, runs.dropFirst()) {
                let stopped = earlier.stoppedAt
                let from = stopped ?? earlier.lastSeenAt
                let until = later.startedAt
                guard until.timeIntervalSince(from) >= Self.outageThreshold, from < interval.end, until > interval.start else { continue }
                // A run that lived less than the threshold between two outages is one outage to a person.
                if let last = outages.last, from.timeIntervalSince(last.until) < Self.outageThreshold {
                    outages[outages.count - 1] = ServerOutage(from: last.from, until: until, stoppedCleanly: last.stoppedCleanly && stopped != nil)
                    continue
                }
                outages.append(ServerOutage(from: from, until: until, stoppedCleanly: stopped != nil))
            }
            return outages
        }
    }
}
