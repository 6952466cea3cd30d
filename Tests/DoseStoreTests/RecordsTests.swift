import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// Nights on 1–10 November 2026: Dose 1 at 22:00, Dose 2 at 150 + 5·i minutes; water on even nights,
/// a dream on odd ones; every night checked in at 07:00.
private func tenNights() throws -> (NightLedger, TestClock) {
    let ledger = try StoreFixture.ledger()
    let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
    for day in 1...10 {
        let dose1 = WallClock.date(2026, 11, day, 22, 0)
        try StoreFixture.act(ledger, .dose1, at: dose1, clock: clock)
        try StoreFixture.act(
            ledger, .log(event: day.isMultiple(of: 2) ? "water" : "dream"), at: StoreFixture.minutes(30, after: dose1), clock: clock,
            note: day == 3 ? "=HYPERLINK(\"x\"), said \"hi\"\nnext line" : nil)
        try StoreFixture.act(ledger, .dose2, at: StoreFixture.minutes(Double(150 + 5 * day), after: dose1), clock: clock)
        try StoreFixture.act(ledger, .checkIn(MorningCheckIn()), at: StoreFixture.minutes(540, after: dose1), clock: clock)
    }
    return (ledger, clock)
}

@Suite("History, session show and delete")
struct HistoryTests {
    @Test("newest first by default, paged; oldest reverses")
    func paging() throws {
        let (ledger, _) = try tenNights()
        var query = HistoryQuery()
        query.limit = 4
        let first = try ledger.database.history.page(query)
        #expect(first.totalNights == 10)
        #expect(first.pageCount == 3)
        #expect(first.groups.flatMap(\.nights).map(\.session.date.description) == ["2026-11-10", "2026-11-09", "2026-11-08", "2026-11-07"])
        query.page = 3
        #expect(try ledger.database.history.page(query).groups.flatMap(\.nights).map(\.session.date.day) == [2, 1])
        query.page = 1
        query.sort = .oldest
        #expect(try ledger.database.history.page(query).groups.flatMap(\.nights).first?.session.date.day == 1)
    }

