import DoseCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// events.csv of `person`, read straight from PostgreSQL in one snapshot: the SQLite store's `everyEventSQL` in
    /// PostgreSQL's words (instants as the same fixed-width UTC text, ties ordered by byte as SQLite's BINARY collation
    /// does), each line made by the one function both stores share, so the file is the same to the byte. Rows come
    /// through a cursor a few thousand at a time, so ten years of them are never held at once beside the file.
    public func eventsCSV(of person: String, rowsPerFetch: Int = 4000) throws -> String {
        var out = ""
        try eventsCSV(of: person, rowsPerFetch: rowsPerFetch) { out += $0 }
        return out
    }

    /// events.csv of `person` a piece at a time (`CSVPieces`), in one snapshot.
    public func eventsCSV(of person: String, rowsPerFetch: Int = 4000, _ write: (String) throws -> Void) throws {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            var pieces = CSVPieces()
            try pieces.add(CSV.row(DataTransfer.eventsCSVHeader.split(separator: ",").map(String.init)), write)
            try Self.forEachEvent(of: person, rowsPerFetch: rowsPerFetch, session) { try pieces.add(DataTransfer.eventsCSVLine($0), write) }
            try pieces.flush(write)
        }
    }

    /// Calls `body` with each row of the SQLite store's `everyEventSQL` in PostgreSQL's words, oldest first (instants as
    /// the same fixed-width UTC text, ties ordered by byte as SQLite's BINARY collation does), through a cursor.
    static func forEachEvent(
        of person: String, rowsPerFetch: Int, _ session: PostgresSession, _ body: (DataTransfer.EventRow) throws -> Void
    ) throws {
        let person = literal(person)
        let select = """
            SELECT * FROM (
                SELECT id, event_type, source, dosetap_instant(occurred_at) AS at, time_zone, metadata, note FROM dose_events
                WHERE person_id = \(person)
                UNION ALL SELECT id, event_type, source, dosetap_instant(occurred_at), time_zone, NULL, note FROM sleep_events
                WHERE person_id = \(person)
                UNION ALL SELECT id, 'undo', 'user', dosetap_instant(at), details::json ->> 'time_zone', NULL,
                    'undid ' || (details::json ->> 'event_type') || ' ' || entity_id || ' of ' || (details::json ->> 'occurred_at')
                FROM audit_log WHERE person_id = \(person) AND action = 'undo'
            ) AS every_event ORDER BY at COLLATE "C", id COLLATE "C"
            """
        try session.forEachRow(throughCursor: select, rowsPerFetch: rowsPerFetch) { row in
            let (id, type, source, at, zone, metadata, note) = try row.decode((String, String, String, String, String?, String?, String?).self)
            try body(DataTransfer.EventRow(id: id, type: type, source: source, occurredAt: at, timeZone: zone, metadata: metadata, note: note))
        }
    }
}

extension PostgresSession {
    /// Calls `body` with each row `select` gives, fetched through a cursor `rowsPerFetch` at a time, so a long table is
    /// never held at once. A cursor's statement takes no parameters (quote values with `PostgresStore.literal`).
    func forEachRow(throughCursor select: String, rowsPerFetch: Int, _ body: (PostgresRow) throws -> Void) throws {
        try execute(PostgresQuery(unsafeSQL: "DECLARE dosetap_rows NO SCROLL CURSOR FOR \(select)"))
        while true {
            let rows = try rows(PostgresQuery(unsafeSQL: "FETCH \(max(1, rowsPerFetch)) FROM dosetap_rows"))
            guard !rows.isEmpty else { break }
            for row in rows { try body(row) }
        }
        try execute("CLOSE dosetap_rows")
    }
}
