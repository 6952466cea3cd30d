import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// Past nights read in PostgreSQL's own statements must be the nights the file shows: every page of history, a date's
/// nights and one night with a wearable's stages, totals and vitals, the report's nights, insights and the analytics
/// CSV's nights, from the same rows, and without a copy into SQLite.
@Suite("PostgreSQL reads past nights itself, as the file does", .needsPostgres)
struct PostgresNightRecordsTests {
    /// A night as history shows it, everything compared.
    struct Seen: Hashable {
        let session: NightSession
        let terminal: TerminalState?
        let checkIn: MorningCheckIn?
        let shown: [NightEvent]
        let naps: [NapInterval]
        let interval: Int?
        let preSleep: PreSleepLog?
        let medications: [MedicationSummary]
        let spans: [StageSpan]?
        let figures: SleepFigures?
        let heartRate: [String]?
        let means: [Double?]?

        init(_ record: NightRecord) {
            session = record.session
            terminal = record.terminalState
            checkIn = record.checkIn
            shown = record.shownEvents
            naps = record.naps
            interval = record.intervalMinutes
            preSleep = record.preSleep
            medications = record.medications
            spans = record.sleep?.spans
            figures = record.sleep?.figures
            heartRate = record.sleep?.heartRate.map { "\(ISO8601.string($0.at)) \($0.beatsPerMinute)" }
            means = record.sleep.map { [$0.meanHRV, $0.meanRespiratoryRate, $0.meanOxygenSaturation] }
        }
    }

