import DoseCore
public import Foundation
import GRDB

/// Paired devices (by the hash of their token) as every request checks them.
public struct DeviceStore: Sendable {
    let database: AppDatabase

    /// How long idempotency records are kept (at least 31 days).
    public static let idempotencyRetention: TimeInterval = 32 * 86_400

    /// The token hashes of devices that may call the API (read on every request, so a revocation applies at once).
    public func active() throws -> [DeviceRecord] {
        try database.read { db in try DeviceRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM devices WHERE revoked_at IS NULL")) }
    }

    /// The unrevoked device whose token hashes to `tokenHash`, found by its unique index; nil for any other token.
    public func active(tokenHash: String) throws -> DeviceRecord? {
        try database.read { db in
            try DeviceRecord.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM devices WHERE token_hash = ? AND revoked_at IS NULL"), arguments: [tokenHash])
        }
    }

    /// Records that a request used device `id` at `now`.
    public func recordUse(_ id: String, at now: Date) throws {
        try database.write { db in
            try DeviceRecord.filter(DeviceRecord.Columns.id == id).updateAll(db, DeviceRecord.Columns.lastUsedAt.set(to: ISO8601.string(now)))
        }
    }
}

/// The server's own secrets, made on first use from the injected random source.
public struct ServerKeys: Sendable {
    let database: AppDatabase

    /// The secret that signs reminder action links (32 random bytes, hex), made on first use. Clear All Data deletes
    /// it, which voids every link already sent.
    public func actionLinkSecret(clock: StoreClock) throws -> String {
        try secret(purpose: "action_links", clock: clock) { _ in true }
    }

    /// The VAPID private key (a P-256 scalar, 32 bytes hex) that signs Web Push requests, made on first use.
    /// `isValidKey` says whether random bytes make a key (nearly always); others are drawn again. Clear All Data
    /// deletes it, and with it every browser's subscription, which was made for its public key.
    public func vapidPrivateKey(clock: StoreClock, isValidKey: (String) -> Bool) throws -> String {
        try secret(purpose: "vapid", clock: clock, isValidKey)
    }

    private func secret(purpose: String, clock: StoreClock, _ accept: (String) -> Bool) throws -> String {
        // Read first: every page asks for one (CSRF tokens), and only the very first ask needs the writer.
        if let key = try database.read({ db in try ServerKeyRecord.fetchOne(db, key: purpose) }) { return key.secret }
        return try database.write { db in
            if let key = try ServerKeyRecord.fetchOne(db, key: purpose) { return key.secret }
            var secret = clock.random.hex(32)
            while !accept(secret) { secret = clock.random.hex(32) }
            let key = ServerKeyRecord(purpose: purpose, secret: secret, createdAt: clock.now)
            try key.insert(db)
            return key.secret
        }
    }
}
