import DoseCore
public import Foundation
import PostgresNIO

/// One-time pairing codes on a shared store, kept in PostgreSQL by their hash so a code printed or shown by one
/// instance pairs a browser at whichever instance it reaches, and only once.
extension PostgresStore {
    /// Keeps a new code (its hash) of `person` until `expiresAt`; their expired codes go, and past `keep` unexpired ones
    /// those that expire first.
    public func issuePairingCode(hash: String, person: String, expiresAt: Date, now: Date, keep: Int) throws {
        try transaction(seeing: .person(person)) { session in
            try session.execute("DELETE FROM pairing_codes WHERE person_id = \(person) AND expires_at < \(now)")
            try session.execute("INSERT INTO pairing_codes (code_hash, person_id, expires_at) VALUES (\(hash), \(person), \(expiresAt))")
            try session.execute(
                """
                DELETE FROM pairing_codes WHERE person_id = \(person) AND code_hash NOT IN (
                    SELECT code_hash FROM pairing_codes WHERE person_id = \(person) ORDER BY expires_at DESC LIMIT \(keep))
                """)
        }
    }

    /// The person the code of `hash` pairs for, if it is unexpired at `now` (read by the code's holder).
    public func pairingCodeOwner(hash: String, now: Date) throws -> String? {
        try transaction(readOnly: true, seeing: RowScope(tokenHash: hash)) { session in
            try session.rows("SELECT person_id FROM pairing_codes WHERE code_hash = \(hash) AND expires_at >= \(now)").first?.decode(String.self)
        }
    }

    /// Takes `person`'s unexpired code of `hash` out of use, once whichever instance asks: its expiry, or nil.
    public func takePairingCode(hash: String, person: String, now: Date) throws -> Date? {
        try transaction(seeing: .person(person)) { session in
            try session.rows(
                "DELETE FROM pairing_codes WHERE code_hash = \(hash) AND person_id = \(person) AND expires_at >= \(now) RETURNING expires_at"
            ).first?.decode(Date.self)
        }
    }

    /// Puts back a code whose pairing failed.
    public func restorePairingCode(hash: String, person: String, expiresAt: Date) throws {
        try transaction(seeing: .person(person)) { session in
            try session.execute(
                "INSERT INTO pairing_codes (code_hash, person_id, expires_at) VALUES (\(hash), \(person), \(expiresAt)) ON CONFLICT DO NOTHING")
        }
    }
}
