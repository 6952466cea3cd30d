public import DoseCore
public import Foundation
import GRDB

/// The record of `dosetap serve` runs, which every instance of a store writes: it keeps and loads; DoseCore's
/// `ServerUptime` tells the outages from it.
public protocol ServerRunsRepository: Sendable {
    /// Records a run's start, and forgets the runs that started before `forgettingBefore`.
    func insert(_ run: ServerRun, forgettingBefore: Date) throws
    /// Records that a run is alive at `instant` (with `stopped`, that it stopped cleanly then).
    func recordAlive(_ run: String, at instant: Date, stopped: Bool) throws
    /// The runs that started after `instant` and the last one that started at or before it: every run an outage ending
    /// after `instant` can lie between.
    func runs(startedAfter instant: Date) throws -> [ServerRun]
}

/// The runs in the embedded SQLite database.
public struct SQLiteServerRuns: ServerRunsRepository {
    let database: AppDatabase

    public func insert(_ run: ServerRun, forgettingBefore: Date) throws {
        try database.write { db in
            try ServerRunRecord(id: run.id, startedAt: run.startedAt, lastSeenAt: run.lastSeenAt, stoppedAt: run.stoppedAt).insert(db)
            try ServerRunRecord.filter(ServerRunRecord.Columns.startedAt < ISO8601.string(forgettingBefore)).deleteAll(db)
        }
    }

    public func recordAlive(_ run: String, at instant: Date, stopped: Bool) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE server_runs SET last_seen_at = ?, stopped_at = ? WHERE id = ?",
                arguments: [ISO8601.string(instant), stopped ? ISO8601.string(instant) : nil, run])
        }
    }

    public func runs(startedAfter instant: Date) throws -> [ServerRun] {
        try database.read { db in
            let rows = try ServerRunRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM server_runs WHERE started_at > ?1
                        OR id = (SELECT id FROM server_runs WHERE started_at <= ?1 ORDER BY started_at DESC, id DESC LIMIT 1)
                    """, arguments: [ISO8601.string(instant)])
            return rows.map { ServerRun(id: $0.id, startedAt: $0.startedAt, lastSeenAt: $0.lastSeenAt, stoppedAt: $0.stoppedAt) }
        }
    }
}
