import DoseCore
import PostgresNIO

extension PostgresStore {
    /// events.csv of `person`, read straight from PostgreSQL in one snapshot: the SQLite store's `everyEventSQL` in
    /// PostgreSQL's words (instants as the same fixed-width UTC text, ties ordered by byte as SQLite's BINARY collation
    /// does), each line made by the one function both stores share, so the file is the same to the byte.
    public func eventsCSV(of person: String) throws -> String {
        try transaction(readOnly: true) { session in
            var out = CSV.row(DataTransfer.eventsCSVHeader.split(separator: ",").map(String.init))
            let query: PostgresQuery = """
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
            for row in try session.rows(query) {
                let (id, type, source, at, zone, metadata, note) = try row.decode((String, String, String, String, String?, String?, String?).self)
                out += DataTransfer.eventsCSVLine(
                    DataTransfer.EventRow(id: id, type: type, source: source, occurredAt: at, timeZone: zone, metadata: metadata, note: note))
            }
            return out
        }
    }
}