    /// Eight nights: doses, a skip, naps, logged events, check-ins, a pre-sleep log, medications, a wearable's stages
    /// with vitals on most nights, and one night a band's totals speak for.
    static func file() throws -> AppDatabase {
        let sqlite = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
        for day in 1...8 {
            let dose1 = WallClock.date(2026, 11, day, 22, 0)
            try StoreFixture.act(sqlite.ledger, .dose1, at: dose1, clock: clock)
            try StoreFixture.act(sqlite.ledger, .log(event: "bathroom"), at: StoreFixture.minutes(Double(20 + day), after: dose1), clock: clock)
            if day == 3 {
                try StoreFixture.act(sqlite.ledger, .skip(reason: "felt fine"), at: StoreFixture.minutes(170, after: dose1), clock: clock)
            } else {
                try StoreFixture.act(sqlite.ledger, .dose2, at: StoreFixture.minutes(Double(150 + 5 * day), after: dose1), clock: clock)
            }
            if day == 5 {
                try StoreFixture.act(sqlite.ledger, .log(event: "nap_start"), at: StoreFixture.minutes(600, after: dose1), clock: clock)
                try StoreFixture.act(sqlite.ledger, .log(event: "nap_end"), at: StoreFixture.minutes(640, after: dose1), clock: clock)
            }
            if day.isMultiple(of: 2) {
                var answers = MorningCheckIn()
                answers.sleepQuality = 1 + day % 5
                answers.readiness = 1 + day % 4
                try StoreFixture.act(sqlite.ledger, .checkIn(answers), at: StoreFixture.minutes(540, after: dose1), clock: clock)
            }
        }
        try sqlite.writer.write { db in
            let nights = try Row.fetchAll(db, sql: "SELECT id, started_at, session_date FROM sleep_sessions ORDER BY started_at")
            for (index, night) in nights.enumerated() {
                let id: String = night["id"]
                let start = try #require(ISO8601.parse(night["started_at"]))
                func at(_ minutes: Double) -> String { ISO8601.string(start.addingTimeInterval(minutes * 60)) }
                if index == 1 {
                    try db.execute(
                        sql: """
                            INSERT INTO pre_sleep_logs (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note,
                                completion_state, answers_json)
                            VALUES ('pre-1', ?, ?, ?, -300, 'America/New_York', 'user', 'late coffee', 'complete', '{"stress_level":3}')
                            """, arguments: [id, at(-30), at(-30)])
                }
                if index == 1 || index == 4 {
                    for (n, medication) in ["modafinil", "armodafinil"].enumerated() {
                        try db.execute(
                            sql: """
                                INSERT INTO medication_events (id, session_id, session_date, medication_id, dose_mg, dose_amount, dose_unit,
                                    formulation, taken_at, recorded_at, utc_offset_minutes, time_zone, source, notes, confirmed_duplicate, batch_id)
                                VALUES (?, ?, ?, ?, ?, ?, 'mg', 'tablet', ?, ?, -300, 'America/New_York', 'user', ?, 0, 'b')
                                """,
                            arguments: [
                                "med-\(index)-\(n)", id, night["session_date"], medication, 100.5 + Double(n), 100.5 + Double(n),
                                at(600 - Double(n) * 5),
                                at(600), n == 0 ? "with \"food\"" : nil,
                            ])
                    }
                }
                if index == 6 {
                    // A band's totals, not stages, speak for this night.
                    try db.execute(
                        sql: """
                            INSERT INTO wearable_summaries (id, provider, source, start_at, end_at, offset_minutes, nap, in_bed_minutes, asleep_minutes,
                                light_minutes, deep_minutes, rem_minutes, awake_minutes, recovery_percent, sleep_performance_percent,
                                sleep_efficiency_percent, resting_heart_rate, hrv_ms, respiratory_rate, oxygen_saturation_percent, skin_temp_celsius,
                                imported_at)
                            VALUES ('w-7', 'whoop', 'WHOOP 4.0', ?, ?, -300, 0, 470.5, 430.25, 200, 90.5, 110, 40.25, 66, 88, 91.5, 52, 61.25, 14.5,
                                96, 33.5, ?)
                            """, arguments: [at(-20), at(460), at(900)])
                    continue
                }
                guard index != 7 else { continue }
                let stages: [(String, Double, Double)] = [
                    ("in_bed", -30, 480), ("core", 10, 100), ("deep", 100, 160), ("awake", 160, 175), ("rem", 175, 240), ("core", 240, 470),
                ]
                for (n, stage) in stages.enumerated() {
                    try db.execute(
                        sql: """
                            INSERT INTO wearable_sleep (id, provider, source, stage, start_at, end_at, start_offset_minutes, end_offset_minutes,
                                imported_at)
                            VALUES (?, 'apple_health', ?, ?, ?, ?, -300, -300, ?)
                            """, arguments: ["s-\(index)-\(n)", n == 0 ? "iPhone" : "Apple Watch", stage.0, at(stage.1), at(stage.2), at(900)])
                }
                for minute in stride(from: 0.0, through: 450, by: 30) {
                    try db.execute(
                        sql: """
                            INSERT INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                            VALUES (?, 'apple_health', 'Apple Watch', 'heart_rate', ?, ?, ?, ?)
                            """, arguments: ["hr-\(index)-\(Int(minute))", at(minute), at(minute), 50 + minute / 45, at(900)])
                }
                for (kind, value) in [("hrv_sdnn", 48.5), ("respiratory_rate", 13.25), ("oxygen_saturation", 0.955)] {
                    for n in 0..<2 {
                        try db.execute(
                            sql: """
                                INSERT INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                                VALUES (?, 'apple_health', 'Apple Watch', ?, ?, ?, ?, ?)
                                """,
                            arguments: [
                                "\(kind)-\(index)-\(n)", kind, at(60 + Double(n) * 120), at(61 + Double(n) * 120), value + Double(n + index) / 100,
                                at(900),
                            ])
                    }
                }
            }
        }
        return sqlite
    }

