public import DoseCore
import Foundation
import GRDB

/// A night a deletion may remove, as the store found it: its id and date, whether it is open, its events, and its
/// latest oxybate dose (what DoseCore's refusal weighs).
public struct NightDeletionCandidate: Sendable, Hashable {
    public let id: String
    public let date: SessionKey
    public let isOpen: Bool
    public let doseEvents: Int
    public let otherEvents: Int
    public let latestDose: RecordedDose?

    /// A night found for a deletion.
    public init(id: String, date: SessionKey, isOpen: Bool, doseEvents: Int, otherEvents: Int, latestDose: RecordedDose?) {
        self.id = id
        self.date = date
        self.isOpen = isOpen
        self.doseEvents = doseEvents
        self.otherEvents = otherEvents
        self.latestDose = latestDose
    }
}

/// Finding and removing whole nights beside the night tables (History's deletion, Clear Old).
public protocol NightDeletionTransaction {
    /// The nights `selection` picks (the dates named, or every date before one), oldest first.
    func deletionCandidates(_ selection: NightSelection) throws -> [NightDeletionCandidate]
    /// Removes a night and every trace of it: its rows (their children go with them), the audit entries that held old
    /// values of it, and stored replies that quoted it.
    func removeNight(_ id: String) throws
}

extension NightSelection {
    /// The dates named, each once and in order, or nil for every date before one; refused when none is named or too many.
    func namedDates() throws -> [String]? {
        guard case .dates(let dates) = self else { return nil }
        guard !dates.isEmpty else {
            throw DoseError.invalidInput(field: "dates", problem: "no night was chosen", allowed: "one or more dates (YYYY-MM-DD)")
        }
        guard dates.count <= Self.maximumDates else {
            throw DoseError.invalidInput(
                field: "dates", problem: "\(dates.count) dates at once", allowed: "at most \(Self.maximumDates), or a date to delete before")
        }
        return Set(dates.map(\.description)).sorted()
    }

    /// The most dates one multi-select deletion may name.
    public static let maximumDates = 400
}

extension NightDeletionCandidate {
    /// The latest dose from its `event_type || ' ' || instant` text, as both stores select it.
    static func latestDose(_ text: String?) -> RecordedDose? {
        guard let parts = text?.split(separator: " ", maxSplits: 1), parts.count == 2 else { return nil }
        return RecordedDose(kind: EventKind(wireName: String(parts[0])), at: NightRecords.instant(String(parts[1])))
    }
}

extension SQLiteNightTransaction {
    func deletionCandidates(_ selection: NightSelection) throws -> [NightDeletionCandidate] {
        let filter: String
        let arguments: StatementArguments
        if let dates = try selection.namedDates() {
            filter = "s.session_date IN (\(databaseQuestionMarks(count: dates.count)))"
            arguments = StatementArguments(dates)
        } else if case .before(let date) = selection {
            filter = "s.session_date < ?"
            arguments = [date.description]
        } else {
            return []
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT s.id, s.session_date, s.ended_at IS NULL,
                    (SELECT COUNT(*) FROM dose_events d WHERE d.session_id = s.id), (SELECT COUNT(*) FROM sleep_events e WHERE e.session_id = s.id),
                    (SELECT event_type || ' ' || occurred_at FROM dose_events d WHERE d.session_id = s.id
                        AND d.event_type IN ('dose1', 'dose2', 'extra_dose') ORDER BY occurred_at DESC LIMIT 1)
                FROM sleep_sessions s WHERE \(filter) ORDER BY s.session_date, s.started_at
                """, arguments: arguments
        ).map { row in
            NightDeletionCandidate(
                id: row[0], date: SessionKey(parsing: row[1]) ?? SessionKey(year: 1970, month: 1, day: 1)!, isOpen: row[2], doseEvents: row[3],
                otherEvents: row[4], latestDose: NightDeletionCandidate.latestDose(row[5]))
        }
    }

    func removeNight(_ id: String) throws {
        try db.execute(sql: "DELETE FROM audit_log WHERE session_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM idempotency_keys WHERE instr(response, ?) > 0", arguments: [id])
        try db.execute(sql: "DELETE FROM sleep_sessions WHERE id = ?", arguments: [id])
    }
}
