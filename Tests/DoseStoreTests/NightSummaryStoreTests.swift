import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// The stored summaries insights read must always be what the nights' events give: the fast path and the full path
/// agree on every night, after every kind of write.
@Suite("Night summaries kept beside the nights")
struct NightSummaryStoreTests {
    /// Five weeks of varied nights (skips with reasons, sleep-throughs, snoozes, early doses, the fall-back night of
    /// 1 November), then extra doses, a final wake, an undo, an edited and a deleted event.
    static func correctedLedger() throws -> (NightLedger, TestClock) {
        let (ledger, clock) = try BundleFixture.variedLedger(weeks: 5)
        let dose1 = WallClock.date(2026, 11, 10, 22, 0)
        try StoreFixture.act(ledger, .dose1, at: dose1, clock: clock)
        try StoreFixture.act(ledger, .log(event: "bathroom"), at: StoreFixture.minutes(30, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .log(event: "water"), at: StoreFixture.minutes(60, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(170, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(175, after: dose1), clock: clock, confirm: [.extra])
        // A second extra is refused whatever is confirmed (D20); the brief wake after it is undone.
        #expect(throws: DoseError.self) {
            try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(176, after: dose1), clock: clock, confirm: [.extra])
        }
        try StoreFixture.act(ledger, .log(event: "wake_temp"), at: StoreFixture.minutes(176, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .undo, at: StoreFixture.minutes(176, after: dose1).addingTimeInterval(3), clock: clock)
        try StoreFixture.act(ledger, .wake, at: StoreFixture.minutes(420, after: dose1), clock: clock)
        // A snack after the final wake is not an awakening in the night.
        try StoreFixture.act(ledger, .log(event: "snack"), at: StoreFixture.minutes(430, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .checkIn(MorningCheckIn()), at: StoreFixture.minutes(540, after: dose1), clock: clock)

        clock.set(WallClock.date(2026, 11, 12, 12, 0))
        let records = try ledger.database.history.nights(
            from: SessionKey(year: 2026, month: 10, day: 1)!, to: SessionKey(year: 2026, month: 11, day: 10)!)
        let early = try #require(records.first { DoseTiming.of(NightFacts($0.session.events), targetMinutes: 180) == .early })
        let dose2 = try #require(NightFacts(early.session.events).dose2)
        _ = try ledger.database.journal.editEvent(dose2.id, occurredAt: dose2.occurredAt.addingTimeInterval(45 * 60), note: nil, clock: clock.store)
        let bathroom = try #require(records.first { $0.session.events.contains { $0.kind == .sleep(.bathroom) } && !$0.session.isOpen })
        _ = try ledger.database.journal.deleteEvent(bathroom.session.events.first { $0.kind == .sleep(.bathroom) }!.id, clock: clock.store)
        return (ledger, clock)
    }

    static let from = SessionKey(year: 2026, month: 9, day: 1)!
    static let to = SessionKey(year: 2026, month: 12, day: 1)!

    /// Every night's stored summary against the one its events give, and the figures both ways.
    static func expectAgreement(_ database: AppDatabase, clock: TestClock, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let records = try database.history.nights(from: from, to: to)
        let stored = try database.history.insightNights(from: from, to: to)
        #expect(records.count == stored.count, sourceLocation: sourceLocation)
        #expect(records.count > 30, sourceLocation: sourceLocation)
        for (record, night) in zip(records, stored) {
            #expect(night.summary == NightSummary(record.session), "\(record.session.date)", sourceLocation: sourceLocation)
            #expect(night.checkIn == record.checkIn && night.preSleep == record.preSleep, sourceLocation: sourceLocation)
            #expect(night.medications == record.medications.map(\.name), sourceLocation: sourceLocation)
        }
        let period = try InsightsPeriod.custom(from: from, to: to)
        let full = records.map {
            InsightNight(session: $0.session, checkIn: $0.checkIn, preSleep: $0.preSleep, medications: $0.medications.map(\.name))
        }
        #expect(
            Insights(stored, period: period, targetMinutes: 180) == Insights(full, period: period, targetMinutes: 180), sourceLocation: sourceLocation
        )
    }

    @Test("after actions, extra doses, an undo, an edit, a deletion and the fall-back night, every stored summary is its events'")
    func agreeAfterWrites() throws {
        let (ledger, clock) = try Self.correctedLedger()
        try Self.expectAgreement(ledger.database, clock: clock)
        let stored = try ledger.database.history.insightNights(from: Self.from, to: Self.to)
        let extra = try #require(stored.first { $0.summary.date == SessionKey(year: 2026, month: 11, day: 10)! }?.summary)
        #expect(extra.extraDoses.count == 1)
        #expect(extra.awakenings == 2)
        #expect(stored.contains { $0.summary.skip?.reason == "felt rested, \"really\"" })
        #expect(stored.contains { $0.summary.skip?.sleptThrough == true })
    }

    @Test("a bundle imported into an empty database summarises every night it brings")
    func agreeAfterImport() throws {
        let (source, clock) = try Self.correctedLedger()
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("b.zip").path
        _ = try UseCases(store: .sqlite(source.database), clock: clock.store).transfer.exportBundle(to: bundle)
        let target = try AppDatabase.inMemory()
        _ = try target.transfer.importFile(at: bundle, clock: clock.store)
        try Self.expectAgreement(target, clock: clock)
    }

    @Test("a database from before the summaries gets every night summarised when it opens")
    func migrationFillsSummaries() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let (memory, clock) = try Self.correctedLedger()
        try memory.database.writer.backup(to: try DatabaseQueue(path: path))
        // Schema 6 as it was: no summaries table, no record of the migration.
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(
                sql: "DROP TABLE night_summaries; DELETE FROM grdb_migrations WHERE identifier = 'v7_night_summaries'; PRAGMA user_version = 6")
        }
        let reopened = try AppDatabase.open(path: path)
        #expect(
            try reopened.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM night_summaries") }
                == (try reopened.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sleep_sessions") }))
        try Self.expectAgreement(reopened, clock: clock)
    }
}