    @Test("every page, a date's nights, each night, the report's nights, insights and the dosed nights: the file's, with no copy")
    func sameNightsAsTheFile() throws {
        let sqlite = try Self.file()
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.fill("local", with: try sqlite.contents(), withService: true)
        let copies = store.sqliteCopiesMade

        var queries: [HistoryQuery] = [HistoryQuery()]
        var paged = HistoryQuery()
        paged.limit = 3
        paged.page = 2
        queries.append(paged)
        var named = HistoryQuery()
        named.types = ["bathroom", "dose2_skipped"]
        named.sort = .az
        queries.append(named)
        var weekly = HistoryQuery()
        weekly.grouping = .week
        weekly.sort = .oldest
        weekly.categories = [.checkin]
        queries.append(weekly)
        var dated = HistoryQuery()
        dated.from = SessionKey(year: 2026, month: 11, day: 3)
        dated.to = SessionKey(year: 2026, month: 11, day: 6)
        dated.sort = .za
        dated.grouping = .month
        queries.append(dated)
        var empty = HistoryQuery()
        empty.from = SessionKey(year: 2027, month: 1, day: 1)
        queries.append(empty)
        for query in queries {
            let file = try sqlite.history.page(query)
            let native = try store.historyPage(of: "local", query)
            #expect(native.totalNights == file.totalNights && native.page == file.page && native.pageCount == file.pageCount)
            #expect(native.groups.map(\.label) == file.groups.map(\.label))
            #expect(native.groups.map { $0.nights.map(Seen.init) } == file.groups.map { $0.nights.map(Seen.init) }, "\(query)")
        }

        let everyNight = try sqlite.history.nights(from: SessionKey(year: 2026, month: 11, day: 1)!, to: SessionKey(year: 2026, month: 11, day: 30)!)
        #expect(everyNight.count == 8)
        #expect(everyNight.filter { $0.sleep != nil }.count == 7, "the nights a wearable speaks for")
        #expect(
            everyNight.contains { $0.preSleep != nil } && everyNight.contains { $0.medications.count == 2 }
                && everyNight.contains { !$0.naps.isEmpty })
        var withVitals: [NightRecord] = []
        for night in everyNight {
            let native = try #require(try store.night(of: "local", id: night.session.id))
            let file = try #require(try sqlite.history.night(id: night.session.id))
            withVitals.append(file)
            #expect(Seen(native) == Seen(file))
            #expect(
                try store.nights(of: "local", on: night.session.date).map(Seen.init)
                    == (try sqlite.history.nights(on: night.session.date)).map(Seen.init))
        }
        #expect(withVitals.contains { ($0.sleep?.heartRate.count ?? 0) > 10 && $0.sleep?.meanHRV != nil }, "a night's vitals are read")
        #expect(try store.night(of: "local", id: SessionID(rawValue: "no-such-night")) == nil)

        let (from, to) = (SessionKey(year: 2026, month: 11, day: 2)!, SessionKey(year: 2026, month: 11, day: 7)!)
        for chunk in [1, 2, 366] {
            var seen: [Seen] = []
            try store.forEachNight(of: "local", from: from, to: to, chunksOf: chunk) { seen.append(Seen($0)) }
            #expect(seen == (try sqlite.history.nights(from: from, to: to)).map(Seen.init), "chunks of \(chunk)")
        }
        let insights = try store.insightNights(of: "local", from: from, to: to)
        #expect(insights == (try sqlite.history.insightNights(from: from, to: to)))
        #expect(insights.contains { $0.sleep != nil } && insights.contains { $0.medications.count == 2 })
        for (start, end) in [(nil, nil), (from, to), (to, nil) as (SessionKey?, SessionKey?)] {
            let native = try store.dosedNights(of: "local", from: start, to: end)
            let file = try sqlite.transfer.dosedNights(from: start, to: end)
            #expect(
                native.map { "\($0.date) \($0.dose1) \(String(describing: $0.dose2)) \(String(describing: $0.intervalMinutes)) \($0.snoozes)" }
                    == file.map { "\($0.date) \($0.dose1) \(String(describing: $0.dose2)) \(String(describing: $0.intervalMinutes)) \($0.snoozes)" })
        }
        #expect(store.sqliteCopiesMade == copies, "no copy into SQLite")
    }

    @Test("the export bundle from PostgreSQL's own statements is the file's to the byte, every awkward value included")
    func sameBundleAsTheFile() throws {
        let sqlite = try Self.file()
        try sqlite.writer.write { db in
            try PostgresSQLiteCopyTests.fill(db)
            // The awkward setting is for a raw copy; a bundle lists the settings in force, so it must be one.
            try db.execute(sql: "UPDATE settings SET value = 'Asia/Kathmandu' WHERE key = 'time_zone'")
        }
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.fill("local", with: try sqlite.contents(), withService: true)
        let copies = store.sqliteCopiesMade
        let folder = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(WallClock.date(2026, 11, 29, 9, 0)).store
        let (file, native) = (folder.appendingPathComponent("file.zip").path, folder.appendingPathComponent("native.zip").path)
        let fileCounts = try sqlite.transfer.exportBundle(to: file, analytics: "Date\n", clock: clock)
        // A cursor fetch of two rows at a time crosses every table's rows more than once.
        let nativeCounts = try store.exportBundle(of: "local", to: native, analytics: "Date\n", clock: clock, rowsPerFetch: 2)
        #expect(nativeCounts == fileCounts)
        #expect(fileCounts["wearable_vitals.csv"] ?? 0 > 50 && fileCounts["inventory.csv"] == 1 && fileCounts["audit_log.csv"] == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: native)) == (try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(store.sqliteCopiesMade == copies, "no copy into SQLite")
    }
}
