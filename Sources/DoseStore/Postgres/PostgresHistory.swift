public import DoseCore
import PostgresNIO

extension PostgresStore {
    /// A page of history, in PostgreSQL's own statements: it counts the nights the query matches and chooses the page's
    /// in the SQL the file uses, then reads those nights, all in one snapshot.
    public func historyPage(of person: String, _ query: HistoryQuery) throws -> HistoryPage {
        let query = try query.validated()
        return try transaction(readOnly: true, seeing: .person(person)) { session in
            let nights = try Self.pageNights(of: person, query, session)
            let records = try Self.nightRecords(nights.ids, of: person, query: query, vitals: false, session)
            return HistoryStore.page(query, of: nights, records: records)
        }
    }

    /// Every night of `person` with that session date (usually one), with all events and vitals, oldest first.
    public func nights(of person: String, on date: SessionKey) throws -> [NightRecord] {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            let ids = try session.rows(
                "SELECT id FROM sleep_sessions WHERE person_id = \(person) AND session_date = \(date.description)::date ORDER BY started_at"
            ).map { try $0.decode(String.self) }
            return try Self.nightRecords(ids, of: person, query: HistoryQuery(), vitals: true, session)
        }
    }

    /// One night of `person` by its id, with all events and vitals, or nil.
    public func night(of person: String, id: SessionID) throws -> NightRecord? {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try Self.nightRecords([id.rawValue], of: person, query: HistoryQuery(), vitals: true, session).first
        }
    }

    /// Calls `body` with every night dated `from` through `to`, oldest first, with all events: in one snapshot, `chunk`
    /// nights (a year) read at a time, so ten years of events never sit in memory at once (the report's table).
    public func forEachNight(
        of person: String, from: SessionKey, to: SessionKey, chunksOf chunk: Int = 366, _ body: (NightRecord) throws -> Void
    ) throws {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            let ids = try session.rows(
                """
                SELECT id FROM sleep_sessions WHERE person_id = \(person) AND session_date BETWEEN \(from.description)::date AND \(to.description)::date
                ORDER BY session_date, started_at, id COLLATE "C"
                """
            ).map { try $0.decode(String.self) }
            var query = HistoryQuery()
            query.sort = .oldest
            for start in stride(from: 0, to: ids.count, by: max(1, chunk)) {
                let part = Array(ids[start..<min(ids.count, start + max(1, chunk))])
                for record in try Self.nightRecords(part, of: person, query: query, vitals: false, session) { try body(record) }
            }
        }
    }

    /// The nights of `person` with a Dose 1 dated `from` through `to` (all when nil), oldest first, as the analytics CSV
    /// reads them: the SQLite store's statement in PostgreSQL's words.
    public func dosedNights(of person: String, from: SessionKey?, to: SessionKey?) throws -> [DosedNight] {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows(
                """
                SELECT to_char(session_date, 'YYYY-MM-DD'), dosetap_instant(dose1_at), dosetap_instant(dose2_at), interval_minutes, snooze_count
                FROM sleep_sessions WHERE person_id = \(person) AND dose1_at IS NOT NULL
                    AND session_date >= \((from ?? SessionKey(year: 1, month: 1, day: 1)!).description)::date
                    AND session_date <= \((to ?? SessionKey(year: 9999, month: 12, day: 31)!).description)::date
                ORDER BY session_date, started_at, id COLLATE "C"
                """
            ).map { row in
                let (date, dose1, dose2, interval, snoozes) = try row.decode((String, String, String?, Int?, Int).self)
                return DosedNight(
                    date: date, dose1: NightRecords.instant(dose1), dose2: dose2.map(NightRecords.instant), intervalMinutes: interval,
                    snoozes: snoozes)
            }
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
