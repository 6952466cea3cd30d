import DoseCore
import Foundation
import PostgresNIO

/// A person's alarm records in PostgreSQL, read in the night transaction's snapshot.
extension PostgresNightTransaction {
    /// The columns of an `alarm_deliveries` row an attempt is built from, in `delivery(from:)` order.
    private static let deliveryColumns = """
        id, session_id, kind, dosetap_instant(fire_at), channel, audience, target, attempt, outcome, http_status, detail, duration_ms,
        dosetap_instant(at)
        """

    func alarmRecords(night: SessionID) throws -> NightAlarmLog {
        // Three statements, one wait: each is sent before any is waited for.
        let reminders = session.send("SELECT kind, dosetap_instant(fire_at), outcome FROM reminder_log WHERE session_id = \(night.rawValue)")
        let deliveries = session.send(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.deliveryColumns) FROM alarm_deliveries WHERE person_id = $1 AND session_id = $2 ORDER BY at, id",
                binds: binds(person, night.rawValue)))
        let answers = session.send(
            """
            SELECT id, session_id, dosetap_instant(at), surface, event_id FROM alarm_acknowledgements
            WHERE session_id = \(night.rawValue) ORDER BY at, id
            """)
        let logged = try session.rows(of: reminders).map { row in
            let (kind, fireAt, outcome) = try row.decode((String, String, String).self)
            return LoggedReminder(kind: kind, fireAt: NightRecords.instant(fireAt), outcome: outcome)
        }
        return NightAlarmLog(
            reminders: logged.sorted { ($0.fireAt, $0.kindName) < ($1.fireAt, $1.kindName) },
            deliveries: try session.rows(of: deliveries).map(Self.delivery(from:)),
            acknowledgements: try session.rows(of: answers).map { row in
                let (id, night, at, surface, event) = try row.decode((String, String, String, String, String?).self)
                return AlarmAcknowledgementRecord(
                    id: id, sessionID: night, at: NightRecords.instant(at), surface: AlarmSurface(rawValue: surface) ?? .api, eventID: event)
            })
    }

    func lastTestDeliveries() throws -> [AlarmDeliveryRecord] {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.deliveryColumns) FROM alarm_deliveries
                    WHERE person_id = $1 AND session_id IS NULL AND fire_at = (
                        SELECT max(fire_at) FROM alarm_deliveries WHERE person_id = $1 AND session_id IS NULL)
                    ORDER BY at, id
                    """, binds: binds(person)))
        return try rows.map(Self.delivery(from:))
    }

    /// An attempt from a row of `deliveryColumns`.
    private static func delivery(from row: PostgresRow) throws -> AlarmDeliveryRecord {
        let cells = row.makeRandomAccess()
        var attempt = AlarmDeliveryRecord(
            sessionID: try cells[1].decode(String?.self), kind: try cells[2].decode(String.self),
            fireAt: NightRecords.instant(try cells[3].decode(String.self)),
            channel: AlarmChannel(rawValue: try cells[4].decode(String.self)) ?? .page,
            audience: ReminderAudience(rawValue: try cells[5].decode(String.self)) ?? .sleeper, target: try cells[6].decode(String.self),
            attempt: try cells[7].decode(Int.self), outcome: DeliveryOutcome(rawValue: try cells[8].decode(String.self)) ?? .none,
            httpStatus: try cells[9].decode(Int?.self), detail: try cells[10].decode(String?.self),
            durationMilliseconds: try cells[11].decode(Int.self), at: NightRecords.instant(try cells[12].decode(String.self)))
        attempt.id = try cells[0].decode(String.self)
        return attempt
    }
}
