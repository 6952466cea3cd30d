public import DoseCore
public import Foundation
import GRDB

/// A paired device (a phone's browser, Home Assistant, a button daemon).
public struct DeviceRecord: Sendable, Hashable {
    public var id: String
    public var name: String
    /// SHA-256 of the token, hex; the token itself is never stored.
    public var tokenHash: String
    public var createdAt: Date
    public var revokedAt: Date?
}

/// A stored answer to a request made with an `Idempotency-Key`.
public struct StoredResponse: Sendable, Hashable {
    public var requestHash: String
    public var status: Int
    public var body: String
}

/// Paired devices (by the hash of their token) and the answers stored under their idempotency keys.
public struct DeviceStore: Sendable {
    let database: AppDatabase

    /// A DeviceStore over a database.
    public init(_ database: AppDatabase) { self.database = database }

    /// How long idempotency records are kept (at least 31 days).
    public static let idempotencyRetention: TimeInterval = 32 * 86_400

    /// Registers a device by the hash of its token.
    public func add(name: String, tokenHash: String, clock: StoreClock) throws -> DeviceRecord {
        let trimmed = try Self.deviceName(name)
        return try database.write { db in
            try Self.refuseTakenName(trimmed, except: nil, db)
            let record = DeviceRecord(id: clock.makeID(), name: trimmed, tokenHash: tokenHash, createdAt: clock.now, revokedAt: nil)
            try db.execute(
                sql: "INSERT INTO devices (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [record.id, record.name, record.tokenHash, ISO8601.string(record.createdAt)])
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
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE id = ? AND revoked_at IS NULL", arguments: [id]) else {
                throw DoseError.notFound(what: "A paired device '\(id)'")
            }
            try Self.refuseTakenName(trimmed, except: id, db)
            try db.execute(sql: "UPDATE devices SET name = ? WHERE id = ?", arguments: [trimmed, id])
            var record = Self.device(row)
            record.name = trimmed
            return record
        }
    }

    /// A device name as stored: trimmed, 1–60 code points.
    static func deviceName(_ name: String) throws(DoseError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...60).contains(TextLimits.length(trimmed)) else {
            throw .invalidInput(field: "name", problem: "it has \(TextLimits.length(trimmed)) characters (Unicode code points)", allowed: "1–60 characters")
        }
        return trimmed
    }

    /// Names are unique among paired devices (`except` the one being renamed).
    static func refuseTakenName(_ name: String, except id: String?, _ db: Database) throws {
        guard
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM devices WHERE name = ? AND id IS NOT ? AND revoked_at IS NULL)",
                arguments: [name, id]) == false
        else {
            throw DoseError.invalidInput(
                field: "name", problem: "a device named '\(name)' is already paired", allowed: "another name, or revoke that one first")
        }
    }

    /// Every device, revoked ones included.
    public func all() throws -> [DeviceRecord] {
        try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_at, id").map(Self.device) }
    }

    /// The token hashes of devices that may call the API (read on every request, so a revocation applies at once).
    public func active() throws -> [DeviceRecord] {
        try database.read { db in try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM devices WHERE revoked_at IS NULL")).map(Self.device) }
    }

    /// Revokes a device by id or name.
    public func revoke(_ idOrName: String, clock: StoreClock) throws -> DeviceRecord {
        try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE (id = ?1 OR name = ?1) AND revoked_at IS NULL", arguments: [idOrName]) else {
                throw DoseError.notFound(what: "A paired device '\(idOrName)'")
            }
            try db.execute(sql: "UPDATE devices SET revoked_at = ? WHERE id = ?", arguments: [ISO8601.string(clock.now), row["id"] as String])
            var record = Self.device(row)
            record.revokedAt = clock.now
            return record
        }
    }

    static func device(_ row: Row) -> DeviceRecord {
        DeviceRecord(
            id: row["id"], name: row["name"], tokenHash: row["token_hash"], createdAt: NightRecords.instant(row["created_at"]),
            revokedAt: (row["revoked_at"] as String?).map(NightRecords.instant))
    }

    /// The stored response for a device's idempotency key, if any.
    public func storedResponse(device: String, key: String) throws -> StoredResponse? {
        try database.read { db in try Self.storedResponse(device: device, key: key, db) }
    }

    static func storedResponse(device: String, key: String, _ db: Database) throws -> StoredResponse? {
        try Row.fetchOne(db, sql: "SELECT request_hash, status, response FROM idempotency_keys WHERE device_id = ? AND key = ?", arguments: [device, key])
            .map { StoredResponse(requestHash: $0["request_hash"], status: $0["status"], body: $0["response"]) }
    }

    /// Records the response of a request made with an idempotency key; records older than the retention are dropped.
    public func storeResponse(device: String, key: String, _ response: StoredResponse, clock: StoreClock) throws {
        try database.write { db in
            try db.execute(
                sql: "DELETE FROM idempotency_keys WHERE created_at < ?",
                arguments: [ISO8601.string(clock.now.addingTimeInterval(-Self.idempotencyRetention))])
            try db.execute(
                sql: "INSERT OR IGNORE INTO idempotency_keys (device_id, key, request_hash, status, response, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [device, key, response.requestHash, response.status, response.body, ISO8601.string(clock.now)])
        }
    }
}

/// The server's own secrets, made on first use from the injected random source.
public struct ServerKeys: Sendable {
    let database: AppDatabase

    /// A ServerKeys over a database.
    public init(_ database: AppDatabase) { self.database = database }

    /// The secret that signs reminder action links (32 random bytes, hex), made on first use. Clear All Data deletes
    /// it, which voids every link already sent.
    public func actionLinkSecret(clock: StoreClock) throws -> String {
        // Read first: every page asks for it (CSRF tokens), and only the very first ask needs the writer.
        if let secret = try database.read({ db in try String.fetchOne(db, sql: "SELECT secret FROM server_keys WHERE purpose = 'action_links'") }) {
            return secret
        }
        return try database.write { db in
            if let secret = try String.fetchOne(db, sql: "SELECT secret FROM server_keys WHERE purpose = 'action_links'") { return secret }
            let secret = clock.random.hex(32)
            try db.execute(
                sql: "INSERT INTO server_keys (purpose, secret, created_at) VALUES ('action_links', ?, ?)",
                arguments: [secret, ISO8601.string(clock.now)])
            return secret
        }
    }
}
