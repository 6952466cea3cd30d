public import DoseCore
import Foundation
import PostgresNIO

/// Insights' nights in PostgreSQL's own statements: one row a night of each table (the summary, the check-in, the
/// pre-sleep log) and the night's medications, all sent before any is waited for, in one snapshot. The same rows as the
/// SQLite store's `HistoryStore.insightNights` reads, decoded by the same code (`NightSummaries`, `NightRecords.answers`).
extension PostgresStore {
    /// Every night of `person` dated `from` through `to` as insights read it, oldest first; nil when the person keeps a
    /// wearable's sleep, whose merging the SQLite store's reader does (the caller reads those through it).
    public func insightNights(of person: String, from: SessionKey, to: SessionKey) throws -> [InsightNight]? {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            // $1 the person, $2 and $3 the first and last date.
            let range = "s.person_id = $1 AND s.session_date BETWEEN $2::date AND $3::date"
            var binds = PostgresBindings()
            binds.append(person)
            binds.append(from.description)
            binds.append(to.description)
            let wearable = session.send(
                """
                SELECT EXISTS (SELECT 1 FROM wearable_sleep WHERE person_id = \(person))
                    OR EXISTS (SELECT 1 FROM wearable_summaries WHERE person_id = \(person))
                """)
            // A night written before its summary row existed falls back to its own zone, as on SQLite.
            let summaries = session.send(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT s.id, s.session_date::text, dosetap_instant(s.started_at), dosetap_instant(s.dose1_at),
                            COALESCE(n.dose1_time_zone, s.time_zone), dosetap_instant(s.dose2_at), COALESCE(n.dose2_time_zone, s.time_zone),
                            n.extra_doses, s.dose2_skipped, n.skip_reason, n.slept_through, s.snooze_count, n.awakenings,
                            (SELECT (d.metadata::json -> 'regimen')::text FROM dose_events AS d
                                WHERE d.person_id = s.person_id AND d.session_id = s.id AND d.event_type = 'dose1' LIMIT 1),
                            s.ended_at IS NOT NULL
                        FROM sleep_sessions AS s LEFT JOIN night_summaries AS n ON n.session_id = s.id
                        WHERE \(range) ORDER BY s.session_date, s.started_at
                        """, binds: binds))
            let nights = "SELECT s.id FROM sleep_sessions AS s WHERE \(range)"
            let checkIns = session.send(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT session_id, \(NightRecords.answerColumns.replacingOccurrences(of: "\n", with: " ")) FROM morning_checkins
                        WHERE person_id = $1 AND session_id IN (\(nights))
                        """, binds: binds))
            let preSleeps = session.send(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT session_id, answers_json FROM pre_sleep_logs WHERE person_id = $1 AND session_id IN (\(nights))
                        """, binds: binds))
            let medications = session.send(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT session_id, medication_id FROM medication_events WHERE person_id = $1 AND session_id IN (\(nights))
                        ORDER BY taken_at
                        """, binds: binds))
            guard try session.rows(of: wearable).first?.decode(Bool.self) == false else {
                try session.confirm()
                return nil
            }
            let read = try session.rows(of: summaries).map { row in
                let cells = row.makeRandomAccess()
                let summary = try NightSummaries.summary(
                    NightSummaries.SummaryCells(
                        text: { try cells[$0].decode(String?.self) }, int: { try cells[$0].decode(Int?.self) },
                        flag: { try cells[$0].decode(Bool?.self) }))
                return (id: try cells[0].decode(String.self), summary: summary)
            }
            var answers: [String: MorningCheckIn] = [:]
            answers.reserveCapacity(read.count)
            for row in try session.rows(of: checkIns) {
                let cells = row.makeRandomAccess()
                answers[try cells[0].decode(String.self)] = try NightRecords.answers(
                    NightRecords.AnswerCells(
                        int: { try cells[1 + $0].decode(Int.self) }, text: { try cells[1 + $0].decode(String?.self) },
                        flag: { try cells[1 + $0].decode(Bool.self) }))
            }
            let decoder = JSONDecoder()
            var logs: [String: PreSleepLog] = [:]
            for row in try session.rows(of: preSleeps) {
                let (night, json) = try row.decode((String, String).self)
                logs[night] = try decoder.decode(PreSleepLog.self, from: Data(json.utf8))
            }
            var taken: [String: [String]] = [:]
            for row in try session.rows(of: medications) {
                let (night, id) = try row.decode((String, String).self)
                taken[night, default: []].append((try? MedicationCatalogue.medication(id: id))?.name ?? id)
            }
            return read.map { id, summary in
                InsightNight(summary: summary, checkIn: answers[id], preSleep: logs[id], medications: taken[id] ?? [])
            }
        }
    }
}
