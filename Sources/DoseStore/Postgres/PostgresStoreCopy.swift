import DoseCore
import Foundation
import PostgresNIO

/// A whole shared store copied into another PostgreSQL store in PostgreSQL's own terms (SPEC §5.6): every person, their
/// records, their shares and invitations, and the service's own rows and counters.
///
/// The source is read in one snapshot. The target is filled in one transaction and read back in it before it commits, so
/// a copy that does not match is rolled back and leaves the target as empty as it was. Row-level security holds
/// throughout: each person's rows are read and written under that person's scope, whoever runs the copy.
extension PostgresStore {
    /// A table as the copy reaches it, parents before children.
    struct CopiedTable: Sendable, Equatable {
        /// How the table's rows are found under row-level security.
        enum Reach: Sendable, Equatable {
            /// The directory of people, which has no policy.
            case directory
            /// The service's own rows (keys, runs, failed sign-ins by address): no person's, no policy.
            case service
            /// Rows that carry their person in `person_id`.
            case person
            /// Rows of a night (`session_id`), and so of the night's person.
            case night
        }

        var name: String
        var reach: Reach

        /// A person's rows of this table (`$1`, the person), or every row of a table that is no one's.
        var rowsQuery: String {
            let select = "SELECT row_to_json(t)::text AS j FROM \"\(name)\" AS t"
            let condition: String =
                switch reach {
                case .directory, .service: ""
                case .person: " WHERE t.person_id = $1"
                case .night: " WHERE t.session_id IN (SELECT s.id FROM sleep_sessions AS s WHERE s.person_id = $1)"
                }
            // Ordered by the row's text in byte order, so both stores list the same rows alike whatever their collation.
            return "SELECT j FROM (\(select)\(condition)) AS r ORDER BY j COLLATE \"C\""
        }
    }

    /// Every table of the store but the migrations' ledger, each after the tables it refers to.
    static func copiedTables(_ session: PostgresSession) throws -> [CopiedTable] {
        let rows = try session.rows(
            """
            SELECT c.relname::text,
                coalesce(array_agg(DISTINCT r.relname::text) FILTER (WHERE r.oid IS NOT NULL AND r.oid <> c.oid), '{}'),
                EXISTS (SELECT 1 FROM pg_attribute AS a WHERE a.attrelid = c.oid AND a.attname = 'person_id' AND NOT a.attisdropped),
                EXISTS (SELECT 1 FROM pg_attribute AS a WHERE a.attrelid = c.oid AND a.attname = 'session_id' AND NOT a.attisdropped)
            FROM pg_class AS c
            LEFT JOIN pg_constraint AS k ON k.conrelid = c.oid AND k.contype = 'f'
            LEFT JOIN pg_class AS r ON r.oid = k.confrelid
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> 'dosetap_migrations'
            GROUP BY c.oid, c.relname ORDER BY c.relname
            """
        ).map { try $0.decode((String, [String], Bool, Bool).self) }
        var parents: [String: Set<String>] = [:]
        var reach: [String: CopiedTable.Reach] = [:]
        for (name, references, byPerson, byNight) in rows {
            parents[name] = Set(references)
            reach[name] = name == "people" ? .directory : byPerson ? .person : byNight ? .night : .service
        }
        var ordered: [CopiedTable] = []
        var placed: Set<String> = []
        while placed.count < parents.count {
            let ready = parents.keys.sorted().filter { !placed.contains($0) && parents[$0]!.isSubset(of: placed) }
            guard !ready.isEmpty else {
                throw PostgresFailure(state: "DT003", message: "the store's tables refer to each other in a circle; they cannot be copied in order")
            }
            for name in ready {
                ordered.append(CopiedTable(name: name, reach: reach[name]!))
                placed.insert(name)
            }
        }
        return ordered
    }

    /// Copies every row of this store into `target`, which must hold no person and no row of the service's, and returns
    /// each table's rows and digest as both stores hold them.
    public func copyEverything(to target: PostgresStore) throws -> [String: StoreContents.TableDigest] {
        let copied = try transaction(readOnly: true) { source in
            let tables = try Self.copiedTables(source)
            let people = try source.rows("SELECT id FROM people ORDER BY id").map { try $0.decode(String.self) }
            let counters = try Self.counters(source)
            return try target.transaction { session in
                let found = try Self.copiedTables(session)
                guard Set(found.map(\.name)) == Set(tables.map(\.name)) else {
                    throw DoseError.invalidInput(
                        field: "--to", problem: "\(target.location.redacted) has other tables than the source; both must be this release's",
                        allowed: "a store this dosetap made or migrated")
                }
                for table in tables where table.reach == .directory || table.reach == .service {
                    guard try session.rows(PostgresQuery(unsafeSQL: "SELECT 1 FROM \"\(table.name)\" LIMIT 1")).isEmpty else {
                        throw DoseError.invalidInput(
                            field: "--to", problem: "\(target.location.redacted) already holds records (\(table.name))", allowed: "an empty store")
                    }
                }
                var written: [String: StoreContents.TableDigest] = [:]
                var directory: [String] = []
                for table in tables {
                    var digest = StoreContents.TableHash()
                    for person in Self.owners(of: table, people) {
                        try Self.scope(to: person, source)
                        let rows = try Self.rows(of: table, person: person, source)
                        try Self.scope(to: person, session)
                        for batch in stride(from: 0, to: rows.count, by: Self.copyBatch) {
                            var binds = PostgresBindings()
                            binds.append(Array(rows[batch..<min(batch + Self.copyBatch, rows.count)]))
                            try session.execute(
                                PostgresQuery(
                                    unsafeSQL: """
                                        INSERT INTO "\(table.name)" SELECT (json_populate_record(NULL::"\(table.name)", j::json)).*
                                        FROM unnest($1::text[]) AS j
                                        """, binds: binds))
                        }
                        for row in rows { digest.add(row: [row]) }
                        if table.reach == .directory { directory = rows }
                    }
                    written[table.name] = digest.finished
                }
                try Self.rewrite(directory, session)
                for (sequence, counter) in counters {
                    try session.execute(PostgresQuery(unsafeSQL: "SELECT setval('\"\(sequence)\"', \(counter.last), \(counter.called))"))
                }
                // Read back before it commits: a row that did not come through whole rolls the whole copy back.
                let readBack = try Self.digests(of: tables, people: people, session)
                let differing = tables.map(\.name).filter { readBack[$0] != written[$0] }
                guard differing.isEmpty, try Self.counters(session) == counters else {
                    throw DoseError.invalidFile(
                        problem: "the copy in \(target.location.redacted) did not match the source (\(differing.joined(separator: ", "))); "
                            + "it was rolled back, and nothing was copied")
                }
                return written
            }
        }
        try target.analyze()
        return copied
    }

