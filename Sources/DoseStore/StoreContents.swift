import Crypto
import DoseCore
import Foundation
import GRDB
import PostgresNIO

/// Every record of one store (a SQLite file, or one person on PostgreSQL), held in memory in the SQLite store's form:
/// what `dosetap store copy` reads from its source, writes to its target, and compares.
public struct StoreContents: Sendable {
    let copy: AppDatabase

    /// One table's rows and a SHA-256 of them in key order, each value with its type.
    public struct TableDigest: Sendable, Hashable {
        public var rows: Int
        public var sha256: String
    }

    /// The digest of every table that holds records.
    public func digests() throws -> [String: TableDigest] {
        try copy.read { db in
            var result: [String: TableDigest] = [:]
            for table in AppDatabase.dataTables {
                let key = try TableLayout(table, db).key.map(\.sqlIdentifier)
                var digest = TableHash()
                let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(table) ORDER BY \(key.joined(separator: ", "))")
                while let row = try cursor.next() { digest.add(row: row.databaseValues.map(Self.typedText)) }
                result[table] = digest.finished
            }
            return result
        }
    }

    /// A table's rows counted, and hashed in order: each row its parts, then a newline.
    struct TableHash {
        private var hash = SHA256()
        private var count = 0

        mutating func add(row parts: some Sequence<String>) {
            for part in parts { hash.update(data: Data(part.utf8)) }
            hash.update(data: Data([0x0A]))
            count += 1
        }

        var finished: TableDigest { TableDigest(rows: count, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined()) }
    }

    /// Writes these records as a SQLite file at `path`, owner-only (SQLite's online backup).
    public func write(to path: String) throws { try copy.transfer.copyDatabase(to: path) }

    /// How many rows there are in all.
    public func rowCount() throws -> Int { try digests().values.reduce(0) { $0 + $1.rows } }

    /// A value with its storage class, so 1, 1.0 and "1" differ, and a separator no text can forge (its length first).
    private static func typedText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "n;"
        case .int64(let integer): "i\(integer);"
        case .double(let double): "r\(double.bitPattern);"
        case .string(let string): "t\(string.utf8.count):\(string)"
        case .blob(let data): "b\(data.count):\(data.base64EncodedString())"
        }
    }

    /// Copies every row into `target`, a migrated database whose tables are empty, parents first: of every table, or
    /// `only` these.
    func insert(into target: Database, only: Set<String>? = nil) throws {
        try copy.read { source in
            for table in AppDatabase.dataTables.reversed() where only?.contains(table) ?? true {
                let columns = try TableLayout(table, source).columns.map(\.sqlIdentifier)
                let insert = try target.makeStatement(
                    sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
                let cursor = try Row.fetchCursor(source, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")
                while let row = try cursor.next() { try insert.execute(arguments: StatementArguments(row.databaseValues)) }
            }
        }
    }
}

extension AppDatabase {
    /// Every record of this database, copied into memory.
    public func contents() throws -> StoreContents { StoreContents(copy: try inMemoryCopy()) }

    /// Whether no table holds a record (a new database, or one cleared).
    public func holdsNoRecords() throws -> Bool { try contents().rowCount() == 0 }

    /// Fills this database, which must hold no records, with `contents` in one transaction: all of it or nothing.
    public func fill(with contents: StoreContents) throws {
        guard try holdsNoRecords() else {
            throw DoseError.invalidInput(field: "--to", problem: "\(path ?? "the database") already holds records", allowed: "an empty store")
        }
        try write { db in try contents.insert(into: db) }
    }

    /// Deletes every record, leaving an empty database (what a failed copy leaves behind).
    public func removeAllRecords() throws {
        try write { db in
            for table in Self.dataTables { try db.execute(sql: "DELETE FROM \(table)") }
        }
        try scrubFiles()
    }
}

extension PostgresStore {
    /// Every record of `person`, copied into memory in the SQLite store's form, with the service's own rows (link and
    /// push keys, runs), which a SQLite file holds beside its one person's.
    public func contents(of person: String) throws -> StoreContents {
        StoreContents(copy: AppDatabase(sqliteCopy: try PostgresSQLiteCopy(store: self, person: person).snapshot(), imports: imports))
    }

    /// Fills `person`'s records, which must be empty, with `contents` in one transaction: all of it or nothing. The
    /// service's own rows come too only `withService`: a store that already serves others keeps its own keys.
    public func fill(_ person: String, with contents: StoreContents, withService: Bool) throws {
        let tables = try recordTables(withService: withService)
        do {
            try onRecords(of: person, only: tables) { copy in
                guard try StoreContents(copy: copy).rowCount() == 0 else {
                    throw DoseError.invalidInput(field: "--to", problem: "\(location.redacted) already holds records", allowed: "an empty store")
                }
                try copy.write { db in try contents.insert(into: db, only: tables) }
            }
        } catch DoseError.storageBusy {
            // A key every person shares (a night's id) that is taken whenever the fill runs again: these records are here
            // already, under someone else (row-level security does not let the fill see whose).
            throw DoseError.invalidInput(
                field: "--from",
                problem: "some of its records are in \(location.redacted) already, under another person, so they cannot come in again",
                allowed: "records this store does not hold yet")
        }
        try analyze()
    }

    /// The tables a person's records fill: every table, or those of people only.
    private func recordTables(withService: Bool) throws -> Set<String> {
        withService ? try everyTableName() : try everyTableName().subtracting(try serviceTableNames())
    }

    /// The tables that hold the service's own rows rather than any person's.
    public func serviceTableNames() throws -> Set<String> { Set(try storedTables().filter { $0.scope == .service }.map(\.name)) }

    /// Deletes every record of `person`, and the service's own rows `withService` (what a failed copy leaves behind).
    public func removeAllRecords(of person: String, withService: Bool) throws {
        let tables = try recordTables(withService: withService)
        try onRecords(of: person, only: tables) { copy in
            try copy.write { db in
                for table in AppDatabase.dataTables { try db.execute(sql: "DELETE FROM \(table)") }
            }
        }
    }
}
