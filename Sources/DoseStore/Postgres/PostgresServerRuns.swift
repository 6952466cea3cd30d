public import DoseCore
public import Foundation
import PostgresNIO

/// The runs of every instance of a shared store, in `server_runs` (the service's, no person's).
public struct PostgresServerRuns: ServerRunsRepository {
    let store: PostgresStore

    /// The runs of `store`.
    public init(store: PostgresStore) { self.store = store }

    public func insert(_ run: ServerRun, forgettingBefore: Date) throws {
        try store.transaction { session in
            try session.execute(
                """
                INSERT INTO server_runs (id, started_at, last_seen_at, stopped_at)
                VALUES (\(run.id), \(run.startedAt), \(run.lastSeenAt), \(run.stoppedAt))
                """)
            try session.execute("DELETE FROM server_runs WHERE started_at < \(forgettingBefore)")
        }
    }

    public func recordAlive(_ run: String, at instant: Date, stopped: Bool) throws {
        try store.transaction(readCommitted: true) { session in
            try session.execute(
                "UPDATE server_runs SET last_seen_at = \(instant), stopped_at = \(stopped ? instant : nil) WHERE id = \(run)")
        }
    }

    public func runs(startedAfter instant: Date) throws -> [ServerRun] {
        try store.transaction(readOnly: true) { session in
            try session.rows(
                """
                SELECT id, dosetap_instant(started_at), dosetap_instant(last_seen_at), dosetap_instant(stopped_at) FROM server_runs
                WHERE started_at > \(instant)
                    OR id = (SELECT id FROM server_runs WHERE started_at <= \(instant) ORDER BY started_at DESC, id DESC LIMIT 1)
                """
            ).map { row in
                let (id, started, seen, stopped) = try row.decode((String, String, String, String?).self)
                return ServerRun(
                    id: id, startedAt: NightRecords.instant(started), lastSeenAt: NightRecords.instant(seen),
                    stoppedAt: stopped.map(NightRecords.instant))
            }
        }
    }
}
