import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

/// An import is one set of rules on either store's statements (issue 55): every kind of file gives the same report,
/// the same records and the same bundle on PostgreSQL as on SQLite, and the same file again adds nothing on either.
@Suite("Every kind of import does the same on PostgreSQL as on SQLite", .needsPostgres)
struct ImportsOnBothStoresTests {
    static let now = WallClock.date(2026, 11, 21, 13, 0)

    /// One file of each kind DoseTap reads, in a folder of their own.
    static func files() throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let events = folder.appendingPathComponent("events.csv")
        try
            (DataTransfer.eventsCSVHeader + "\n"
            + "e-1,dose1_taken,user,2026-11-18T03:00:00.000Z,America/New_York,,\n"
            + "e-2,dose2_taken,user,2026-11-18T05:45:00.000Z,America/New_York,,\"up, then back to sleep\"\n"
            + "e-3,bathroom,user,2026-11-18T04:10:00.000Z,America/New_York,,\n"
            + "e-4,dose2_taken,user,2026-11-18T05:50:00.000Z,America/New_York,,\n").write(to: events, atomically: true, encoding: .utf8)
        let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/bundle-schema13.zip").path
        let health = try HealthFixture.write(
            HealthFixture.export(
                [
                    HealthFixture.sleep("AsleepCore", "2026-02-07 22:20:00 -0500", "2026-02-07 23:30:00 -0500"),
                    HealthFixture.sleep("AsleepDeep", "2026-02-07 23:30:00 -0500", "2026-02-08 01:10:00 -0500"),
                    HealthFixture.sleep("AsleepDeep", "2026-02-07 23:30:00 -0500", "2026-02-08 01:10:00 -0500"),
                    HealthFixture.vital("HeartRate", "58", "2026-02-08 00:15:00 -0500"),
                    HealthFixture.vital("HeartRate", "58", "2026-02-08 00:15:00 -0500"),
                    HealthFixture.vital("HeartRate", "61.25", "2026-02-08 01:45:00 -0500"),
                    HealthFixture.vital("HeartRate", "90", "2026-02-08 14:00:00 -0500"),
                ].joined(separator: "\n")))
        let whoop = try WhoopFixture.write(WhoopFixture.sleeps())
        let cycles = try WhoopFixture.write(WhoopFixture.cycles(), name: "physiological_cycles.csv")
        let original = try OriginalFixture.make(OriginalFixture.versions(upTo: 6), in: folder, name: "original.sqlite")
        return [bundle, events.path, health, whoop, cycles, original]
    }

    @Test("a bundle, an events.csv, the Health app's export, WHOOP's two files and the original app's database, twice over")
    func eachKindTwice() throws {
        // A clock each, so each store's new nights take the same ids.
        let clocks = [TestClock(Self.now), TestClock(Self.now)]
        let sqlite = try AppDatabase.inMemory()
        let postgres = try PostgresTestDatabase.freshStore()
        defer { postgres.close() }
        let copies = postgres.sqliteCopiesMade
        let stores: [RecordStore] = [.sqlite(sqlite), .postgres(postgres, person: "local")]
        let files = try Self.files()
        for round in 1...2 {
            for file in files {
                let reports = try zip(stores, clocks).map { store, clock in
                    try store.importFile(
                        at: file, clock: clock.store, settling: NightLedger.settling(clock: clock.store),
                        scratchFolder: FileManager.default.temporaryDirectory)
                }
                #expect(reports[0] == reports[1], "round \(round), \(URL(fileURLWithPath: file).lastPathComponent): \(reports[0]) \(reports[1])")
                if round == 2 { #expect(reports[1].importedTotal == 0, "the same file again adds nothing: \(reports[1])") }
            }
        }
        #expect(postgres.sqliteCopiesMade == copies, "no import made a copy into SQLite")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bundles = try stores.enumerated().map { index, store in
            let path = folder.appendingPathComponent("\(index).zip").path
            _ = try store.exportBundle(to: path, analytics: "", clock: clocks[index].store)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(bundles[0] == bundles[1], "the two stores' bundles are the same bytes")
    }
}
