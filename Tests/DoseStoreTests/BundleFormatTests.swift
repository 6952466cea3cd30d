import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

/// Backups stay importable: a bundle of every released format, exported by the build that released it, is committed
/// under Fixtures/ and imported on every run, now and after every future migration.
@Suite("Every released bundle format imports, row by row")
struct BundleFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The files that hold the person's records; readme.txt and schema_version.json describe the export itself.
    static let records = [
        "sessions.csv", "dose_events.csv", "sleep_events.csv", "morning_checkins.csv", "pre_sleep_logs.csv",
        "medication_events.csv", "audit_log.csv", "events.csv", "settings.json",
    ]

    static func fixture(_ schema: Int) -> URL { fixtures.appendingPathComponent("bundle-schema\(schema).zip") }

    @Test("every schema from the first released bundle to today's has a committed fixture and an upgrade step to the next")
    func everyFormatIsCovered() {
        for schema in BundleFormats.importable {
            #expect(
                FileManager.default.fileExists(atPath: Self.fixture(schema).path),
                "export a bundle with the schema \(schema) build (scripts/make-bundle-fixture.sh) into Fixtures/")
            if schema < Schema.version { #expect(BundleFormats.upgrades[schema] != nil, "no upgrade from schema \(schema)") }
        }
    }

    @Test(
        "a released bundle imports whole into an empty database, and exporting it again gives back every row",
        arguments: Array(BundleFormats.importable))
    func importsEveryRow(schema: Int) throws {
        let source = Self.fixture(schema)
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 11, 5, 7, 0))
        let report = try ledger.database.transfer.importFile(at: source.path, clock: clock.store)
        #expect(report.rejected.isEmpty && report.skippedTotal == 0, "\(report.rejected)")
        // From schema 13's build on, the afternoon nap after a check-in joins that night instead of a night of its own.
        let nightCount = schema >= 13 ? 4 : 5
        #expect(report.imported["sessions.csv"] == nightCount && report.imported["dose_events.csv"] == 10, "\(report.imported)")

        let again = directory.appendingPathComponent("again.zip")
        _ = try UseCases(store: .sqlite(ledger.database), clock: clock.store).transfer.exportBundle(to: again.path)
        // The fixture as this build reads it: its files brought to today's schema by the upgrade steps.
        var upgraded = try BundleFixture.entries(of: source).mapValues { String(decoding: $0, as: UTF8.self) }
        try BundleFormats.upgrade(&upgraded, from: schema)
        let before = upgraded.mapValues { Data($0.utf8) }
        let after = try BundleFixture.entries(of: again)
        for name in Self.records {
            #expect(before[name] != nil && before[name] == after[name], "\(name) of the schema \(schema) bundle changed on import")
        }
        // A few facts read back through the rules, not just the files.
        let nights = try ledger.database.history.page(HistoryQuery()).groups.flatMap(\.nights)
        let late = try #require(nights.first { $0.session.date.description == "2026-11-01" && $0.intervalMinutes != nil })
        #expect(late.intervalMinutes == 245 && late.session.events.contains { $0.kind == .dose2 && $0.metadata.isLate })
        #expect(nights.contains { $0.session.date.description == "2026-11-03" && $0.terminalState == .expired })
        #expect(try ledger.database.settings.current(machineTimeZoneID: clock.store.machineTimeZoneID).targetIntervalMinutes == 180)
        let version = try JSONSerialization.jsonObject(with: after["schema_version.json"]!) as? [String: Any]
        #expect(version?["schema_version"] as? String == String(Schema.version) && version?["format"] as? String == BundleFormats.format)

        let unchanged = try StoreFixture.snapshot(ledger)
        #expect(try ledger.database.transfer.importFile(at: source.path, clock: clock.store).importedTotal == 0, "importing it again adds nothing")
        #expect(try StoreFixture.snapshot(ledger) == unchanged)
    }

    @Test(
        "a bundle from a newer DoseTap, from before the first release, or of another format is refused with the versions that import",
        arguments: [
            (Schema.version + 1, "dosetap-bundle-1", "newer DoseTap"), (3, "dosetap-bundle-1", "schema 4–"),
            (Schema.version, "someone-else-1", "this DoseTap imports dosetap-bundle-1"),
        ])
    func refusedVersions(schema: Int, format: String, words: String) throws {
        let text = #"{"schema_version": "\#(schema)", "format": "\#(format)"}"#
        #expect { try BundleReader.checkVersion(text) } throws: { error in
            (error as? DoseError)?.message.contains(words) == true
        }
    }
}
