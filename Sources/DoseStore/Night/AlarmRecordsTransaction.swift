public import DoseCore
import Foundation
import GRDB

/// The record of a night's alarms beside its events: what rang, every attempt to deliver it, and every answer.
public protocol AlarmRecordsTransaction {
    /// The night's alarm log, each part oldest first.
    func alarmRecords(night: SessionID) throws -> NightAlarmLog
    /// The attempts of the latest test alarm (those of its newest instant).
    func lastTestDeliveries() throws -> [AlarmDeliveryRecord]
}

extension SQLiteNightTransaction {
    func alarmRecords(night: SessionID) throws -> NightAlarmLog {
        let id = night.rawValue
        let reminders = try ReminderLogRecord.filter(ReminderLogRecord.Columns.sessionID == id).fetchAll(db).map(\.entry)
        let deliveries = try AlarmDeliveryRecord.filter(AlarmDeliveryRecord.Columns.sessionID == id).order(AlarmDeliveryRecord.Columns.at)
            .fetchAll(db)
        let acknowledgements = try AlarmAcknowledgementRecord.filter(AlarmAcknowledgementRecord.Columns.sessionID == id)
            .order(AlarmAcknowledgementRecord.Columns.at).fetchAll(db)
        return NightAlarmLog(
            reminders: reminders.sorted { ($0.fireAt, $0.kindName) < ($1.fireAt, $1.kindName) }, deliveries: deliveries,
            acknowledgements: acknowledgements)
    }

    func lastTestDeliveries() throws -> [AlarmDeliveryRecord] {
        let tests = AlarmDeliveryRecord.filter(AlarmDeliveryRecord.Columns.sessionID == nil)
        guard let newest = try tests.order(AlarmDeliveryRecord.Columns.fireAt.desc).fetchOne(db) else { return [] }
        return try tests.filter(AlarmDeliveryRecord.Columns.fireAt == ISO8601.string(newest.fireAt)).order(AlarmDeliveryRecord.Columns.at)
            .fetchAll(db)
    }
}
