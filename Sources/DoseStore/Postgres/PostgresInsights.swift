public import DoseCore
import Foundation
import PostgresNIO

/// Insights' nights in PostgreSQL's own statements: one row a night of each table (the summary, the check-in, the
/// pre-sleep log) and the night's medications, all sent before any is waited for, in one snapshot. The same rows as the
/// SQLite store's `HistoryStore.insightNights` reads, decoded by the same code (`NightSummaries`, `NightAnswers`).
extension PostgresStore {
    /// A night's summary row, one per night of `condition` (over `s`, the sessions), oldest first: the cells
    /// `NightSummaries.summary` reads (0–14), then whether it ended and when (15, 16), then `extra` columns.
    static func summarySelect(where condition: String, extra: String = "", joins: String = "") -> String {
        """
        SELECT s.id, s.session_date::text, dosetap_instant(s.started_at), dosetap_instant(s.dose1_at),
            COALESCE(n.dose1_time_zone, s.time_zone), dosetap_instant(s.dose2_at), COALESCE(n.dose2_time_zone, s.time_zone),
            n.extra_doses, s.dose2_skipped, n.skip_reason, n.slept_through, s.snooze_count, n.awakenings,
            (SELECT (d.metadata::json -> 'regimen')::text FROM dose_events AS d
                WHERE d.person_id = s.person_id AND d.session_id = s.id AND d.event_type = 'dose1' LIMIT 1),
            s.ended_at IS NOT NULL, dosetap_instant(s.ended_at)\(extra)
        FROM sleep_sessions AS s LEFT JOIN night_summaries AS n ON n.session_id = s.id\(joins)
        WHERE \(condition) ORDER BY s.session_date, s.started_at
        """
    }

    /// The summary of a row `summarySelect` read.
    static func summary(of row: PostgresRow) throws -> (id: String, summary: NightSummary, cells: PostgresRandomAccessRow) {
        let cells = row.makeRandomAccess()
        let summary = try NightSummaries.summary(
            NightSummaries.SummaryCells(
                text: { try cells[$0].decode(String?.self) }, int: { try cells[$0].decode(Int?.self) },
                flag: { try cells[$0].decode(Bool?.self) }))
        return (try cells[0].decode(String.self), summary, cells)
    }

    /// Every night of `person` dated `from` through `to` as insights read it, oldest first, with a wearable's sleep for
    /// a person who keeps one.
    public func insightNights(of person: String, from: SessionKey, to: SessionKey) throws -> [InsightNight] {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            // $1 the person, $2 and $3 the first and last date.
            let range = "s.person_id = $1 AND s.session_date BETWEEN $2::date AND $3::date"
            var binds = PostgresBindings()
            binds.append(person)
            binds.append(from.description)
            binds.append(to.description)
            let wearable = Self.sendKeepsWearable(person, session)
            // A night written before its summary row existed falls back to its own zone, as on SQLite. Its end comes last,
            // after the summary's cells, for a wearable's window.
            let summaries = session.send(PostgresQuery(unsafeSQL: Self.summarySelect(where: range), binds: binds))
            let answers = PostgresAnswers(nights: "SELECT s.id FROM sleep_sessions AS s WHERE \(range)", binds: binds, session)
            var ended: [String: Date] = [:]
            let read = try session.rows(of: summaries).map { row in
                let (id, summary, cells) = try Self.summary(of: row)
                ended[id] = try cells[15].decode(String?.self).map(NightRecords.instant)
                return (id: id, summary: summary)
            }
            let answered = try answers.read(session, expecting: read.count)
            var sleep: [String: NightSleep] = [:]
            if try Self.keepsWearable(wearable, session), !read.isEmpty {
                let windows = read.map { id, summary in
                    WearableSleepReader.Window(id: id, startedAt: summary.startedAt, endedAt: ended[id], dose2: summary.dose2?.at)
                }
                sleep = try Self.wearableSleep(windows, of: person, vitals: false, session)
            }
            return read.map { id, summary in
                InsightNight(
                    summary: summary, checkIn: answered.checkIns[id], preSleep: answered.preSleeps[id],
                    medications: answered.medications[id]?.map(\.name) ?? [], sleep: sleep[id]?.figures)
            }
        }
    }
}
