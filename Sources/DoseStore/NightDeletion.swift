public import DoseCore
import Foundation
import GRDB

/// Which ended nights to delete: some dates (History's multi-select, `session delete DATE…`), or every night dated
/// before a date (Clear Old, `session delete --before DATE`).
public enum NightSelection: Sendable, Hashable {
    case dates([SessionKey])
    case before(SessionKey)

    /// In words, for refusals: "the nights of 2026-11-01, 2026-11-02" or "nights dated before 2026-01-01".
    var words: String {
        switch self {
        case .dates(let dates): "the nights of " + dates.map(\.description).joined(separator: ", ")
        case .before(let date): "nights dated before \(date)"
        }
    }
}

/// What a deletion covers, shown before it is confirmed and reported after it: how many nights and events, and the
/// first and last date.
public struct NightDeletionSummary: Sendable, Hashable {
    /// The session dates, oldest first (one entry per night; a date with two nights appears twice).
    public let dates: [SessionKey]
    public let events: Int
    public var nights: Int { dates.count }
    public var first: SessionKey? { dates.first }
    public var last: SessionKey? { dates.last }

    /// "3 nights (2026-11-01 to 2026-11-03), 15 events" or "the night of 2026-11-04 (12 events)".
    public var words: String {
        guard let first, let last else { return "no nights" }
        let events = "\(events) event\(events == 1 ? "" : "s")"
        if nights == 1 { return "the night of \(first) (\(events))" }
        return "\(nights) nights (\(first == last ? first.description : "\(first) to \(last)")), \(events)"
    }
}

/// Decides whether the chosen nights may be deleted (DoseCore's `NightRules.refuseDeletion`), inside the deletion's
/// transaction: throws to refuse.
public typealias NightDeletionCheck = ([NightToDelete]) throws -> Void

extension HistoryStore {
    /// The most dates one multi-select deletion may name.
    public static let maximumSelectedDates = 400

    /// What deleting `selection` would remove, without removing anything; refused as the deletion itself would be.
    public func deletionPreview(_ selection: NightSelection, refusing: NightDeletionCheck) throws -> NightDeletionSummary {
        return try database.read { db in try Self.selected(selection, refusing: refusing, db).summary }
    }

    /// Deletes the selected nights in one transaction: their events, check-ins, pre-sleep logs, medication entries,
    /// summaries, reminders and alarm records, the audit entries that held old values of them, and stored replies that
    /// quoted them. Each night leaves one audit entry naming its date, when and from which `surface`, never its
    /// content. Then the files are checkpointed and vacuumed so no deleted byte stays in the database, its WAL or free
    /// pages. All or nothing: an unknown date, an empty selection or nights `refusing` refuses change nothing.
    public func deleteNights(_ selection: NightSelection, surface: String, refusing: NightDeletionCheck, clock: StoreClock) throws
        -> NightDeletionSummary
    {
        let summary = try database.write { db in
            let selected = try Self.selected(selection, refusing: refusing, db)
            let batch = clock.makeID()
            for night in selected.nights {
                // Whatever the log held about the night (old values of edited, undone or deleted events) goes with it.
                try db.execute(sql: "DELETE FROM audit_log WHERE session_id = ?", arguments: [night.id])
                try db.execute(sql: "DELETE FROM idempotency_keys WHERE instr(response, ?) > 0", arguments: [night.id])
                try db.execute(sql: "DELETE FROM sleep_sessions WHERE id = ?", arguments: [night.id])
                try NightRecords.audit(
                    .deleteSession, id: clock.makeID(), at: clock.now, session: nil, entity: nil,
                    details: [
                        "session_date": night.date.description, "surface": surface, "batch": batch,
                        "dose_events": String(night.doseEvents), "other_events": String(night.otherEvents),
                    ], db)
            }
            return selected.summary
        }
        try database.scrubFiles()
        return summary
    }

    /// One selected night: its id and date, and how many events it holds.
    private struct SelectedNight {
        let id: String
        let date: SessionKey
        let doseEvents: Int
        let otherEvents: Int
    }

    /// The selected nights, oldest first; refused when the selection is empty or names a date with no night, and
    /// whenever `refusing` refuses them.
    private static func selected(_ selection: NightSelection, refusing: NightDeletionCheck, _ db: Database) throws -> (
        nights: [SelectedNight], summary: NightDeletionSummary
    ) {
        let filter: String
        let arguments: StatementArguments
        switch selection {
        case .dates(let dates):
            guard !dates.isEmpty else {
                throw DoseError.invalidInput(field: "dates", problem: "no night was chosen", allowed: "one or more dates (YYYY-MM-DD)")
            }
            guard dates.count <= maximumSelectedDates else {
                throw DoseError.invalidInput(
                    field: "dates", problem: "\(dates.count) dates at once", allowed: "at most \(maximumSelectedDates), or a date to delete before")
            }
            let unique = Set(dates.map(\.description)).sorted()
            filter = "s.session_date IN (\(databaseQuestionMarks(count: unique.count)))"
            arguments = StatementArguments(unique)
        case .before(let date):
            filter = "s.session_date < ?"
            arguments = [date.description]
        }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT s.id, s.session_date, s.ended_at IS NULL,
                    (SELECT COUNT(*) FROM dose_events d WHERE d.session_id = s.id), (SELECT COUNT(*) FROM sleep_events e WHERE e.session_id = s.id),
                    (SELECT event_type || ' ' || occurred_at FROM dose_events d WHERE d.session_id = s.id AND d.event_type IN ('dose1',
                    'dose2', 'extra_dose')
                        ORDER BY occurred_at DESC LIMIT 1)
                FROM sleep_sessions s WHERE \(filter) ORDER BY s.session_date, s.started_at
                """, arguments: arguments)
        let nights = rows.map { row in
            SelectedNight(
                id: row[0], date: SessionKey(parsing: row[1]) ?? SessionKey(year: 1970, month: 1, day: 1)!, doseEvents: row[3], otherEvents: row[4])
        }
        if case .dates(let dates) = selection {
            let found = Set(nights.map(\.date))
            if let missing = dates.first(where: { !found.contains($0) }) { throw DoseError.notFound(what: "A night dated \(missing)") }
        }
        guard !nights.isEmpty else { throw DoseError.notFound(what: "Any of \(selection.words)") }
        try refusing(
            zip(rows, nights).map { row, night in
                let latest = (row[5] as String?)?.split(separator: " ", maxSplits: 1)
                let dose = latest.flatMap {
                    $0.count == 2 ? RecordedDose(kind: EventKind(wireName: String($0[0])), at: NightRecords.instant(String($0[1]))) : nil
                }
                return NightToDelete(date: night.date, isOpen: row[2], latestDose: dose)
            })
        return (nights, NightDeletionSummary(dates: nights.map(\.date), events: nights.reduce(0) { $0 + $1.doseEvents + $1.otherEvents }))
    }
}
