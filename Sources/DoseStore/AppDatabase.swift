import DoseCore
public import Foundation
import GRDB

/// The one SQLite database of DoseTap (SPEC §6): opened with durable settings, migrated, checked.
public final class AppDatabase: Sendable {
    /// The connection (a queue for one-shot commands, a pool for the server). Only the stores of this module touch it,
    /// each through `read` and `write`, so every storage failure is mapped to the error taxonomy in one place.
    let writer: any DatabaseWriter
    /// The file path, nil in memory.
    public let path: String?
    /// The open night as the writer last committed it (actions only; see `OpenNightCache`).
    let openNight = OpenNightCache()
    /// Night actions that arrive while another commits go in one transaction with it.
    let nightWrites = GroupCommit()
    /// Imports under way on this database, so shutdown can stop them.
    public let imports: ImportStops

    /// Busy timeout: a writer waits this long for another process's transaction before giving up (≥ 5 s, SPEC §6).
    public static let busyTimeout: TimeInterval = 10

    private init(writer: any DatabaseWriter, path: String?) {
        self.writer = writer
        self.path = path
        imports = ImportStops()
        importStop = nil
    }

    /// The stop flag of the import working on this copy (nil for the real database).
    let importStop: ImportStops.Flag?

    /// The private copy an import works on (`StagedImport`), with that import's stop flag.
    init(staging: DatabaseQueue, stop: ImportStops.Flag) {
        writer = staging
        path = nil
        imports = ImportStops()
        importStop = stop
    }

    /// Stops every import under way before it keeps anything (graceful shutdown); later ones are refused.
    public func stopImports() { imports.stopAll() }

    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    /// A file that is not a DoseTap database, or one written by a newer DoseTap, is refused untouched.
    public static func open(path: String, pooled: Bool = false) throws -> AppDatabase {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        let isNew = !FileManager.default.fileExists(atPath: path)
        do {
            // A queue checks and migrates first; it touches nothing before the checks pass.
            let queue = try DatabaseQueue(path: path, configuration: configuration())
            if isNew { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
            try prepareSchema(queue, path: path)
            guard pooled else { return AppDatabase(writer: queue, path: path) }
            try queue.close()
            var config = configuration()
            config.journalMode = .wal
            let pool = try DatabasePool(path: path, configuration: config)
            // GRDB lowers the pool writer to synchronous=NORMAL when it sets up WAL; durability needs FULL.
            try pool.barrierWriteWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            return AppDatabase(writer: pool, path: path)
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }

    /// A fresh database in memory (tests).
    public static func inMemory() throws -> AppDatabase {
        let queue = try DatabaseQueue(configuration: configuration())
        try prepareSchema(queue, path: nil)
        return AppDatabase(writer: queue, path: nil)
    }

    /// A fresh, migrated database in memory, for PostgreSQL records to fill (`PostgresSQLiteCopy`): a copy of one
    /// migrated once per process, since running every migration for each copy would cost more.
    static func migratedQueue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(configuration: configuration())
        try migratedTemplate.get().backup(to: queue)
        return queue
    }

    private static let migratedTemplate = Result { () throws -> DatabaseQueue in
        let queue = try DatabaseQueue(configuration: configuration())
        try prepareSchema(queue, path: nil)
        return queue
    }

    /// Work on a PostgreSQL person's records, copied into memory (`PostgresSQLiteCopy`).
    init(sqliteCopy copy: DatabaseQueue, imports: ImportStops) {
        writer = copy
        path = nil
        self.imports = imports
        importStop = nil
    }

    /// An in-memory copy of this database, so many runs can start from one prepared state (fuzzing) without
    /// migrating a fresh database each time.
    public func inMemoryCopy() throws -> AppDatabase {
        let queue = try DatabaseQueue(configuration: Self.configuration())
        try writer.backup(to: queue)
        return AppDatabase(writer: queue, path: nil)
    }

    /// The settings every connection gets: durable commits, erased deletes, foreign keys, a busy timeout.
    static func configuration() -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            // FULL: a commit is on disk before DoseTap says "recorded" (an acknowledged action survives a crash).
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Deleted content is overwritten, so Clear All Data and deletes leave no readable trace.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return config
    }

    /// Refuses foreign or newer databases, then runs the migrations.
    private static func prepareSchema(_ writer: DatabaseQueue, path: String?) throws {
        // The common case, an up-to-date WAL database, needs only this read.
        if try check(writer, path: path) { return }
        guard let path else { return try migrate(writer, path: nil) }
        // Creating or migrating: processes starting at once on a new file take turns, because switching to WAL
        // and the first migration cannot wait on SQLite's busy handler the way ordinary writes do.
        try SetupLock.withLock(path: path + ".setup-lock") {
            if try check(writer, path: path) { return }
            try migrate(writer, path: path)
        }
    }

    /// Refuses foreign or newer files; true when the database is already WAL and fully migrated.
    private static func check(_ writer: DatabaseQueue, path: String?) throws -> Bool {
        let migrator = Schema.migrator
        let known = Schema.version
        let (userVersion, superseded, foreign, mode) = try writer.read { db -> (Int, Bool, Bool, String) in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            let foreign = !tables.isEmpty && !tables.contains("grdb_migrations")
            let superseded = tables.contains("grdb_migrations") ? try migrator.hasBeenSuperseded(db) : false
            return (version, superseded, foreign, try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "")
        }
        if foreign {
            throw DoseError.invalidFile(problem: "\(path ?? "the database") is an SQLite database, but not a DoseTap one; choose another --db path")
        }
        if userVersion > known || superseded {
            throw DoseError.invalidFile(
                problem:
                    "\(path ?? "the database") was written by a newer DoseTap (schema \(userVersion); this one reads up to \(known)). Update "
                    + "DoseTap; the file was left untouched"
            )
        }
        return userVersion == known && (path == nil || mode == "wal")
    }

    private static func migrate(_ writer: DatabaseQueue, path: String?) throws {
        if let path {
            // WAL is set here, after the checks, rather than by GRDB at open: GRDB's setup writes to the file and
            // lowers synchronous to NORMAL. The mode is stored in the file, so later connections inherit it.
            let mode = try writer.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
            guard mode == "wal" else { throw DoseError.invalidFile(problem: "\(path) cannot use write-ahead logging") }
        }
        try Schema.migrator.migrate(writer)
    }

    /// Runs one write transaction, mapping storage failures to the error taxonomy.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try writer.write(body) } catch { throw StoreErrors.map(error, path: path) }
    }

    /// Runs one read, mapping storage failures to the error taxonomy.
    /// Whether the database answers a read (`/health`).
    public func ping() throws { try read { db in _ = try Int.fetchOne(db, sql: "SELECT 1") } }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try writer.read(body) } catch { throw StoreErrors.map(error, path: path) }
    }
}

/// Maps SQLite failures onto SPEC §4: busy → 503 (exit 75), not a database → bad input file (exit 65).
enum StoreErrors {
    static func map(_ error: any Error, path: String?) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return DoseError.storageBusy
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return DoseError.invalidFile(
                problem: "\(path ?? "the database") is not a readable SQLite database (\(error.message ?? "unreadable")); choose another --db path")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
            return DoseError.invalidFile(problem: "\(path ?? "the database") cannot be opened for writing (\(error.message ?? "permission denied"))")
        default:
            return error
        }
    }
}

/// An advisory lock on a small side file, held only while a database is created or migrated.
enum SetupLock {
    static func withLock<T>(path: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
