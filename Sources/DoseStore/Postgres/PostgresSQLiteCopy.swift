import DoseCore
import Foundation
import GRDB
import NIOConcurrencyHelpers
import PostgresNIO

/// One person's records in PostgreSQL as an SQLite database, for the one place SQLite is the format itself: `store copy`
/// to or from a file (and the support bundle's raw database, which is that file).
///
/// Everything else speaks PostgreSQL itself: the night, history, insights, exports, deletions, Clear All, imports
/// (`PostgresStore.importing`) and the support bundle's records. Here the person's rows are loaded into a private
/// in-memory SQLite database (`snapshot`), or a file's records are written in through one (`run`): the work runs on
/// the copy, and every row it inserted, changed or removed (recorded by temporary triggers as it works) is written
/// back in one transaction under the person's lock, so a failure keeps nothing.
struct PostgresSQLiteCopy {
    let store: PostgresStore
    let person: String

    /// Runs `work` on a copy of the person's records and writes back what it changed, in one transaction. With `only`,
    /// just those tables are copied (the rest are empty in the copy): for small, frequent work that names what it reads.
    func run<T>(only: Set<String>? = nil, _ work: (AppDatabase) throws -> T) throws -> T {
        let tables = try tables(only: only)
        return try store.transaction(writingFor: person) { session in
            let copy = try AppDatabase.migratedQueue()
            try load(tables, from: session, into: copy)
            try Self.trackChanges(tables, in: copy)
            let result = try work(AppDatabase(sqliteCopy: copy, imports: store.imports))
            try writeBack(tables, from: copy, to: session)
            return result
        }
    }

    /// The tables `only` names, or without it every table of the person's. The service's own tables (its keys and run
    /// log, everyone's) come only when named: work on all of one person's records, Clear All Data above all, must
    /// never delete or rewrite what every other person's links, pushes and outage notes rely on.
    private func tables(only: Set<String>?) throws -> [StoredTable] {
        try store.storedTables().filter { table in only.map { $0.contains(table.name) } ?? (table.scope != .service) }
    }

    /// Reads the person's records into a fresh in-memory SQLite database: the copy `store copy` compares and fills.
    func snapshot() throws -> DatabaseQueue {
        let tables = try store.storedTables()
        return try store.transaction(readOnly: true, seeing: .person(person)) { session in
            let copy = try AppDatabase.migratedQueue()
            try load(tables, from: session, into: copy)
            return copy
        }
    }

    /// Copies the person's rows of every table into `copy`, as the SQLite store keeps them (instants as fixed-width UTC
    /// text, dates as text, flags as 0 and 1; SQLite's column affinity turns numbers back into numbers). One round trip
    /// brings every table as a JSON array of rows, and SQLite's `json_each` inserts each table in one statement, so no
    /// row passes through Swift.
    private func load(_ tables: [StoredTable], from session: PostgresSession, into copy: DatabaseQueue) throws {
        guard !tables.isEmpty else { return }
        store.sqliteCopies.withLockedValue { $0 += 1 }
        var binds = PostgresBindings()
        binds.append(person)
        let query = "SELECT " + tables.map(\.selectJSON).joined(separator: ", ")
        guard let row = try session.rows(PostgresQuery(unsafeSQL: query, binds: binds)).first else { return }
        let arrays = try row.map { try $0.decode(String.self) }
        try copy.writeWithoutTransaction { db in
            // Rows arrive table by table; their keys were checked where they were written.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                for (table, rows) in zip(tables, arrays) where rows != "[]" {
                    try db.execute(sql: table.insertFromJSONSQL, arguments: [rows])
                }
                return .commit
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    /// Records the key of every row the work inserts, updates or deletes (SQLite's own cascades and replacements too).
    private static func trackChanges(_ tables: [StoredTable], in copy: DatabaseQueue) throws {
        try copy.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA recursive_triggers = ON")
            try db.execute(sql: "CREATE TEMP TABLE dosetap_changed (tbl TEXT NOT NULL, k1, k2, k3)")
            for table in tables {
                func keys(_ row: String) -> String {
                    (0..<3).map { $0 < table.key.count ? "\(row).\(table.key[$0].sqlIdentifier)" : "NULL" }.joined(separator: ", ")
                }
                let record = { (row: String) in "INSERT INTO dosetap_changed VALUES ('\(table.name)', \(keys(row)));" }
                try db.execute(
                    sql: """
                        CREATE TEMP TRIGGER \("changed_insert_" + table.name) AFTER INSERT ON main.\(table.name.sqlIdentifier) BEGIN
                        \(record("NEW")) END;
                        CREATE TEMP TRIGGER \("changed_update_" + table.name) AFTER UPDATE ON main.\(table.name.sqlIdentifier) BEGIN
                        \(record("OLD")) \(record("NEW")) END;
                        CREATE TEMP TRIGGER \("changed_delete_" + table.name) AFTER DELETE ON main.\(table.name.sqlIdentifier) BEGIN
                        \(record("OLD")) END;
                        """)
            }
        }
    }

