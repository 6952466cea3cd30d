import DoseCore
public import Foundation
import GRDB

/// Paired devices (by the hash of their token) and the answers stored under their idempotency keys.
public struct DeviceStore: Sendable {
    let database: AppDatabase

    /// How long idempotency records are kept (at least 31 days).
    public static let idempotencyRetention: TimeInterval = 32 * 86_400

    /// Registers a device by the hash of its token, expiring at `expiresAt` if one was chosen.
    public func add(name: String, tokenHash: String, expiresAt: Date? = nil, clock: StoreClock) throws -> DeviceRecord {
        let trimmed = try Self.deviceName(name)
        return try database.write { db in
            try Self.refuseTakenName(trimmed, except: nil, db)
            let record = DeviceRecord(
                id: clock.makeID(), name: trimmed, tokenHash: tokenHash, createdAt: clock.now, revokedAt: nil, expiresAt: expiresAt)
            try record.insert(db)
            return record
        }
    }

    /// `base`, or `base 2`, `base 3`, … — the first name no paired device has, so two browsers paired in the same
    /// minute never collide.
    public func unusedName(_ base: String) throws -> String {
        let taken = Set(try active().map(\.name))
        let stem = TextLimits.truncated(base, limit: 56)
        return ([stem] + (2...999).map { "\(stem) \($0)" }).first { !taken.contains($0) } ?? "\(stem) \(taken.count + 1)"
    }

    /// Renames a paired device; names stay unique among paired devices.
    public func rename(_ id: String, to name: String) throws -> DeviceRecord {
        let trimmed = try Self.deviceName(name)
        return try database.write { db in
            guard var record = try DeviceRecord.filter(DeviceRecord.Columns.id == id && DeviceRecord.Columns.revokedAt == nil).fetchOne(db) else {
                throw DoseError.notFound(what: "A paired device '\(id)'")
            }
            try Self.refuseTakenName(trimmed, except: id, db)
            record.name = trimmed
            try record.update(db, columns: [DeviceRecord.Columns.name])
            return record
        }
    }

    /// A device name as stored: trimmed, 1–60 code points.
    static func deviceName(_ name: String) throws(DoseError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...60).contains(TextLimits.length(trimmed)) else {
            throw .invalidInput(
                field: "name", problem: "it has \(TextLimits.length(trimmed)) characters (Unicode code points)", allowed: "1–60 characters")
        }
        return trimmed
    }

    /// Names are unique among paired devices (`except` the one being renamed).
    static func refuseTakenName(_ name: String, except id: String?, _ db: Database) throws {
        let columns = DeviceRecord.Columns.self
        var paired = DeviceRecord.filter(columns.name == name && columns.revokedAt == nil)
        if let id { paired = paired.filter(columns.id != id) }
        guard try paired.isEmpty(db) else {
            throw DoseError.invalidInput(
                field: "name", problem: "a device named '\(name)' is already paired", allowed: "another name, or revoke that one first")
        }
    }

    /// Every device, revoked ones included.
    public func all() throws -> [DeviceRecord] {
        try database.read { db in try DeviceRecord.order(DeviceRecord.Columns.createdAt, DeviceRecord.Columns.id).fetchAll(db) }
    }

    /// The token hashes of devices that may call the API (read on every request, so a revocation applies at once).
    public func active() throws -> [DeviceRecord] {
        try database.read { db in try DeviceRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM devices WHERE revoked_at IS NULL")) }
    }

    /// Records that a request used device `id` at `now`.
    public func recordUse(_ id: String, at now: Date) throws {
        try database.write { db in
            try DeviceRecord.filter(DeviceRecord.Columns.id == id).updateAll(db, DeviceRecord.Columns.lastUsedAt.set(to: ISO8601.string(now)))
        }
    }

    /// Revokes a device by id or name.
    public func revoke(_ idOrName: String, at now: Date) throws -> DeviceRecord {
        try database.write { db in
            let columns = DeviceRecord.Columns.self
            guard var record = try DeviceRecord.filter((columns.id == idOrName || columns.name == idOrName) && columns.revokedAt == nil).fetchOne(db)
            else {
                throw DoseError.notFound(what: "A paired device '\(idOrName)'")
            }
            record.revokedAt = now
            try record.update(db, columns: [columns.revokedAt])
            // An unpaired phone gets no more alarms, and no more action links.
            try PushSubscriptionRecord.filter(PushSubscriptionRecord.Columns.deviceID == record.id).deleteAll(db)
            return record
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
