public import DoseCore
import Foundation
import GRDB

/// What a person writes beside the night's actions: pre-sleep logs, corrections of recorded events, and check-in edits.
public struct NightJournal: Sendable {
    let database: AppDatabase

    /// Replaces the answers of a night's check-in (one per night, editable), keeping the old answers in the audit log.
    public func editCheckIn(on date: SessionKey, answers: MorningCheckIn, clock: StoreClock) throws -> MorningCheckIn {
        let answers = try answers.validated()
        return try database.write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT c.id, c.session_id, c.occurred_at, \(NightRecords.answerColumns)
                        FROM morning_checkins c JOIN sleep_sessions s ON s.id = c.session_id WHERE s.session_date = ?
                        ORDER BY c.occurred_at DESC LIMIT 1
                        """, arguments: [date.description])
            else { throw DoseError.notFound(what: "A check-in for the night of \(date)") }
            let before = try NightRecords.answers(from: row, at: 3)
            let resolved = try Self.resolvingSameAsUsual(answers, before: row["occurred_at"], db)
            try NightRecords.writeAnswers(resolved, checkInID: row["id"], db)
            let encoder = NightRecords.metadataEncoder
            try NightRecords.audit(
                .editCheckIn, id: clock.makeID(), at: clock.now, session: SessionID(rawValue: row["session_id"]), entity: row["id"],
                details: [
                    "before": String(decoding: try encoder.encode(before), as: UTF8.self),
                    "after": String(decoding: try encoder.encode(resolved), as: UTF8.self),
                ], db)
            return resolved
        }
    }

    /// Whether an earlier check-in has a sleep environment that "same as usual" can copy.
    public func hasUsualSleepEnvironment() throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM morning_checkins WHERE sleep_environment_json IS NOT NULL)") ?? false
        }
    }

    /// Fills a "same as usual" environment from the latest earlier check-in that has one.
    static func resolvingSameAsUsual(_ answers: MorningCheckIn, before instant: String, _ db: Database) throws -> MorningCheckIn {
        guard answers.environment?.sameAsUsual == true else { return answers }
        let usual = try SQLiteNightTransaction(db: db, cache: nil).usualSleepEnvironment(before: NightRecords.instant(instant))
        return try answers.resolvingSameAsUsual(with: usual)
    }
}

extension NightJournal {
    /// A recorded event by id, with its night (to answer a replayed request with the client's event id).
    public func recordedEvent(_ id: EventID) throws -> (event: NightEvent, session: NightSession)? {
        try database.read { db in
            guard let sessionID = try NightRecords.sessionID(ofEvent: id, db), let session = try NightRecords.session(id: sessionID, db),
                let event = session.events.first(where: { $0.id == id })
            else { return nil }
            return (event, session)
        }
    }
}
