public import DoseCore

/// The nights a read of past nights looks at. SQLite reads them in place; a PostgreSQL workspace copies only the rows
/// of these nights from the tables that hold one row per night or per event (and every other table whole), so a page
/// of history or a month of insights does not load ten years.
public enum NightsRead: Sendable {
    /// Every night dated `from` through `to`.
    case dated(from: SessionKey, to: SessionKey)
    /// These nights only (a page of history, chosen in PostgreSQL's own SQL).
    case ids([String])
}
