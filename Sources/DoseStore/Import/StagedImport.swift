import DoseCore
import Foundation
import GRDB
import GRDBSQLite

/// Imports under way in this process, so graceful shutdown can stop them at once (SQLite checks the flag as it works,
/// every thousand steps), leaving the database as it was.
public final class ImportStops: @unchecked Sendable {
    /// One import's stop flag.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }
    }

    private let lock = NSLock()
    private var running: [ObjectIdentifier: Flag] = [:]
    private var closed = false

    init() {}

    /// Stops every import under way, and any that would start later (the process is ending).
    public func stopAll() {
        let flags = lock.withLock {
            closed = true
            return Array(running.values)
        }
        for flag in flags { flag.stop() }
    }

    func begin() -> Flag {
        let flag = Flag()
        lock.withLock {
            running[ObjectIdentifier(flag)] = flag
            if closed { flag.stop() }
        }
        return flag
    }

    func end(_ flag: Flag) { _ = lock.withLock { running.removeValue(forKey: ObjectIdentifier(flag)) } }
}

/// An import run on a private copy of the database, then applied in one short transaction (SPEC §6, issue 32).
///
/// The import itself, however long, holds no lock on the real database: it runs against an in-memory copy
/// (`staged`), beside a second untouched copy (`base`). What it changed is the difference of the two, worked out
/// before the writer is taken. The swap then checks that every row the import changed or added is still as the
/// import found it (another surface may have written meanwhile) and applies the difference in one transaction, so a
/// reader sees all of the import or none of it. A clash runs the import again on a fresh copy.
struct StagedImport {
    let database: AppDatabase

    /// How many times an import is run again after another write clashed with it.
    static let attempts = 3

    /// Runs `work` against a copy and applies what it changed, atomically.
    func run<T>(_ work: (AppDatabase) throws -> T) throws -> T {
        for _ in 1...Self.attempts {
            let flag = database.imports.begin()
            defer { database.imports.end(flag) }
            let name = "dosetap-import-\(UUID().uuidString)"
            let base = try DatabaseQueue(named: name + "-base", configuration: AppDatabase.configuration())
            let staged = try DatabaseQueue(named: name + "-staged", configuration: Self.configuration(stoppedBy: flag))
            do {
                try database.writer.backup(to: base)
                try base.backup(to: staged)
                let result = try work(AppDatabase(staging: staged, stop: flag))
                let changes = try Self.collectChanges(staged, base: name + "-base")
                guard !flag.isStopped else { throw DoseError.importStopped }
                if changes.isEmpty { return result }
                if try apply(changes, staged: name + "-staged", base: name + "-base") { return result }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                throw DoseError.importStopped
            }
        }
        throw DoseError.storageBusy
    }

    /// The staging connection: foreign keys as the real one, and a check of the stop flag every thousand VM steps.
    private static func configuration(stoppedBy flag: ImportStops.Flag) -> Configuration {
        var config = AppDatabase.configuration()
        config.prepareDatabase { db in
            sqlite3_progress_handler(
                db.sqliteConnection, 1_000,
                { context in
                    guard let context else { return 0 }
                    return Unmanaged<ImportStops.Flag>.fromOpaque(context).takeUnretainedValue().isStopped ? 1 : 0
                }, Unmanaged.passUnretained(flag).toOpaque())
        }
        return config
    }

    /// One table's difference: rows the import added, rows it changed, keys of rows it removed.
    struct TableChange {
        var table: String
        var columns: [String]
        var key: [String]
        var inserts: String { "_staged_insert_\(table)" }
        var updates: String { "_staged_update_\(table)" }
        var deletes: String { "_staged_delete_\(table)" }
        var keyList: String { key.map(\.sqlIdentifier).joined(separator: ", ") }
        var columnList: String { columns.map(\.sqlIdentifier).joined(separator: ", ") }
    }

