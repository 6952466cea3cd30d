import DoseCore
import Foundation
import GRDB

/// The journal tables in the embedded SQLite database, in the night transaction's `db`.
extension SQLiteNightTransaction {
    func medicationTimes(of medicationIDs: Set<String>, after: Date, before: Date, excluding: String?) throws -> [String: [Date]] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT medication_id, taken_at FROM medication_events
                WHERE medication_id IN (SELECT value FROM json_each(?)) AND taken_at > ? AND taken_at < ? AND id IS NOT ?
                """,
            arguments: [
                String(decoding: try JSONEncoder().encode(medicationIDs.sorted()), as: UTF8.self), ISO8601.string(after), ISO8601.string(before),
                excluding,
            ])
        return Dictionary(grouping: rows, by: { $0[0] as String }).mapValues { $0.map { NightRecords.instant($0[1]) } }
    }

    func nightIDs(dated dates: Set<SessionKey>) throws -> [SessionKey: SessionID] {
        var found: [SessionKey: SessionID] = [:]
        for date in dates {
            let id = try String.fetchOne(
                db, sql: "SELECT id FROM sleep_sessions WHERE session_date = ? ORDER BY started_at DESC LIMIT 1", arguments: [date.description])
            found[date] = id.map(SessionID.init(rawValue:))
        }
        return found
    }

    func medication(id: String) throws -> MedicationRecord? { try MedicationRecord.fetchOne(db, key: id) }

    func medications(on date: SessionKey?, limit: Int) throws -> [MedicationRecord] {
        var request = MedicationRecord.order(MedicationRecord.Columns.takenAt.desc).limit(limit)
        if let date { request = request.filter(MedicationRecord.Columns.sessionDate == date.description) }
        return try request.fetchAll(db)
    }

    func insertMedications(_ entries: [MedicationRecord]) throws {
        for entry in entries { try entry.insert(db) }
    }

    func deleteMedication(id: String) throws {
        try db.execute(sql: "DELETE FROM medication_events WHERE id = ?", arguments: [id])
    }

    func preSleepLog(night: SessionID) throws -> StoredPreSleepLog? {
        try Row.fetchOne(db, sql: "SELECT id, answers_json, completion_state FROM pre_sleep_logs WHERE session_id = ?", arguments: [night.rawValue])
            .map { StoredPreSleepLog(id: $0[0], answersJSON: $0[1], completion: $0[2]) }
    }

    func deletePreSleepLog(id: String) throws {
        try db.execute(sql: "DELETE FROM pre_sleep_logs WHERE id = ?", arguments: [id])
    }

    func insertPreSleepLog(_ entry: PreSleepEntry) throws {
        let json = String(decoding: try NightRecords.metadataEncoder.encode(entry.log), as: UTF8.self)
        try db.execute(
            literal: """
                INSERT INTO pre_sleep_logs (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note,
                    completion_state, answers_json)
                VALUES (\(entry.id), \(entry.night.rawValue), \(ISO8601.string(entry.occurredAt)), \(ISO8601.string(entry.recordedAt)),
                    \(LocalClock.offsetMinutes(entry.timeZone, at: entry.occurredAt)), \(entry.timeZone.identifier), \(entry.source.rawValue), \(entry.note),
                    \(entry.completion.rawValue), \(json))
                """)
    }

    func latestCheckIn(ofNightDated date: SessionKey) throws -> StoredCheckIn? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT c.id, c.session_id, c.occurred_at, \(NightRecords.answerColumns)
                    FROM morning_checkins c JOIN sleep_sessions s ON s.id = c.session_id WHERE s.session_date = ?
                    ORDER BY c.occurred_at DESC LIMIT 1
                    """, arguments: [date.description])
        else { return nil }
        return StoredCheckIn(
            id: EventID(rawValue: row[0]), night: SessionID(rawValue: row[1]), occurredAt: NightRecords.instant(row[2]),
            answers: try NightRecords.answers(from: row, at: 3))
    }

    func rewriteCheckIn(_ id: EventID, answers: MorningCheckIn) throws {
        try NightRecords.writeAnswers(answers, checkInID: id.rawValue, db)
    }

    func hasSleepEnvironment() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM morning_checkins WHERE sleep_environment_json IS NOT NULL)") ?? false
    }

    func audit(_ action: AuditAction, id: String, at instant: Date, night: SessionID?, entity: String?, details: [String: String]) throws {
        try NightRecords.audit(action, id: id, at: instant, session: night, entity: entity, details: details, db)
    }

    func forgetStoredResponses(before instant: Date) throws {
        try IdempotencyRecord.filter(IdempotencyRecord.Columns.createdAt < ISO8601.string(instant)).deleteAll(db)
    }
}
