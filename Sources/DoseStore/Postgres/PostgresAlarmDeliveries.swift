import DoseCore
public import Foundation
import PostgresNIO

/// Each delivery attempt's record, written straight into `alarm_deliveries`: one insert, no lock and no copy of the
/// person's records, because attempts come several a second on a busy service and each waits for none of the others.
extension PostgresStore {
    /// Records `attempt` as `person`'s, with `id`: dropped when its night was deleted meanwhile, as on SQLite. A test
    /// alarm's record (no night) clears the person's test records older than the retention, as on SQLite.
    public func recordDelivery(_ attempt: AlarmDeliveryRecord, id: String, of person: String, at now: Date) throws {
        try transaction(seeing: .person(person), readCommitted: true) { session in
            try session.execute(
                """
                INSERT INTO alarm_deliveries (id, person_id, session_id, kind, fire_at, channel, audience, target, attempt, outcome, http_status,
                    detail, duration_ms, at)
                SELECT \(id), \(person), \(attempt.sessionID), \(attempt.kind), \(attempt.fireAt), \(attempt.channel.rawValue),
                    \(attempt.audience.rawValue), \(attempt.target), \(attempt.attempt), \(attempt.outcome.rawValue), \(attempt.httpStatus),
                    \(attempt.detail), \(attempt.durationMilliseconds), \(attempt.at)
                WHERE \(attempt.sessionID)::text IS NULL OR EXISTS (SELECT 1 FROM sleep_sessions WHERE id = \(attempt.sessionID))
                """)
            if attempt.sessionID == nil {
                try session.execute(
                    """
                    DELETE FROM alarm_deliveries WHERE person_id = \(person) AND session_id IS NULL
                        AND at < \(now.addingTimeInterval(-AlarmStore.testRetention))
                    """)
            }
        }
    }
}