    /// Works out, on the staging connection, what the import changed, into side tables of the staged copy.
    private static func collectChanges(_ staged: DatabaseQueue, base: String) throws -> [TableChange] {
        try staged.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [Self.uri(base)])
            defer { try? db.execute(sql: "DETACH DATABASE base") }
            let tables = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER "
                    + "BY name"
            )
            var changes: [TableChange] = []
            for table in tables {
                let layout = try TableLayout(table, db)
                let (columns, key) = (layout.columns, layout.key)
                guard !key.isEmpty else { throw DoseError.invalidFile(problem: "table \(table) has no primary key to import by") }
                let change = TableChange(table: table, columns: columns, key: key)
                let (name, keys) = (table.sqlIdentifier, change.keyList)
                // Split here, before the writer is taken, so the swap does only what it must: check the few rows
                // that existed before (an insert that clashes fails on its primary key), and write.
                try db.execute(
                    sql: """
                        CREATE TABLE main.\(change.updates.sqlIdentifier) AS SELECT * FROM main.\(name) WHERE (\(keys)) IN (SELECT
                        \(keys) FROM base.\(name))
                        EXCEPT SELECT * FROM base.\(name);
                        CREATE TABLE main.\(change.inserts.sqlIdentifier) AS SELECT * FROM main.\(name) WHERE (\(keys)) NOT IN (SELECT
                        \(keys) FROM base.\(name));
                        CREATE TABLE main.\(change.deletes.sqlIdentifier) AS SELECT \(keys) FROM base.\(name) EXCEPT SELECT \(keys) FROM main.\(name);
                        """)
                let counts = [change.inserts, change.updates, change.deletes].map { "(SELECT count(*) FROM main.\($0.sqlIdentifier))" }
                let count = try Int.fetchOne(db, sql: "SELECT " + counts.joined(separator: " + ")) ?? 0
                if count > 0 { changes.append(change) }
            }
            return changes
        }
    }

    /// Applies the changes in one transaction; false when another write got there first (the import runs again).
    private func apply(_ changes: [TableChange], staged: String, base: String) throws -> Bool {
        do {
            return try database.writer.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS staged", arguments: [Self.uri(staged)])
                defer { try? db.execute(sql: "DETACH DATABASE staged") }
                try db.execute(sql: "ATTACH DATABASE ? AS base", arguments: [Self.uri(base)])
                defer { try? db.execute(sql: "DETACH DATABASE base") }
                var applied = false
                try db.inTransaction(.immediate) {
                    // Rows arrive parents and children in any order; the keys are checked at commit.
                    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                    for change in changes where try Self.clashes(change, db) {
                        return .rollback
                    }
                    for change in changes { try Self.write(change, db) }
                    applied = true
                    return .commit
                }
                return applied
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // Another surface added what the import would add (tonight's open night, a check-in): run it again.
            return false
        } catch {
            throw StoreErrors.map(error, path: database.path)
        }
    }

    /// Whether another write changed or removed a row this import changes or removes.
    private static func clashes(_ change: TableChange, _ db: Database) throws -> Bool {
        let table = change.table.sqlIdentifier
        let keys = change.keyList
        let touched =
            "SELECT \(keys) FROM staged.\(change.updates.sqlIdentifier) UNION ALL SELECT \(keys) FROM staged.\(change.deletes.sqlIdentifier)"
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (
                    SELECT * FROM base.\(table) WHERE (\(keys)) IN (\(touched))
                    EXCEPT SELECT * FROM main.\(table) WHERE (\(keys)) IN (\(touched)))
                """) == true
    }

    private static func write(_ change: TableChange, _ db: Database) throws {
        let table = change.table.sqlIdentifier
        let keys = change.keyList
        let columns = change.columnList
        try db.execute(sql: "DELETE FROM main.\(table) WHERE (\(keys)) IN (SELECT \(keys) FROM staged.\(change.deletes.sqlIdentifier))")
        let others = change.columns.filter { !change.key.contains($0) }
        if !others.isEmpty {
            try db.execute(
                sql: """
                    INSERT INTO main.\(table) (\(columns)) SELECT \(columns) FROM staged.\(change.updates.sqlIdentifier) WHERE true
                    ON CONFLICT (\(keys)) DO UPDATE SET \(others.map { "\($0.sqlIdentifier) = excluded.\($0.sqlIdentifier)" }.joined(separator: ", "))
                    """)
        }
        // A row another surface added meanwhile under the same key fails here, and the import runs again.
        try db.execute(sql: "INSERT INTO main.\(table) (\(columns)) SELECT \(columns) FROM staged.\(change.inserts.sqlIdentifier) ORDER BY \(keys)")
    }

    /// The URI of a named in-memory database, which other connections of this process can attach.
    private static func uri(_ name: String) -> String { "file:\(name)?mode=memory&cache=shared" }
}
