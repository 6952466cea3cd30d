public import DoseCore
public import Foundation
import GRDB

/// What a push subscription is for.
public enum PushRole: String, Sendable, Codable, CaseIterable {
    /// The sleeper's own phone: every reminder of the plan, with its action buttons.
    case alarm
    /// The escalation contact's phone: only the escalation notice, never an action that could take a dose.
    case contact
}

/// A row of `push_subscriptions`: one browser's Web Push subscription, owned by a paired device.
public struct PushSubscriptionRecord: Sendable, Hashable, StoredRecord {
    static let databaseTableName = "push_subscriptions"

    public var id: String
    public var deviceID: String
    /// The push service's URL for this subscription (a capability: whoever knows it can push).
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed, base64url without padding (87 characters).
    public var p256dh: String
    /// The browser's 16-byte authentication secret, base64url without padding (22 characters).
    public var auth: String
    public var expiresAt: Date?
    public var role: PushRole
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case deviceID = "device_id"
        case endpoint, p256dh, auth
        case expiresAt = "expires_at"
        case role
        case createdAt = "created_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let deviceID = Column(CodingKeys.deviceID)
        static let endpoint = Column(CodingKeys.endpoint)
        static let role = Column(CodingKeys.role)
    }

    /// A subscription as received (ids and times are the store's to give).
    public init(
        id: String = "", deviceID: String = "", endpoint: String, p256dh: String, auth: String, expiresAt: Date?, role: PushRole,
        createdAt: Date = .distantPast
    ) {
        self.id = id
        self.deviceID = deviceID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.expiresAt = expiresAt
        self.role = role
        self.createdAt = createdAt
    }
}

/// What became of one delivery attempt.
public enum DeliveryOutcome: String, Sendable, Codable, CaseIterable {
    /// The channel took it (2xx, a page had it, the command started).
    case accepted
    /// It failed and will be tried again.
    case retrying
    /// It failed for good (attempts used up, or the reminder stopped being useful).
    case failed
    /// The push service said the subscription is gone (404/410); it was removed.
    case removed
    /// Nobody was there to take it (no page open).
    case none
}

/// A row of `alarm_deliveries`: one attempt to deliver one reminder (or test alarm) on one channel to one target.
public struct AlarmDeliveryRecord: Sendable, Hashable, StoredRecord {
    static let databaseTableName = "alarm_deliveries"

    public var id: String
    /// The night; nil for a test alarm.
    public var sessionID: String?
    /// The reminder kind (`ReminderKind`), or `test`.
    public var kind: String
    public var fireAt: Date
    public var channel: AlarmChannel
    public var audience: ReminderAudience
    /// A name safe to show (a device's name, a URL's host); never a secret.
    public var target: String
    /// 1 for the first try.
    public var attempt: Int
    public var outcome: DeliveryOutcome
    public var httpStatus: Int?
    public var detail: String?
    public var durationMilliseconds: Int
    public var at: Date

    enum CodingKeys: String, CodingKey {
        case id
        case sessionID = "session_id"
        case kind
        case fireAt = "fire_at"
        case channel, audience, target, attempt, outcome
        case httpStatus = "http_status"
        case detail
        case durationMilliseconds = "duration_ms"
        case at
    }

    enum Columns {
        static let sessionID = Column(CodingKeys.sessionID)
        static let fireAt = Column(CodingKeys.fireAt)
        static let at = Column(CodingKeys.at)
        static let kind = Column(CodingKeys.kind)
    }

    /// One attempt; the store gives the id.
    public init(
        sessionID: String?, kind: String, fireAt: Date, channel: AlarmChannel, audience: ReminderAudience, target: String, attempt: Int,
        outcome: DeliveryOutcome, httpStatus: Int? = nil, detail: String? = nil, durationMilliseconds: Int, at: Date
    ) {
        id = ""
        self.sessionID = sessionID
        self.kind = kind
        self.fireAt = fireAt
        self.channel = channel
        self.audience = audience
        self.target = target
        self.attempt = attempt
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.detail = detail
        self.durationMilliseconds = durationMilliseconds
        self.at = at
    }
}

/// A row of `alarm_acknowledgements`: someone answered the night's alarms.
public struct AlarmAcknowledgementRecord: Sendable, Hashable, StoredRecord {
    static let databaseTableName = "alarm_acknowledgements"

    public var id: String
    public var sessionID: String
    public var at: Date
    public var surface: AlarmSurface
    /// The action that answered; nil for "I'm up".
    public var eventID: String?

    enum CodingKeys: String, CodingKey {
        case id
        case sessionID = "session_id"
        case at, surface
        case eventID = "event_id"
    }

    enum Columns {
        static let sessionID = Column(CodingKeys.sessionID)
        static let at = Column(CodingKeys.at)
    }
}

extension ReminderLogRecord {
    /// A logged reminder as the alarm log shows it.
    var entry: LoggedReminder { LoggedReminder(kind: kind, fireAt: fireAt, outcome: outcome) }
}