    @Test(
        "date range and filters by type and category",
        arguments: [
            (["water"], [String](), 5), (["dream"], [], 5), ([], ["physical"], 5), ([], ["mental"], 5), ([], ["dose"], 10),
            (["Brief Wake"], [], 0), (["checkin"], [], 10), (["water", "dream"], [], 10),
        ])
    func filters(types: [String], categories: [String], nights: Int) throws {
        let (ledger, _) = try tenNights()
        var query = HistoryQuery()
        query.types = Set(types)
        query.categories = Set(try categories.map { name throws(DoseError) in try HistoryCategory.named(name) })
        let page = try ledger.database.history.page(query)
        #expect(page.totalNights == nights)
        for night in page.groups.flatMap(\.nights) {
            #expect(!night.shownEvents.isEmpty)
            if types == ["water"] { #expect(night.shownEvents.allSatisfy { $0.kind == .sleep(.water) }) }
        }
    }

    @Test("a date range includes both ends")
    func range() throws {
        let (ledger, _) = try tenNights()
        var query = HistoryQuery()
        query.from = SessionKey(parsing: "2026-11-03")
        query.to = SessionKey(parsing: "2026-11-05")
        #expect(try ledger.database.history.page(query).groups.flatMap(\.nights).map(\.session.date.day) == [5, 4, 3])
    }

    @Test("newest and oldest order the nights; inside a night events always read by time")
    func eventsByTime() throws {
        let (ledger, _) = try tenNights()
        for sort in [HistorySort.newest, .oldest] {
            var query = HistoryQuery()
            query.sort = sort
            for night in try ledger.database.history.page(query).groups.flatMap(\.nights) {
                let times = night.shownEvents.map(\.occurredAt)
                #expect(times == times.sorted() && times.count > 2)
            }
        }
    }

    @Test("A–Z orders events by name, Z–A reverses")
    func alphabetical() throws {
        let (ledger, _) = try tenNights()
        var query = HistoryQuery()
        query.sort = .az
        let labels = try ledger.database.history.page(query).groups[0].nights[0].shownEvents.map(\.kind.label)
        #expect(labels == ["Dose 1", "Dose 2", "Morning check-in", "Water"])
        query.sort = .za
        #expect(try ledger.database.history.page(query).groups[0].nights[0].shownEvents.map(\.kind.label) == labels.reversed())
    }

    @Test(
        "grouping by week uses ISO weeks, by month the month",
        arguments: [
            (HistoryGrouping.week, ["2026-W45", "2026-W44"]), (.month, ["2026-11"]), (.none, [""]),
        ])
    func grouping(by grouping: HistoryGrouping, labels: [String]) throws {
        let (ledger, _) = try tenNights()
        var query = HistoryQuery()
        query.grouping = grouping
        query.to = SessionKey(parsing: "2026-11-08")
        #expect(try ledger.database.history.page(query).groups.map(\.label) == labels)
    }

    @Test("bad queries are refused with what is allowed")
    func badQueries() throws {
        let (ledger, _) = try tenNights()
        #expect(StoreFixture.refusal { _ = try HistoryCategory.named("sleepy") }?.message.contains("physical") == true)
        var query = HistoryQuery()
        query.from = SessionKey(parsing: "2026-11-05")
        query.to = SessionKey(parsing: "2026-11-01")
        #expect(StoreFixture.refusal { _ = try ledger.database.history.page(query) }?.code == .invalidInput)
        query = HistoryQuery()
        query.limit = 0
        #expect(StoreFixture.refusal { _ = try ledger.database.history.page(query) }?.code == .invalidInput)
    }

    @Test("naps are paired start to end")
    func naps() throws {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 11, 22, 13, 0))
        try StoreFixture.act(ledger, .log(event: "nap_start"), at: WallClock.date(2026, 11, 22, 13, 0), clock: clock)
        try StoreFixture.act(ledger, .log(event: "nap_end"), at: WallClock.date(2026, 11, 22, 13, 40), clock: clock)
        try StoreFixture.act(ledger, .log(event: "nap_start"), at: WallClock.date(2026, 11, 22, 15, 0), clock: clock)
        let night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2026-11-21")!).first)
        #expect(
            night.naps == [
                NapInterval(start: WallClock.date(2026, 11, 22, 13, 0), end: WallClock.date(2026, 11, 22, 13, 40)),
                NapInterval(start: WallClock.date(2026, 11, 22, 15, 0), end: nil),
            ])
    }

    /// DoseCore's refusals of a deletion at `now`, as DoseApp hands them to the store.
    static func refusals(at now: Date) -> NightDeletionCheck {
        { nights in try NightRules.refuseDeletion(of: nights, now: now, timeZone: TimeZone(identifier: "UTC")!) }
    }

    @Test("deleting a night removes it and everything in it, atomically, with an audit entry")
    func delete() throws {
        let (ledger, clock) = try tenNights()
        let deleted = try ledger.database.history.deleteNights(
            .dates([SessionKey(parsing: "2026-11-04")!]), surface: "test", refusing: Self.refusals(at: clock.store.now), clock: clock.store)
        #expect(deleted.nights == 1)
        #expect(deleted.events == 3)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions") == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dose_events") == 18)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_events") == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM morning_checkins") == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'delete_session'") == 1)
        }
        #expect(try ledger.database.history.nights(on: SessionKey(parsing: "2026-11-04")!).isEmpty)
        let missing = StoreFixture.refusal {
            _ = try ledger.database.history.deleteNights(
                .dates([SessionKey(parsing: "2026-11-04")!]), surface: "test", refusing: Self.refusals(at: clock.store.now), clock: clock.store)
        }
        #expect(missing?.code == .notFound)
    }

    @Test("tonight's open night cannot be deleted: that would let a second Dose 1 through")
    func deleteOpenRefused() throws {
        let (ledger, clock) = try StoreFixture.afterDose1()
        let before = try StoreFixture.snapshot(ledger)
        let error = StoreFixture.refusal {
            _ = try ledger.database.history.deleteNights(
                .dates([SessionKey(parsing: "2026-11-21")!]), surface: "test", refusing: Self.refusals(at: clock.store.now), clock: clock.store)
        }
        #expect(error?.code == .invalidInput)
        #expect(try StoreFixture.snapshot(ledger) == before)
    }
}

