public import DoseCore
public import Foundation
import GRDB

/// A night's alarms as recorded: the reminders logged, every delivery attempt, and every answer.
public struct NightAlarmLog: Sendable, Hashable {
    public var reminders: [LoggedReminder]
    public var deliveries: [AlarmDeliveryRecord]
    public var acknowledgements: [AlarmAcknowledgementRecord]
}

/// Web Push subscriptions, the record of alarm deliveries, and the answers to alarms (issue 14).
public struct AlarmStore: Sendable {
    let database: AppDatabase

    /// Subscriptions a device may hold; a browser makes one, so more means something is wrong.
    public static let subscriptionsPerDevice = 5
    /// How long test-alarm deliveries are kept (a night's deliveries go with the night).
    public static let testRetention: TimeInterval = 30 * 86_400

    /// Saves a subscription for a device; the same endpoint again replaces its keys, owner and role.
    public func subscribe(_ subscription: PushSubscriptionRecord, device: String, clock: StoreClock) throws -> PushSubscriptionRecord {
        try database.write { db in
            let columns = PushSubscriptionRecord.Columns.self
            var record = subscription
            record.deviceID = device
            record.createdAt = clock.now
            if let existing = try PushSubscriptionRecord.filter(columns.endpoint == subscription.endpoint).fetchOne(db) {
                record.id = existing.id
                try record.update(db)
                return record
            }
            let held = try PushSubscriptionRecord.filter(columns.deviceID == device).fetchCount(db)
            guard held < Self.subscriptionsPerDevice else {
                throw DoseError.invalidInput(
                    field: "endpoint", problem: "this device already has \(held) push subscriptions",
                    allowed: "at most \(Self.subscriptionsPerDevice) per device; remove one on Settings first")
            }
            record.id = clock.makeID()
            try record.insert(db)
            return record
        }
    }

    /// Removes a subscription by its endpoint or its id; returns it, or nil when there was none.
    @discardableResult
    public func remove(endpointOrID: String) throws -> PushSubscriptionRecord? {
        try database.write { db in
            let columns = PushSubscriptionRecord.Columns.self
            guard let record = try PushSubscriptionRecord.filter(columns.endpoint == endpointOrID || columns.id == endpointOrID).fetchOne(db) else {
                return nil
            }
            try record.delete(db)
            return record
        }
    }

    /// The subscriptions of paired (not revoked) devices, with each device's name, oldest first.
    public func subscriptions(role: PushRole? = nil) throws -> [(subscription: PushSubscriptionRecord, deviceName: String)] {
        try database.read { db in
            var sql = """
                SELECT push_subscriptions.*, devices.name AS device_name FROM push_subscriptions
                JOIN devices ON devices.id = push_subscriptions.device_id AND devices.revoked_at IS NULL
                """
            var arguments: StatementArguments = []
            if let role {
                sql += " WHERE push_subscriptions.role = ?"
                arguments = [role.rawValue]
            }
            sql += " ORDER BY push_subscriptions.created_at, push_subscriptions.id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (try PushSubscriptionRecord(row: row), row["device_name"] as String)
            }
        }
    }

    /// Records one delivery attempt (and, for a test alarm, forgets tests older than a month).
    public func record(_ attempt: AlarmDeliveryRecord, clock: StoreClock) throws {
        var row = attempt
        row.id = clock.makeID()
        try database.write { db in
            // A night that was deleted (or cleared) while its reminder was on its way takes its record with it.
            if let session = row.sessionID, try !Bool(exists: "SELECT 1 FROM sleep_sessions WHERE id = ?", session, db) { return }
            try row.insert(db)
            if row.sessionID == nil {
                try AlarmDeliveryRecord.filter(
                    AlarmDeliveryRecord.Columns.sessionID == nil
                        && AlarmDeliveryRecord.Columns.at < ISO8601.string(clock.now.addingTimeInterval(-Self.testRetention))
                ).deleteAll(db)
            }
        }
    }

    /// The instants the night's alarms were answered (what the reminder plan needs).
    static func acknowledgedAt(session: String, _ db: Database) throws -> [Date] {
        try AlarmAcknowledgementRecord.filter(AlarmAcknowledgementRecord.Columns.sessionID == session).fetchAll(db).map(\.at)
    }

    /// The night's logged reminders and when its alarms were last answered.
    static func alarmLog(session: String, _ db: Database) throws -> (reminders: [LoggedReminder], lastAnswer: Date?) {
        let lastAnswer = try AlarmAcknowledgementRecord.filter(AlarmAcknowledgementRecord.Columns.sessionID == session)
            .order(AlarmAcknowledgementRecord.Columns.at.desc).fetchOne(db)?.at
        let logged = try ReminderLogRecord.filter(ReminderLogRecord.Columns.sessionID == session).fetchAll(db).map(\.entry)
        return (logged, lastAnswer)
    }
}

extension Bool {
    /// Whether the query finds a row.
    init(exists sql: String, _ argument: String, _ db: Database) throws {
        self = try Row.fetchOne(db, sql: sql, arguments: [argument]) != nil
    }
}
