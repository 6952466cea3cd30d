public import Foundation
import PostgresNIO

/// Requests per paired device per minute on a shared store, counted in `request_windows` so that every instance behind
/// the proxy counts the same window: with the count in each instance's memory, three instances would let a device make
/// three times the limit.
extension PostgresStore {
    /// Counts one request of `device` (a device of `person`) at `now` in its fixed one-minute window; nil when it is
    /// within `limit`, else the seconds until the window ends. A window that began a minute or more ago, or after `now`
    /// (another instance's clock ahead of this one's), starts again at `now`.
    public func admitRequest(of person: String, device: String, at now: Date, limit: Int) throws -> Int? {
        let (start, requests) = try transaction(seeing: .person(person), readCommitted: true) { session in
            // `excluded.window_start` is `now`, as this request would have started the window.
            let fresh = "w.window_start <= excluded.window_start - interval '60 seconds' OR w.window_start > excluded.window_start"
            let row = try session.rows(
                """
                INSERT INTO request_windows AS w (person_id, device_id, window_start, requests) VALUES (\(person), \(device), \(now), 1)
                ON CONFLICT (person_id, device_id) DO UPDATE SET
                    window_start = CASE WHEN \(unescaped: fresh) THEN excluded.window_start ELSE w.window_start END,
                    requests = CASE WHEN \(unescaped: fresh) THEN 1 ELSE w.requests + 1 END
                RETURNING window_start, requests
                """
            ).first
            guard let row else { throw PostgresFailure(state: "DT002", message: "the request window was not counted") }
            return try row.decode((Date, Int).self)
        }
        guard requests > limit else { return nil }
        return max(1, Int((60 - now.timeIntervalSince(start)).rounded(.up)))
    }
}