@Suite("Exports: events.csv v1 and analytics")
struct ExportTests {
    @Test(
        "CSV fields: quoting per RFC 4180 and the formula guard on free text",
        arguments: [
            ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "\"two\nlines\""),
            ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@cmd", "'@cmd"), ("\tx", "'\tx"), ("\rx", "\"'\rx\""),
            ("=A1,B1", "\"'=A1,B1\""), ("😴 ok", "😴 ok"),
            // Look-alikes a spreadsheet may also read as a formula, and formulas behind spaces or invisible characters.
            ("＝1+1", "'＝1+1"), ("＋1", "'＋1"), ("－1", "'－1"), ("＠cmd", "'＠cmd"), ("﹦1", "'﹦1"), ("−1", "'−1"),
            (" =1+1", "' =1+1"), ("\u{200B}=1", "'\u{200B}=1"), ("\u{FEFF}@x", "'\u{FEFF}@x"), ("a=1", "a=1"), ("1 - 2", "1 - 2"),
        ])
    func csvField(text: String, expected: String) {
        #expect(CSV.field(text, freeText: true) == expected)
    }

    @Test("timestamps and numbers are not guarded")
    func notGuarded() {
        #expect(CSV.field("-300") == "-300")
        #expect(CSV.field(nil) == "")
    }

    @Test("an empty database exports the header alone")
    func emptyExport() throws {
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(StoreFixture.dose1)
        #expect(try ledger.database.transfer.eventsCSV() == DataTransfer.eventsCSVHeader + "\r\n")
        #expect(
            try UseCases(store: .sqlite(ledger.database), clock: clock.store).transfer.analyticsCSV() == TransferService.analyticsCSVHeader + "\r\n")
    }

    @Test("events.csv: v1 names, dose sequence, undo rows, time order, guarded notes")
    func eventsCSV() throws {
        let (ledger, clock) = try tenNights()
        let dose1 = WallClock.date(2026, 11, 11, 22, 0)
        try StoreFixture.act(ledger, .dose1, at: dose1, clock: clock)
        try StoreFixture.act(ledger, .log(event: "dream"), at: StoreFixture.minutes(1, after: dose1), clock: clock)
        try StoreFixture.act(ledger, .undo, at: StoreFixture.minutes(1, after: dose1).addingTimeInterval(2), clock: clock)
        let csv = try ledger.database.transfer.eventsCSV()
        let lines = csv.components(separatedBy: "\r\n").dropLast()
        #expect(lines.first == DataTransfer.eventsCSVHeader)
        #expect(lines.filter { $0.contains(",dose1_taken,") }.count == 11)
        #expect(lines.filter { $0.contains(",dose2_taken,") }.count == 10)
        #expect(lines.filter { $0.contains(",dose1_taken,") }.allSatisfy { $0.contains(",America/New_York,1,") })
        #expect(lines.contains { $0.contains(",undo,user,") && $0.contains("undid dream") })
        #expect(csv.contains("\"'=HYPERLINK(\"\"x\"\"), said \"\"hi\"\"\nnext line\""))
        let times = lines.dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return fields.count > 3 && fields[3].hasSuffix("Z") ? String(fields[3]) : nil
        }
        #expect(times == times.sorted())
    }

    @Test("analytics: local times, interval, OnTime within ±10 min of target, NaturalWake before the alarm")
    func analytics() throws {
        let (ledger, clock) = try tenNights()
        let transfer = UseCases(store: .sqlite(ledger.database), clock: clock.store).transfer
        let rows = try transfer.analyticsCSV().components(separatedBy: "\r\n").dropLast()
        #expect(rows.count == 11)
        // Intervals 155…200 against target 165: on time for 155–175.
        #expect(rows[1] == "2026-11-01,22:00:00,00:35:00,155,true,true")
        #expect(rows[3] == "2026-11-03,22:00:00,00:45:00,165,true,false")
        #expect(rows[5] == "2026-11-05,22:00:00,00:55:00,175,true,false")
        #expect(rows[6] == "2026-11-06,22:00:00,01:00:00,180,false,false")
        var range = try transfer.analyticsCSV(from: SessionKey(parsing: "2026-11-09"))
        #expect(range.components(separatedBy: "\r\n").count == 4)
        // `--tz Europe/Paris`: the same nights in the call's zone.
        var paris = clock.store
        paris.timeZoneOverride = TimeZone(identifier: "Europe/Paris")
        range = try UseCases(store: .sqlite(ledger.database), clock: paris).transfer.analyticsCSV()
        #expect(range.contains("2026-11-01,04:00:00,06:35:00,155"))
    }
}

@Suite("Clear All Data")
struct ClearAllTests {
    @Test("a wrong phrase deletes nothing")
    func wrongPhrase() throws {
        let (ledger, _) = try tenNights()
        let before = try StoreFixture.snapshot(ledger)
        for phrase in ["", "Clear All Data", "clear all data — this cannot be undone.", "Clear All Data - This cannot be undone."] {
            #expect(StoreFixture.refusal { _ = try ledger.database.clearAll(confirmation: phrase) }?.code == .invalidInput)
        }
        #expect(try StoreFixture.snapshot(ledger) == before)
    }

    @Test("everything goes, exports are header-only, and no trace of a note stays in the database files")
    func clearsFiles() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.sqlite").path
        let ledger = (try AppDatabase.open(path: path)).ledger
        let clock = TestClock(StoreFixture.dose1)
        let marker = "ZQXJ-private-marker-7731"
        try StoreFixture.act(ledger, .dose1, at: StoreFixture.dose1, clock: clock, note: marker)
        for minute in 1...200 {
            try StoreFixture.act(ledger, .log(event: "dream"), at: StoreFixture.minutes(Double(minute)), clock: clock, note: "\(marker) \(minute)")
        }
        _ = try ledger.database.settings.update("target_interval", to: "195", clock: clock.store)
        let report = try ledger.database.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(report.deleted["sleep_events"] == 200)
        #expect(report.remaining.values.allSatisfy { $0 == 0 })
        #expect(try ledger.database.transfer.eventsCSV() == DataTransfer.eventsCSVHeader + "\r\n")
        #expect(try ledger.database.settings.current(machineTimeZoneID: clock.store.machineTimeZoneID).targetIntervalMinutes == 165)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(data.range(of: Data(marker.utf8)) == nil, "\(file) still holds the marker")
        }
    }
}
