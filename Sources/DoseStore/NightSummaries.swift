import DoseCore
import Foundation
import GRDB

/// The stored `NightSummary` of each night: `sleep_sessions`' derived columns (the doses, the skip, the snoozes) and
/// `night_summaries` beside them (zones, extra doses, the skip's reason, awakenings). `NightRecords.refreshSession`
/// rewrites both whenever a night's events change, from the one derivation in DoseCore, so the events stay the only
/// source of truth and insights read one row a night.
enum NightSummaries {
    /// Writes the summary of `session` over the old one, and the derived columns of its row.
    static func write(_ session: NightSession, _ db: Database) throws {
        let summary = NightSummary(session)
        try db.execute(
            sql: """
                UPDATE sleep_sessions SET dose1_at = ?, dose2_at = ?, dose2_skipped = ?, extra_dose_count = ?, snooze_count = ?,
                    interval_minutes = ? WHERE id = ?
                """,
            arguments: [
                summary.dose1.map { ISO8601.string($0.at) }, summary.dose2.map { ISO8601.string($0.at) }, summary.skip != nil,
                summary.extraDoses.count, summary.snoozes, summary.intervalMinutes, session.id.rawValue,
            ])
        try writeDetails(summary, of: session.id, db)
    }

    /// Writes the `night_summaries` row of a night.
    private static func writeDetails(_ summary: NightSummary, of id: SessionID, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO night_summaries
                    (session_id, dose1_time_zone, dose2_time_zone, extra_doses, skip_reason, slept_through, awakenings)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id.rawValue, summary.dose1?.timeZoneID, summary.dose2?.timeZoneID, extraDosesText(summary.extraDoses), summary.skip?.reason,
                summary.skip?.sleptThrough ?? false, summary.awakenings,
            ])
    }

    /// The summaries of nights dated `from` through `to`, oldest first, with their ids.
    static func read(from: SessionKey, to: SessionKey, _ db: Database) throws -> [(id: String, summary: NightSummary)] {
        // A night written before its summary row existed falls back to its own zone (the migration fills every row).
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT s.id, s.session_date, s.started_at, s.dose1_at, COALESCE(n.dose1_time_zone, s.time_zone), s.dose2_at,
                    COALESCE(n.dose2_time_zone, s.time_zone), n.extra_doses, s.dose2_skipped, n.skip_reason, n.slept_through, s.snooze_count,
                    n.awakenings,
                    (SELECT json_extract(d.metadata, '$.regimen') FROM dose_events d WHERE d.session_id = s.id AND d.event_type = 'dose1' LIMIT 1),
                    s.ended_at IS NOT NULL
                FROM sleep_sessions s LEFT JOIN night_summaries n ON n.session_id = s.id
                WHERE s.session_date BETWEEN ? AND ? ORDER BY s.session_date, s.started_at
                """, arguments: [from.description, to.description])
        var summaries: [(id: String, summary: NightSummary)] = []
        while let row = try rows.next() {
            summaries.append((row[0], try summary(SummaryCells(text: { row[$0] }, int: { row[$0] }, flag: { row[$0] }))))
        }
        return summaries
    }

    /// A row's cells by column, in the order `read` selects them (the night's id first), however the store reads them.
    struct SummaryCells {
        var text: (Int) throws -> String?
        var int: (Int) throws -> Int?
        var flag: (Int) throws -> Bool?
    }

    /// The summary in cells selected in `read`'s order.
    static func summary(_ cells: SummaryCells) throws -> NightSummary {
        func moment(_ at: Int, _ zone: Int) throws -> NightSummary.Moment? {
            try cells.text(at).map { NightSummary.Moment(at: NightRecords.instant($0), timeZoneID: try cells.text(zone) ?? "UTC") }
        }
        return NightSummary(
            date: SessionKey(parsing: try cells.text(1) ?? "") ?? SessionKey(year: 1970, month: 1, day: 1)!,
            startedAt: NightRecords.instant(try cells.text(2) ?? ""), dose1: try moment(3, 4), dose2: try moment(5, 6),
            extraDoses: extraDoses(try cells.text(7)),
            skip: try cells.flag(8) == true ? NightSummary.Skip(reason: try cells.text(9), sleptThrough: try cells.flag(10) ?? false) : nil,
            snoozes: try cells.int(11) ?? 0, awakenings: try cells.int(12) ?? 0, regimen: regimen(try cells.text(13)),
            ended: try cells.flag(14) ?? false)
    }

    /// The regimen a Dose 1's metadata carries (its JSON text), or nil.
    static func regimen(_ text: String?) -> DoseRegimen? {
        text.flatMap { try? JSONDecoder().decode(DoseRegimen.self, from: Data($0.utf8)) }
    }

    /// Fills `night_summaries` for every night from its events (migration v7), a few hundred nights at a time.
    static func rebuildAll(_ db: Database) throws {
        let ids = try String.fetchAll(db, sql: "SELECT id FROM sleep_sessions ORDER BY started_at")
        for start in stride(from: 0, to: ids.count, by: NightRecords.sessionsPerQuery) {
            let chunk = Array(ids[start..<min(ids.count, start + NightRecords.sessionsPerQuery)])
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM sleep_sessions WHERE id IN (\(databaseQuestionMarks(count: chunk.count)))",
                arguments: StatementArguments(chunk))
            for session in try NightRecords.sessions(from: rows, db) {
                try writeDetails(NightSummary(session), of: session.id, db)
            }
        }
    }

    /// Extra doses as lines of `instant zone`, oldest first; nil without any. Zone identifiers hold no spaces.
    static func extraDosesText(_ doses: [NightSummary.Moment]) -> String? {
        doses.isEmpty ? nil : doses.map { "\(ISO8601.string($0.at)) \($0.timeZoneID)" }.joined(separator: "\n")
    }

    /// The extra doses of `extraDosesText`.
    static func extraDoses(_ text: String?) -> [NightSummary.Moment] {
        guard let text else { return [] }
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return NightSummary.Moment(at: NightRecords.instant(String(parts[0])), timeZoneID: parts.count > 1 ? String(parts[1]) : "UTC")
        }
    }
}
