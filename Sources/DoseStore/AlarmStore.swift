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

    /// How long test-alarm deliveries are kept (a night's deliveries go with the night).
    public static let testRetention: TimeInterval = 30 * 86_400

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