    /// Writes the people's rows once more as the source has them: the triggers that version a person's nights
    /// (`night_version`) moved them on as their nights arrived.
    private static func rewrite(_ people: [String], _ session: PostgresSession) throws {
        let columns = try session.rows(
            """
            SELECT a.attname::text FROM pg_attribute AS a
            WHERE a.attrelid = 'people'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """
        ).map { "\"\(try $0.decode(String.self))\"" }.joined(separator: ", ")
        var binds = PostgresBindings()
        binds.append(people)
        try session.execute(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE people AS p SET (\(columns)) = (SELECT \(columns) FROM json_populate_record(NULL::people, j::json))
                    FROM unnest($1::text[]) AS j WHERE p.id = j::json->>'id'
                    """, binds: binds))
    }

    /// Each table's rows and digest as this store holds them now, read in one snapshot: what a copy of it must match.
    public func digestsOfEverything() throws -> [String: StoreContents.TableDigest] {
        try transaction(readOnly: true) { session in
            let people = try session.rows("SELECT id FROM people ORDER BY id").map { try $0.decode(String.self) }
            return try Self.digests(of: try Self.copiedTables(session), people: people, session)
        }
    }

    /// Fresh statistics for the planner: a store just filled from nothing would otherwise be read with plans made for
    /// empty tables (a page of history scanned every event of ten years) until autovacuum came round.
    func analyze() throws {
        let tables = try withConnection { session in try Self.copiedTables(session) }.map { "\"\($0.name)\"" }.joined(separator: ", ")
        try withConnection { session in try session.execute(PostgresQuery(unsafeSQL: "ANALYZE \(tables)")) }
    }

    /// Rows sent in one statement.
    static let copyBatch = 2_000

    /// The people whose rows of `table` are read one after another: every person for a person's table, else one pass
    /// with no person named.
    private static func owners(of table: CopiedTable, _ people: [String]) -> [String?] {
        table.reach == .person || table.reach == .night ? people : [nil]
    }

    /// Names the person whose rows the statements that follow may see (`nil`: no one's), for the rest of the transaction
    /// or until named again.
    /// A person's rows, or with none the service's own: its queues (the scheduler's scope) and the operators' audit (the
    /// operator's), which a copy of the whole store carries too.
    private static func scope(to person: String?, _ session: PostgresSession) throws {
        let service = person == nil ? "on" : ""
        try session.execute(
            """
            SELECT set_config('dosetap.person', \(person ?? ""), true), set_config('dosetap.scheduler', \(service), true),
                set_config('dosetap.operator', \(service), true)
            """)
    }

    private static func rows(of table: CopiedTable, person: String?, _ session: PostgresSession) throws -> [String] {
        var binds = PostgresBindings()
        if let person { binds.append(person) }
        return try session.rows(PostgresQuery(unsafeSQL: table.rowsQuery, binds: binds)).map { try $0.decode(String.self) }
    }

    private static func digests(of tables: [CopiedTable], people: [String], _ session: PostgresSession) throws -> [String: StoreContents.TableDigest]
    {
        var result: [String: StoreContents.TableDigest] = [:]
        for table in tables {
            var digest = StoreContents.TableHash()
            for person in owners(of: table, people) {
                try scope(to: person, session)
                for row in try rows(of: table, person: person, session) { digest.add(row: [row]) }
            }
            result[table.name] = digest.finished
        }
        try scope(to: nil, session)
        return result
    }

    /// Every sequence of the store (the audit's ids, the nights' versions) and where it stands, so a copy numbers on
    /// from where the source had reached.
    private static func counters(_ session: PostgresSession) throws -> [String: Counter] {
        let names = try session.rows(
            "SELECT c.relname::text FROM pg_class AS c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'S' ORDER BY 1"
        ).map { try $0.decode(String.self) }
        var result: [String: Counter] = [:]
        for name in names {
            let (last, called) = try session.rows(PostgresQuery(unsafeSQL: "SELECT last_value, is_called FROM \"\(name)\""))[0].decode(
                (Int64, Bool).self)
            result[name] = Counter(last: last, called: called)
        }
        return result
    }

    /// Where a sequence stands: its last value, and whether that value was handed out.
    private struct Counter: Equatable {
        var last: Int64
        var called: Bool
    }
}
