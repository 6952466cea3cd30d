import DoseCore
public import Foundation
import GRDB

// The rows the server keeps about itself and its clients.

/// A paired device (a phone's browser, Home Assistant, a button daemon): a row of `devices`.
public struct DeviceRecord: Sendable, Hashable, StoredRecord {
    static let databaseTableName = "devices"

    public var id: String
    public var name: String
    /// SHA-256 of the token, hex; the token itself is never stored.
    public var tokenHash: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// When a request last used it, written at most once a day (nil: not since it was paired).
    public var lastUsedAt: Date?
    /// The date chosen for it to stop working (nil: only when unused for `DeviceLifetime.idleLimit`).
    public var expiresAt: Date?

    public init(id: String, name: String, tokenHash: String, createdAt: Date, revokedAt: Date?, lastUsedAt: Date? = nil, expiresAt: Date? = nil) {
        self.id = id
        self.name = name
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }

    /// When it expires if not used again (`DeviceLifetime.expiry`).
    public var expiry: Date? { DeviceLifetime.expiry(createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt) }

    enum CodingKeys: String, CodingKey {
        case id, name
        case tokenHash = "token_hash"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let createdAt = Column(CodingKeys.createdAt)
        static let revokedAt = Column(CodingKeys.revokedAt)
        static let lastUsedAt = Column(CodingKeys.lastUsedAt)
    }
}

/// A stored answer to a request made with an `Idempotency-Key`.
public struct StoredResponse: Sendable, Hashable {
    public var requestHash: String
    public var status: Int
    public var body: String

    /// An answer to keep under a key.
    public init(requestHash: String, status: Int, body: String) {
        self.requestHash = requestHash
        self.status = status
        self.body = body
    }
}

/// A row of `idempotency_keys`: the answer given to one device's request under one key.
struct IdempotencyRecord: StoredRecord {
    static let databaseTableName = "idempotency_keys"

    var deviceID: String
    var key: String
    var requestHash: String
    var status: Int
    var response: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case key
        case requestHash = "request_hash"
        case status, response
        case createdAt = "created_at"
    }

    enum Columns {
        static let deviceID = Column(CodingKeys.deviceID)
        static let key = Column(CodingKeys.key)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    init(deviceID: String, key: String, response: StoredResponse, at now: Date) {
        self.deviceID = deviceID
        self.key = key
        requestHash = response.requestHash
        status = response.status
        self.response = response.body
        createdAt = now
    }

    var storedResponse: StoredResponse { StoredResponse(requestHash: requestHash, status: status, body: response) }

    /// The stored answer for a device's key, if any.
    static func find(device: String, key: String, _ db: Database) throws -> StoredResponse? {
        try filter(Columns.deviceID == device && Columns.key == key).fetchOne(db)?.storedResponse
    }
}

/// A row of `server_keys`: one secret per purpose.
struct ServerKeyRecord: StoredRecord {
    static let databaseTableName = "server_keys"

    var purpose: String
    var secret: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case purpose, secret
        case createdAt = "created_at"
    }
}

/// A row of `server_runs`: one run of `dosetap serve`, from its start to its last sign of life.
struct ServerRunRecord: StoredRecord {
    static let databaseTableName = "server_runs"

    var id: String
    var startedAt: Date
    var lastSeenAt: Date
    var stoppedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case startedAt = "started_at"
        case lastSeenAt = "last_seen_at"
        case stoppedAt = "stopped_at"
    }

    enum Columns {
        static let startedAt = Column(CodingKeys.startedAt)
    }
}

/// A row of `settings`: one value that differs from its default.
struct SettingRecord: StoredRecord {
    static let databaseTableName = "settings"

    var key: String
    var value: String
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case key, value
        case updatedAt = "updated_at"
    }
}

/// A row of `reminder_log`: each reminder of a night's plan, logged once as fired or missed.
struct ReminderLogRecord: StoredRecord {
    static let databaseTableName = "reminder_log"

    var sessionID: String
    var kind: String
    var fireAt: Date
    var outcome: String
    var recordedAt: Date

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case kind
        case fireAt = "fire_at"
        case outcome
        case recordedAt = "recorded_at"
    }

    enum Columns {
        static let sessionID = Column(CodingKeys.sessionID)
    }
}

/// What an audit entry records: the schema's `audit_log.action` values, one case each.
public enum AuditAction: String, Sendable, Codable, CaseIterable {
    case undo
    /// An event replaced by a later one of the same kind (Dose 2 confirmed after an early tap, a moved wake-up).
    case superseded
    case deleteSession = "delete_session"
    case setting
    case editEvent = "edit_event"
    case deleteEvent = "delete_event"
    case editCheckIn = "edit_checkin"
    case replacePreSleep = "replace_presleep"
    case editMedication = "edit_medication"
    case deleteMedication = "delete_medication"
    case `import`
    case setup
    case refillLogged = "refill_logged"
    case inventoryAdjustment = "inventory_adjustment"
    case deleteInventory = "delete_inventory"
    /// A dose recorded as taken past the night's limits (D20).
    case takenAnyway = "taken_anyway"
}

/// A row of `audit_log`: what an undo, a correction, a deletion or a settings change changed.
struct AuditRecord: StoredRecord {
    static let databaseTableName = "audit_log"

    var id: String
    var at: Date
    var action: AuditAction
    var sessionID: String?
    var entityID: String?
    /// The details as a JSON object of strings.
    var details: String

    enum CodingKeys: String, CodingKey {
        case id, at, action
        case sessionID = "session_id"
        case entityID = "entity_id"
        case details
    }
}
