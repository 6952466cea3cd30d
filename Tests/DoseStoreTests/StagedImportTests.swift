import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// Imports run on a copy and land in one transaction: another write meanwhile is kept, a clash runs the import again,
/// a stop keeps nothing, and a night with more events than any real night is refused before anything is read in.
@Suite("Staged imports")
struct StagedImportTests {
    static func setting(_ key: String, _ database: AppDatabase) throws -> String? {
        try database.read { try String.fetchOne($0, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) }
    }

    static func put(_ key: String, _ value: String, _ database: AppDatabase) throws {
        try database.write {
            try $0.execute(
                sql: "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, 'x') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }

    @Test(
        "a write to the same row while the import works makes it run again on a fresh copy, and both are kept",
        arguments: [
            (existedBefore: false, note: "the import adds a row another surface adds meanwhile"),
            (existedBefore: true, note: "the import changes a row another surface changes meanwhile"),
        ])
    func clash(existedBefore: Bool, note: String) throws {
        let database = try AppDatabase.inMemory()
        if existedBefore { try Self.put("cooldown.water", "1", database) }
        var attempts = 0
        try StagedImport(database: database).run { staged in
            attempts += 1
            try Self.put("cooldown.water", "5", staged)
            try Self.put("cooldown.snack", "7", staged)
            if attempts == 1 { try Self.put("cooldown.water", "9", database) }
        }
        #expect(attempts == 2, "\(note)")
        #expect(try Self.setting("cooldown.water", database) == "5")
        #expect(try Self.setting("cooldown.snack", database) == "7")
    }

    @Test("a write to another row while the import works is kept beside it, without running the import again")
    func noClash() throws {
        let database = try AppDatabase.inMemory()
        var attempts = 0
        try StagedImport(database: database).run { staged in
            attempts += 1
            try Self.put("cooldown.snack", "7", staged)
            try Self.put("cooldown.water", "9", database)
        }
        #expect(attempts == 1)
        #expect(try Self.setting("cooldown.water", database) == "9")
        #expect(try Self.setting("cooldown.snack", database) == "7")
    }

    @Test("an import that fails part-way keeps nothing, and the real database never saw its first rows")
    func failurePartWay() throws {
        let database = try AppDatabase.inMemory()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try StagedImport(database: database).run { staged in
                try Self.put("cooldown.snack", "7", staged)
                #expect(try Self.setting("cooldown.snack", database) == nil)
                throw Failure()
            }
        }
        #expect(try Self.setting("cooldown.snack", database) == nil)
    }

    @Test("a stop (graceful shutdown) ends an import under way with a clear error and keeps nothing")
    func stopped() throws {
        let database = try AppDatabase.inMemory()
        let before = try StoreFixture.snapshot(database.ledger)
        #expect(throws: DoseError.importStopped) {
            try StagedImport(database: database).run { staged in
                try Self.put("cooldown.snack", "7", staged)
                database.stopImports()
                // SQLite's progress handler sees the flag within a thousand steps.
                try staged.write { db in try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
                }
            }
        }
        #expect(try StoreFixture.snapshot(database.ledger) == before)
        #expect(DoseError.importStopped.message.contains("nothing from the file was kept"))
    }

    static func eventsCSV(nights: [(date: String, events: Int)], in directory: URL) throws -> String {
        var text = DataTransfer.eventsCSVHeader + "\n"
        var n = 0
        for night in nights {
            text += "d\(n),dose1,user,\(night.date)T03:00:00.000Z,UTC,,\n"
            n += 1
            for i in 1..<night.events {
                text +=
                    "e\(n),bathroom,user,\(night.date)T\(String(format: "%02d", 4 + i / 3600 % 10)):\(String(format: "%02d", i / 60 % 60)):\(String(format: "%02d", i % 60)).000Z,UTC,,\n"
                n += 1
            }
        }
        let path = directory.appendingPathComponent("events-\(n).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(
        "events per night: up to the limit imports, one more is refused up front naming the night and the limit",
        arguments: [(ImportLimits.maximumEventsPerNight, true), (ImportLimits.maximumEventsPerNight + 1, false)])
    func eventsPerNight(events: Int, accepted: Bool) throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 21, 12, 0))
        let path = try Self.eventsCSV(nights: [("2026-11-01", 3), ("2026-11-10", events)], in: directory)
        let before = try StoreFixture.snapshot(database.ledger)
        if accepted {
            #expect(try database.transfer.importFile(at: path, clock: clock.store).imported["events.csv"] == events + 3)
        } else {
            let error = #expect(throws: DoseError.self) { try database.transfer.importFile(at: path, clock: clock.store) }
            #expect(error?.message.contains("\(events) events for the night of 2026-11-09") == true)
            #expect(error?.message.contains("at most \(ImportLimits.maximumEventsPerNight) events per night") == true)
            #expect(try StoreFixture.snapshot(database.ledger) == before)
        }
    }
}