    /// Writes what the work changed: removals children first, then changed rows and new rows parents first.
    private func writeBack(_ tables: [StoredTable], from copy: DatabaseQueue, to session: PostgresSession) throws {
        let changed = try copy.read { db in try tables.compactMap { try changes(of: $0, db) } }
        guard !changed.isEmpty else { return }
        for change in changed.reversed() where !change.removed.isEmpty {
            try session.execute(PostgresQuery(unsafeSQL: change.table.deleteSQL, binds: try binds(change.removed)))
        }
        for change in changed where !change.present.isEmpty {
            let rows = try binds(change.present)
            if let update = change.table.updateSQL { try session.execute(PostgresQuery(unsafeSQL: update, binds: rows)) }
            try session.execute(PostgresQuery(unsafeSQL: change.table.insertMissingSQL, binds: rows))
        }
    }

    /// One table's changed rows as they are now, and the keys of those that are gone.
    struct TableChange {
        var table: StoredTable
        var present: [[String: String?]] = []
        var removed: [[String: String?]] = []
    }

    private func changes(of table: StoredTable, _ db: Database) throws -> TableChange? {
        let join = table.key.enumerated().map { "t.\($1.sqlIdentifier) IS c.k\($0 + 1)" }.joined(separator: " AND ")
        let keys = (1...3).map { "k\($0)" }.joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT t.\(table.key[0].sqlIdentifier) IS NULL AS dosetap_gone, \(keys), t.*
                FROM (SELECT DISTINCT \(keys) FROM temp.dosetap_changed WHERE tbl = ?) AS c LEFT JOIN main.\(table.name.sqlIdentifier) AS t ON \(join)
                """, arguments: [table.name])
        guard !rows.isEmpty else { return nil }
        var change = TableChange(table: table)
        for row in rows {
            var values: [String: String?] = table.scope == .person ? ["person_id": person] : [:]
            if row["dosetap_gone"] as Bool {
                for (index, column) in table.key.enumerated() { values[column] = Self.text(row["k\(index + 1)"]) }
                change.removed.append(values)
            } else {
                for column in table.columns { values[column] = Self.text(row[column]) }
                change.present.append(values)
            }
        }
        return change
    }

    /// A value as the text PostgreSQL's input for the column's type reads (numbers in their shortest exact form).
    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let integer): String(integer)
        case .double(let double): "\(double)"
        case .string(let string): string
        case .blob(let data): data.base64EncodedString()
        }
    }

    /// The rows as one JSON array, then the person: what `json_populate_recordset` and the scope read.
    private func binds(_ rows: [[String: String?]]) throws -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(String(decoding: try JSONEncoder().encode(rows), as: UTF8.self))
        binds.append(person)
        return binds
    }
}

/// One table as both stores have it: SQLite's columns and key, PostgreSQL's type of each column, and whose rows it holds.
struct StoredTable: Sendable {
    /// Whose rows a table holds, and so how a person's are found.
    enum Scope: Sendable {
        /// Rows carry `person_id`.
        case person
        /// Rows belong to a night (`session_id`), and through it to a person.
        case night
        /// The service's own rows (its keys and runs): the same for every person.
        case service
    }

    var name: String
    var columns: [String]
    var key: [String]
    /// PostgreSQL's type of each column, as `format_type` names it.
    var types: [String: String]
    var scope: Scope

    /// The person's rows as one JSON array of arrays, every value as text in the SQLite store's form (`$1`, the person,
    /// unused by the service's tables).
    var selectJSON: String {
        let expressions = columns.map { "\(PostgresStore.asSQLiteKeepsIt($0, type: types[$0] ?? "text"))::text" }
        return
            "(SELECT coalesce(json_agg(json_build_array(\(expressions.joined(separator: ", ")))), '[]')::text FROM "
            + "\(name.sqlIdentifier) WHERE \(scope == .service ? "$1::text IS NOT NULL" : personsRows))"
    }

    /// The condition that picks the person's (`$1`) rows: by `person_id`, or by the night they belong to. A service
    /// table has no person's rows.
    var personsRows: String {
        switch scope {
        case .person: "person_id = $1"
        case .night: "session_id IN (SELECT id FROM sleep_sessions WHERE person_id = $1)"
        case .service: "FALSE AND $1::text IS NOT NULL"
        }
    }

    /// The SQLite statement that puts the rows of one such JSON array (`?`) into the copy.
    var insertFromJSONSQL: String {
        let values = columns.indices.map { "json_extract(value, '$[\($0)]')" }.joined(separator: ", ")
        return "INSERT INTO \(name.sqlIdentifier) (\(columns.map(\.sqlIdentifier).joined(separator: ", "))) SELECT \(values) FROM json_each(?)"
    }

    /// The rows of `$1` (a JSON array) as records of this table, and how a stored row matches one of them.
    private var rows: String { "json_populate_recordset(NULL::\(name.sqlIdentifier), $1::json) AS r" }
    private func matching(_ row: String) -> String {
        let keys = key.map { "\(row).\($0.sqlIdentifier) = r.\($0.sqlIdentifier)" }
        return (keys + (scope == .person ? ["\(row).person_id = $2"] : [])).joined(separator: " AND ")
    }
    /// Every statement is sent the person as `$2`; one that does not scope by it still names it, so its type is known.
    private var personUnused: String { scope == .person ? "" : " AND $2::text IS NOT NULL" }

    /// Removes the stored rows whose keys are in `$1`.
    var deleteSQL: String { "DELETE FROM \(name.sqlIdentifier) AS t USING \(rows) WHERE \(matching("t"))\(personUnused)" }

    /// Rewrites the stored rows that are in `$1`; nil when every column is in the key.
    var updateSQL: String? {
        let others = columns.filter { !key.contains($0) }
        guard !others.isEmpty else { return nil }
        let assignments = others.map { "\($0.sqlIdentifier) = r.\($0.sqlIdentifier)" }.joined(separator: ", ")
        return "UPDATE \(name.sqlIdentifier) AS t SET \(assignments) FROM \(rows) WHERE \(matching("t"))\(personUnused)"
    }

    /// Adds the rows of `$1` not stored yet.
    var insertMissingSQL: String {
        let stored = columns + (scope == .person ? ["person_id"] : [])
        return """
            INSERT INTO \(name.sqlIdentifier) (\(stored.map(\.sqlIdentifier).joined(separator: ", ")))
            SELECT \(stored.map { "r." + $0.sqlIdentifier }.joined(separator: ", "))
            FROM \(rows) WHERE NOT EXISTS (SELECT 1 FROM \(name.sqlIdentifier) AS t WHERE \(matching("t")))\(personUnused)
            """
    }
}

extension PostgresStore {
    /// Runs work written for the SQLite store on `person`'s records (`PostgresSQLiteCopy`), all tables or `only` these.
    func onRecords<T>(of person: String, only: Set<String>? = nil, _ work: (AppDatabase) throws -> T) throws -> T {
        try PostgresSQLiteCopy(store: self, person: person).run(only: only, work)
    }

    /// The name of every table a copy into SQLite can hold, the service's own included: for work that must carry them all
    /// (`store copy` filling a store from a SQLite file, with its link and push keys).
    func everyTableName() throws -> Set<String> { Set(try storedTables().map(\.name)) }

    /// Every table the SQLite store has, parents first, matched with PostgreSQL's: read once per store. A table or column
    /// SQLite has and PostgreSQL lacks is a schema out of step, refused rather than silently dropped.
    func storedTables() throws -> [StoredTable] {
        if let known = tables.withLockedValue({ $0 }) { return known }
        let sqlite = try AppDatabase.migratedQueue().read { db in
            try AppDatabase.dataTables.reversed().map { try TableLayout($0, db) }
        }
        let types = try transaction(readOnly: true) { session in
            try session.rows(
                """
                SELECT c.relname::text, a.attname::text, format_type(a.atttypid, NULL) FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
                """
            ).map { try $0.decode((String, String, String).self) }
        }
        var byTable: [String: [String: String]] = [:]
        for (table, column, type) in types { byTable[table, default: [:]][column] = type }
        let result = try sqlite.map { layout -> StoredTable in
            guard let pg = byTable[layout.name], layout.columns.allSatisfy({ pg[$0] != nil }), !layout.key.isEmpty, layout.key.count <= 3 else {
                throw PostgresFailure(
                    state: "DT001", message: "PostgreSQL's \(layout.name) does not match the SQLite store's; the migrations are out of step")
            }
            let scope: StoredTable.Scope = pg["person_id"] != nil ? .person : pg["session_id"] != nil ? .night : .service
            return StoredTable(name: layout.name, columns: layout.columns, key: layout.key, types: pg, scope: scope)
        }
        tables.withLockedValue { $0 = result }
        return result
    }
}
