import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing
import ZIPFoundation

@testable import DoseStore

@Suite("Export bundle and import: round trip, idempotence, events.csv")
struct BundleRoundTripTests {
    @Test("every table file lists the columns the file's table has, in its order: the format and the schema move together")
    func formatColumnsAreTheSchemas() throws {
        let database = try AppDatabase.inMemory()
        try database.writer.read { db in
            for spec in ExportBundle.tables {
                let columns = try ExportBundle.columns(of: spec.table, db)
                #expect(spec.columns == columns, "\(spec.file)")
            }
        }
    }

    @Test("export → import into an empty database → export gives identical files; a second import adds nothing")
    func roundTrip() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (source, clock) = try BundleFixture.variedLedger()
        let first = directory.appendingPathComponent("first.zip")
        let counts = try UseCases(store: .sqlite(source.database), clock: clock.store).transfer.exportBundle(to: first.path)
        #expect(counts["sessions.csv"] == 21)
        #expect((counts["dose_events.csv"] ?? 0) > 40)
        #expect(try FileManager.default.attributesOfItem(atPath: first.path)[.posixPermissions] as? Int == 0o600)

        let target = try StoreFixture.ledger()
        let report = try target.database.transfer.importFile(at: first.path, clock: clock.store)
        #expect(report.rejected.isEmpty)
        #expect(report.skippedTotal == 0)
        #expect(report.importedTotal == counts.values.reduce(0, +))
        let second = directory.appendingPathComponent("second.zip")
        _ = try UseCases(store: .sqlite(target.database), clock: clock.store).transfer.exportBundle(to: second.path)
        let a = try BundleFixture.entries(of: first)
        let b = try BundleFixture.entries(of: second)
        #expect(Set(a.keys) == Set(b.keys))
        for name in a.keys.sorted() { #expect(a[name] == b[name], "\(name) differs after the round trip") }
        #expect(String(decoding: a["dose_events.csv"]!, as: UTF8.self).contains("\"say \"\"hi\"\"\""))
        #expect(String(decoding: a["sleep_events.csv"]!, as: UTF8.self).contains(",'=SUM(A1:A9),"))

        let before = try StoreFixture.snapshot(target)
        let again = try target.database.transfer.importFile(at: first.path, clock: clock.store)
        #expect(again.importedTotal == 0)
        #expect(again.skippedTotal == report.importedTotal)
        #expect(try StoreFixture.snapshot(target) == before)
    }

    @Test("a bundle's open night is rejected beside a local open night, with its rows, and the rest imports")
    func openNightClash() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try StoreFixture.ledger()
        let clock = TestClock(StoreFixture.dose1)
        try StoreFixture.act(source, .dose1, at: StoreFixture.dose1, clock: clock)
        let path = directory.appendingPathComponent("open.zip").path
        _ = try UseCases(store: .sqlite(source.database), clock: clock.store).transfer.exportBundle(to: path)
        let target = try StoreFixture.ledger()
        try StoreFixture.act(target, .dose1, at: StoreFixture.minutes(5), clock: clock)
        let report = try target.database.transfer.importFile(at: path, clock: clock.store)
        #expect(report.rejected.map(\.file) == ["sessions.csv", "dose_events.csv"])
        #expect(report.rejected[1].reason.contains("was rejected"))
    }

    @Test("events.csv imports into nights, skips undo rows and duplicates, rejects contradictory doses")
    func eventsCSV() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = """
            event_id,event_type,source,occurred_at_utc,local_tz,dose_sequence,note\r
            e1,dose1_taken,user,2026-09-07T02:15:23Z,America/New_York,1,\r
            e2,bathroom,flic,2026-09-07T03:00:00Z,America/New_York,,"up, again"\r
            e3,dose2_taken,watch,2026-09-07T04:30:00Z,America/New_York,2,'=quoted\r
            e4,undo,user,2026-09-07T04:30:02Z,America/New_York,,undid something\r
            e5,dose2_taken,user,2026-09-07T04:40:00Z,America/New_York,2,\r
            e6,snooze,user,2026-09-08T02:00:00Z,America/New_York,,\r

            """
        let path = directory.appendingPathComponent("events.csv").path
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 10, 1, 12, 0))
        let report = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        #expect(report.imported["events.csv"] == 3)
        #expect(report.skipped["events.csv"] == 1)
        #expect(report.rejected.map(\.row) == [5, 6])
        let night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2026-09-06")!).first)
        #expect(!night.session.isOpen)
        #expect(night.intervalMinutes == 134)
        #expect(NightFacts(night.session.events).dose2?.metadata.isEarly == true)
        #expect(night.session.events.first { $0.id.rawValue == "e3" }?.note == "=quoted")
        let again = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        #expect(again.importedTotal == 0)
    }
}
