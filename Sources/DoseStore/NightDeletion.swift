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

/// Deleting whole nights, on either store: what a selection covers, refused as DoseCore decides, and the removal with
/// one audit entry a night. Each store finds and removes the rows (`NightDeletionTransaction`).
public enum NightDeletion {
    /// What deleting `selection` would remove, found in `night`'s transaction; refused when the selection is empty,
    /// names a date with no night, or `refusing` refuses the nights.
    public static func chosen(_ selection: NightSelection, refusing: NightDeletionCheck, in night: some NightDeletionTransaction) throws
        -> (nights: [NightDeletionCandidate], summary: NightDeletionSummary)
    {
        let nights = try night.deletionCandidates(selection)
        if case .dates(let dates) = selection {
            let found = Set(nights.map(\.date))
            if let missing = dates.first(where: { !found.contains($0) }) { throw DoseError.notFound(what: "A night dated \(missing)") }
        }
        guard !nights.isEmpty else { throw DoseError.notFound(what: "Any of \(selection.words)") }
        try refusing(nights.map { NightToDelete(date: $0.date, isOpen: $0.isOpen, latestDose: $0.latestDose) })
        return (nights, NightDeletionSummary(dates: nights.map(\.date), events: nights.reduce(0) { $0 + $1.doseEvents + $1.otherEvents }))
    }

    /// Deletes the selected nights in `night`'s transaction: their events, check-ins, pre-sleep logs, medication entries,
    /// summaries, reminders and alarm records, the audit entries that held old values of them, and stored replies that
    /// quoted them. Each night leaves one audit entry naming its date, when and from which `surface`, never its
    /// content. All or nothing: an unknown date, an empty selection or nights `refusing` refuses change nothing.
    public static func delete(
        _ selection: NightSelection, surface: String, refusing: NightDeletionCheck, clock: StoreClock,
        in night: some NightDeletionTransaction & JournalTransaction
    ) throws -> NightDeletionSummary {
        let selected = try chosen(selection, refusing: refusing, in: night)
        let batch = clock.makeID()
        for chosen in selected.nights {
            try night.removeNight(chosen.id)
            try night.audit(
                .deleteSession, id: clock.makeID(), at: clock.now, night: nil, entity: nil,
                details: [
                    "session_date": chosen.date.description, "surface": surface, "batch": batch, "dose_events": String(chosen.doseEvents),
                    "other_events": String(chosen.otherEvents),
                ])
        }
        return selected.summary
    }
}

extension HistoryStore {
    /// What deleting `selection` would remove, without removing anything; refused as the deletion itself would be.
    public func deletionPreview(_ selection: NightSelection, refusing: NightDeletionCheck) throws -> NightDeletionSummary {
        try SQLiteNightRepository(database: database).read { try NightDeletion.chosen(selection, refusing: refusing, in: $0).summary }
    }

    /// Deletes the selected nights (`NightDeletion.delete`), then checkpoints and vacuums the files so no deleted byte
    /// stays in the database, its WAL or free pages.
    public func deleteNights(_ selection: NightSelection, surface: String, refusing: NightDeletionCheck, clock: StoreClock) throws
        -> NightDeletionSummary
    {
        let summary = try SQLiteNightRepository(database: database).write {
            try NightDeletion.delete(selection, surface: surface, refusing: refusing, clock: clock, in: $0)
        }
        try database.scrubFiles()
        return summary
    }
}
