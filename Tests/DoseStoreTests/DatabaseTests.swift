import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

@Suite("Database file: pragmas, schema version, refusals")
struct DatabaseTests {
    @Test("every connection has WAL, synchronous=FULL, foreign keys, secure delete and a busy timeout ≥ 5 s", arguments: [false, true])
    func pragmas(pooled: Bool) throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase.open(path: directory.appendingPathComponent("p.sqlite").path, pooled: pooled)
        func check(_ db: Database) throws {
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "PRAGMA synchronous") == 2)
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 1)
            #expect(try Int.fetchOne(db, sql: "PRAGMA secure_delete") == 1)
            #expect(try Int.fetchOne(db, sql: "PRAGMA busy_timeout")! >= 5000)
        }
        try database.writer.write { try check($0) }
        try database.writer.read { try check($0) }
        if let pool = database.writer as? DatabasePool {
            // A second reader connection, opened concurrently, gets the same settings.
            try pool.read { _ in try pool.unsafeReentrantRead { try check($0) } }
            try pool.barrierWriteWithoutTransaction { try check($0) }
        }
    }

    @Test("the schema version is user_version and every migration is recorded")
    func schemaVersion() throws {
        let database = try AppDatabase.inMemory()
        try database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == Schema.version)
            #expect(try Schema.migrator.appliedIdentifiers(db) == Set(Schema.migrations.map(\.name)))
            for table in ["sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "settings", "audit_log"] {
                #expect(try db.tableExists(table))
            }
        }
    }

    /// Migrations are frozen: a shipped migration must build the same tables forever, whatever later code changes. The
    /// fixture is the schema that schema version 5 shipped with (statement text, whitespace folded).
    @Test("a new database has exactly the schema the shipped migrations made")
    func frozenSchema() throws {
        let database = try AppDatabase.inMemory()
        let statements = try database.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name")
        }
        let folded = statements.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") + ";" }.joined(separator: "\n") + "\n"
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/schema-v\(Schema.version).sql")
        #expect(folded == (try String(contentsOf: fixture, encoding: .utf8)))
    }

    @Test("schema 11 counts every paired device as used at the upgrade, so an upgrade expires none; a revoked one stays revoked")
    func deviceExpiryMigration() throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: "v10_wearable_summaries")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO devices (id, name, token_hash, created_at) VALUES ('old', 'Phone', '\(String(repeating: "a", count: 64))',
                        '2025-01-01T00:00:00.000Z');
                    INSERT INTO devices (id, name, token_hash, created_at, revoked_at) VALUES ('gone', 'Tablet', '\(String(repeating: "b", count: 64))',
                        '2025-01-01T00:00:00.000Z', '2025-02-01T00:00:00.000Z');
                    """)
        }
        try Schema.migrator.migrate(queue)
        let used = try queue.read { db in try String.fetchAll(db, sql: "SELECT COALESCE(last_used_at, '-') FROM devices ORDER BY id") }
        #expect(used.count == 2 && used[0] == "-", "the revoked device records no use: \(used)")
        // Written by the migration at the real moment of the upgrade, the one instant a test cannot fix.
        let upgraded = try #require(ISO8601.parse(used[1]))
        #expect(abs(upgraded.timeIntervalSinceNow) < 3_600, "\(used[1])")
        #expect(
            DeviceLifetime.state(
                createdAt: try #require(ISO8601.parse("2025-01-01T00:00:00.000Z")), lastUsedAt: upgraded, expiresAt: nil, revokedAt: nil,
                now: upgraded.addingTimeInterval(DeviceLifetime.idleLimit - 1), nightOpen: false) == .usable)
    }

    @Test("reopening an existing database keeps its data and migrates nothing twice")
    func reopen() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("r.sqlite").path
        let clock = TestClock(StoreFixture.dose1)
        try StoreFixture.act((try AppDatabase.open(path: path)).ledger, .dose1, at: StoreFixture.dose1, clock: clock)
        let reopened = (try AppDatabase.open(path: path)).ledger
        #expect(try reopened.status(clock: clock.store).status.dose1At == StoreFixture.dose1)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    /// A file that is not today's DoseTap database: how to make it, and what the refusal must say.
    enum UnopenableFile: String, CaseIterable {
        case newerSchema = "newer DoseTap"
        case notADatabase = "not a readable SQLite database"
        case foreignDatabase = "not a DoseTap one"

        func make(at path: String) throws {
            switch self {
            case .newerSchema:
                let database = try AppDatabase.open(path: path)
                try database.writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
            case .notADatabase:
                try Data(String(repeating: "my sleep notes, not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
            case .foreignDatabase:
                try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE recipes (name TEXT)") }
            }
        }
    }

    @Test(
        "a newer DoseTap's database, a file that is not a database, and another application's database are refused as bad files and left byte-for-byte untouched",
        arguments: UnopenableFile.allCases)
    func unopenableFile(_ file: UnopenableFile) throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.sqlite").path
        try file.make(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = StoreFixture.refusal { _ = try AppDatabase.open(path: path) }
        #expect(error?.code == .invalidInput)
        #expect(StoreFixture.isFileProblem(error))
        #expect(error?.message.contains(file.rawValue) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("SQLite busy and locked become 503_STORAGE_BUSY; a non-database becomes a file error")
    func errorMapping() {
        let busy = StoreErrors.map(DatabaseError(resultCode: .SQLITE_BUSY), path: "x") as? DoseError
        #expect(busy == .storageBusy)
        #expect((StoreErrors.map(DatabaseError(resultCode: .SQLITE_LOCKED), path: "x") as? DoseError) == .storageBusy)
        #expect(StoreFixture.isFileProblem(StoreErrors.map(DatabaseError(resultCode: .SQLITE_NOTADB), path: "x") as? DoseError))
    }
}
