public import DoseCore

/// The nights a read of past nights looks at. SQLite reads them in place; a PostgreSQL workspace copies only the rows
/// of these nights from the tables that hold one row per night or per event (and every other table whole), so a page
/// of history or a month of insights does not load ten years.
public enum NightsRead: Sendable {
    /// Every night dated `from` through `to`.
    case dated(from: SessionKey, to: SessionKey)
    /// The nights of one page of history. Only for a query without event filters: with them, which nights make the page
    /// depends on every night's events.
    case page(HistoryQuery)

    /// The nights a history query's page needs: its page, or every night when it filters by events.
    public static func history(_ query: HistoryQuery) -> NightsRead? {
        query.types.isEmpty && query.categories.isEmpty ? .page(query) : nil
    }
}
