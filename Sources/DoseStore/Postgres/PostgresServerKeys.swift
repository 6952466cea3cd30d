import DoseCore
public import Foundation
import PostgresNIO

/// The service's own secrets on a shared store (`server_keys`: the action-link key, the VAPID key), which every person
/// and every instance uses. Made once whoever asks first: two people's first reminders at once, or two instances
/// starting together, must never each keep a key of their own, or one's links would fail the other's check.
extension PostgresStore {
    /// The secret for `purpose`, made with `make` if there is none: inserted only if still absent, then read back, so
    /// every caller gets the one stored.
    public func serverSecret(purpose: String, at instant: Date, make: () -> String) throws -> String {
        let known = try transaction(readOnly: true) { session in
            try session.rows("SELECT secret FROM server_keys WHERE purpose = \(purpose)").first?.decode(String.self)
        }
        if let known { return known }
        let candidate = make()
        return try transaction { session in
            try session.execute(
                "INSERT INTO server_keys (purpose, secret, created_at) VALUES (\(purpose), \(candidate), \(instant)) ON CONFLICT (purpose) DO NOTHING"
            )
            guard let secret = try session.rows("SELECT secret FROM server_keys WHERE purpose = \(purpose)").first?.decode(String.self) else {
                throw DoseError.storageUnavailable(problem: "the \(purpose) key could not be kept")
            }
            return secret
        }
    }
}
