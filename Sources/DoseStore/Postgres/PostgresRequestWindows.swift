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
            let row = try session.rows(
                """
                INSERT INTO request_windows AS w (person_id, device_id, window_start, requests) VALUES (\(person), \(device), \(now), 1)
                \(unescaped: Self.countInWindow)
                """
            ).first
            guard let row else { throw PostgresFailure(state: "DT002", message: "the request window was not counted") }
            return try row.decode((Date, Int).self)
        }
        return Self.retryAfter(start: start, requests: requests, at: now, limit: limit)
    }

    /// Counts a request in the window row being inserted, whose `window_start` is `now`, as this request would have
    /// started the window: a window that began a minute or more ago, or after `now`, starts again.
    static let countInWindow: String = {
        let fresh = "w.window_start <= excluded.window_start - interval '60 seconds' OR w.window_start > excluded.window_start"
        return """
            ON CONFLICT (person_id, device_id) DO UPDATE SET
                window_start = CASE WHEN \(fresh) THEN excluded.window_start ELSE w.window_start END,
                requests = CASE WHEN \(fresh) THEN 1 ELSE w.requests + 1 END
            RETURNING window_start, requests
            """
    }()

    /// nil when a window's `requests` are within `limit`, else the seconds until the window ends.
    static func retryAfter(start: Date, requests: Int, at now: Date, limit: Int) -> Int? {
        guard requests > limit else { return nil }
        return max(1, Int((60 - now.timeIntervalSince(start)).rounded(.up)))
    }
}

extension PostgresStore {
    /// The unrevoked device whose token hashes to `tokenHash` and whose it is, with this request counted in the device's
    /// window as `admitRequest` counts it: what names, authenticates and limits a request, sent together and waited
    /// for once. `retryAfter` is nil when the request is within `limit`, else the seconds until the window ends.
    public func activeDevice(
        tokenHash: String, countingRequestAt now: Date, limit: Int
    ) throws -> (person: String, device: DeviceRecord, retryAfter: Int?)? {
        let (found, counted) = try transaction(seeing: RowScope(tokenHash: tokenHash), readCommitted: true) { session in
            // The device's row names its person for the rest of this transaction, so the window's row (seen only by its
            // person) can be written; a token that names no device names no one, and nothing is counted.
            let found = session.send(
                """
                SELECT set_config('dosetap.person', person_id, true), person_id, \(unescaped: PostgresNightTransaction.deviceColumns)
                FROM devices WHERE token_hash = \(tokenHash) AND revoked_at IS NULL
                """)
            let counted = session.send(
                """
                INSERT INTO request_windows AS w (person_id, device_id, window_start, requests)
                SELECT person_id, id, \(now), 1 FROM devices WHERE token_hash = \(tokenHash) AND revoked_at IS NULL
                \(unescaped: Self.countInWindow)
                """)
            return (found, counted)
        }
        // The commit waited for both statements: their rows are here.
        guard let row = try found.future.wait().rows.first else { return nil }
        let (_, person, id, name, hash, created, revoked, used, expires) = try row.decode(
            (String, String, String, String, String, String, String?, String?, String?).self)
        let device = PostgresNightTransaction.device((id, name, hash, created, revoked, used, expires))
        guard let window = try counted.future.wait().rows.first else {
            throw PostgresFailure(state: "DT002", message: "the request window was not counted")
        }
        let (start, requests) = try window.decode((Date, Int).self)
        return (person, device, Self.retryAfter(start: start, requests: requests, at: now, limit: limit))
    }
}
