import DoseCore
import Foundation
import PostgresNIO

/// Clear All Data for one person of a shared store, in PostgreSQL's own statements and one transaction under the
/// person's lock: every table the file clears, narrowed to the person's rows. The service's own tables (its keys and
/// run log, everyone's) are never touched, nor is anything of another person's.
extension PostgresStore {
    /// Deletes every record of `person`, after the exact confirmation phrase, and proves none is left.
    public func clearAll(of person: String, confirmation: String) throws -> ClearReport {
        try AppDatabase.checkClearAllPhrase(confirmation)
        return try transaction(writingFor: person) { session in
            let scopes = try Self.personScopes(of: AppDatabase.dataTables, session)
            var binds = PostgresBindings()
            binds.append(person)
            var deleted: [String: Int] = [:]
            var remaining: [String: Int] = [:]
            for table in AppDatabase.dataTables {
                guard let rows = scopes[table] else {
                    (deleted[table], remaining[table]) = (0, 0)
                    continue
                }
                deleted[table] =
                    try session.rows(
                        PostgresQuery(
                            unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE \(rows) RETURNING 1) SELECT count(*)::int FROM gone", binds: binds)
                    ).first?.decode(Int.self) ?? 0
            }
            for table in AppDatabase.dataTables where scopes[table] != nil {
                remaining[table] =
                    try session.rows(
                        PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table) WHERE \(scopes[table] ?? "FALSE")", binds: binds)
                    ).first?.decode(Int.self) ?? 0
            }
            return ClearReport(deleted: deleted, remaining: remaining)
        }
    }

    /// The condition that picks `$1`'s rows of each table, by whether it holds the person's id or only a night's; a
    /// table with neither is the service's, and left out.
    private static func personScopes(of tables: [String], _ session: PostgresSession) throws -> [String: String] {
        var binds = PostgresBindings()
        binds.append(tables)
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT c.relname::text, bool_or(a.attname = 'person_id'), bool_or(a.attname = 'session_id')
                    FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
                    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname = ANY($1::text[])
                        AND a.attnum > 0 AND NOT a.attisdropped
                    GROUP BY c.relname
                    """, binds: binds))
        var scopes: [String: String] = [:]
        for row in rows {
            let (table, person, night) = try row.decode((String, Bool, Bool).self)
            if person {
                scopes[table] = "person_id = $1"
            } else if night {
                scopes[table] = "session_id IN (SELECT id FROM sleep_sessions WHERE person_id = $1)"
            }
        }
        return scopes
    }
}
