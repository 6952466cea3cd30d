public import DoseCore
import PostgresNIO

extension PostgresStore {
    /// A page of history. PostgreSQL counts the nights the query matches and chooses the page's, in the SQL the file
    /// uses; the SQLite store's code makes the page from a copy of only those nights, taken in the same snapshot.
    public func historyPage(of person: String, _ query: HistoryQuery) throws -> HistoryPage {
        let query = try query.validated()
        let choose = { (session: PostgresSession) -> (NightsRead?, HistoryPageNights) in
            let nights = try Self.pageNights(of: person, query, session)
            return (.ids(nights.ids), nights)
        }
        return try PostgresWorkspace(store: self, person: person).read(only: HistoryStore.recordTables, choosing: choose) { database, nights in
            try database.history.page(query, of: nights)
        }
    }

    /// Calls `body` with every night dated `from` through `to`, oldest first, with all events: in one snapshot, `chunk`
    /// nights (a year) copied at a time, so ten years of events never sit in memory at once (the report's table).
    public func forEachNight(
        of person: String, from: SessionKey, to: SessionKey, chunksOf chunk: Int = 366, _ body: (NightRecord) throws -> Void
    ) throws {
        let ids = { (session: PostgresSession) in
            var binds = PostgresBindings()
            binds.append(person)
            binds.append(from.description)
            binds.append(to.description)
            let sql = """
                SELECT id FROM sleep_sessions WHERE person_id = $1 AND session_date BETWEEN $2::date AND $3::date
                ORDER BY session_date, started_at, id COLLATE "C"
                """
            return try session.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map { try $0.decode(String.self) }
        }
        try PostgresWorkspace(store: self, person: person).readEach(only: HistoryStore.recordTables, chunksOf: chunk, ids: ids) { database in
            try database.history.forEachNight(from: from, to: to, body)
        }
    }

    private static func pageNights(of person: String, _ query: HistoryQuery, _ session: PostgresSession) throws -> HistoryPageNights {
        let matching = HistoryStore.matching(query, date: "?::date")
        var binds = PostgresBindings()
        binds.append(person)
        for argument in matching.arguments { binds.append(argument) }
        let limit = matching.arguments.count + 2
        binds.append(query.limit)
        binds.append((query.page - 1) * query.limit)
        // Ids compare byte by byte, as SQLite's BINARY collation compares them, whatever the database's collation.
        let order = HistoryStore.order(query, id: "s.id COLLATE \"C\"")
        let sql = """
            WITH matching AS (SELECT s.id, s.session_date, s.started_at FROM sleep_sessions AS s WHERE s.person_id = $1 AND
            \(numbered(matching.sql, from: 2))),
            page AS (SELECT s.id, row_number() OVER (ORDER BY \(order)) AS n FROM matching AS s ORDER BY \(order) LIMIT $\(limit)
            OFFSET $\(limit + 1))
            SELECT (SELECT count(*) FROM matching), coalesce((SELECT array_agg(id ORDER BY n) FROM page), '{}')
            """
        guard let row = try session.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).first else { return HistoryPageNights(total: 0, ids: []) }
        let (total, ids) = try row.decode((Int, [String]).self)
        return HistoryPageNights(total: total, ids: ids)
    }

    /// `sql` with each `?` (SQLite's parameter) numbered as PostgreSQL's, `$first` onward.
    private static func numbered(_ sql: String, from first: Int) -> String {
        var number = first - 1
        return sql.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { index, part in
            guard index > 0 else { return String(part) }
            number += 1
            return "$\(number)" + part
        }.joined()
    }
}
