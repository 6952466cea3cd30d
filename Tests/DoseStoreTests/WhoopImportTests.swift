import DoseApp
import DoseCore
import DoseFuzzing
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// Hand-written WHOOP exports, with the columns WHOOP's export has (in its order).
enum WhoopFixture {
    static let sleepHeader =
        "Cycle start time,Cycle end time,Cycle timezone,Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %,Nap"
    static let cycleHeader =
        "Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),Skin temp (celsius),Blood oxygen %,Day Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm),Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %"

    /// The night of 2026-11-20 in New York (UTC-05:00): asleep 23:10–06:55, 420 min asleep of 465 in bed.
    static let sleep =
        "2026-11-20 23:10:00,2026-11-21 23:05:00,UTC-05:00,2026-11-20 23:10:00,2026-11-21 06:55:00,88,14.6,420,465,210,95,115,45,480,20,90,70,false"
    static let nap = "2026-11-20 23:10:00,2026-11-21 23:05:00,UTC-05:00,2026-11-21 14:00:00,2026-11-21 14:40:00,,,35,40,25,5,5,5,,,,,true"
    static let cycle =
        "2026-11-20 23:10:00,2026-11-21 23:05:00,UTC-05:00,62,54,48.5,33.4,95.2,9.8,2100,150,70,2026-11-20 23:10:00,2026-11-21 06:55:00,88,14.6,420,465,210,95,115,45,480,20,90,70"
    /// Today's cycle, still under way: no sleep yet.
    static let openCycle = "2026-11-21 23:05:00,,UTC-05:00,,,,,,3.1,800,120,66,,,,,,,,,,,,,,"

    static func sleeps(_ rows: [String] = [sleep, nap]) -> String { ([sleepHeader] + rows).joined(separator: "\n") + "\n" }
    static func cycles(_ rows: [String] = [cycle, openCycle]) -> String { ([cycleHeader] + rows).joined(separator: "\n") + "\n" }

    static func write(_ text: String, name: String = "sleeps.csv") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("whoop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A zip of named files made by Python's zipfile (an independent writer), entries under `folder/` when given.
    static func zip(_ files: [(String, String)], folder: String = "") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whoop-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\nfor i in range(2, len(sys.argv), 2): z.writestr(sys.argv[i], open(sys.argv[i + 1]).read())\nz.close()",
        ]
        let out = directory.appendingPathComponent("my_whoop_data.zip").path
        arguments.append(out)
        for (index, (name, text)) in files.enumerated() {
            let path = directory.appendingPathComponent("part\(index)").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += [folder + name, path]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return out
    }

    static func count(_ database: AppDatabase) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM wearable_summaries") ?? -1 }
    }
}

@Suite("Reading WHOOP's export")
struct WhoopExportTests {
    @Test("a sleep's local times at the cycle's offset are instants; the minutes and readings are as written; naps marked")
    func values() throws {
        let read = try WhoopExport.read([.sleeps: WhoopFixture.sleeps(), .cycles: WhoopFixture.cycles()])
        #expect(read.sleeps.count == 2 && read.passedBy == 1 && read.notes.isEmpty)
        let main = try #require(read.sleeps.first { !$0.isNap })
        // 23:10 at UTC−05:00 is 04:10Z the next day; 06:55 is 11:55Z.
        #expect(ISO8601.string(main.start) == "2026-11-21T04:10:00.000Z" && ISO8601.string(main.end) == "2026-11-21T11:55:00.000Z")
        #expect(main.offsetMinutes == -300 && main.asleepMinutes == 420 && main.inBedMinutes == 465 && main.lightMinutes == 210)
        #expect(main.deepMinutes == 95 && main.remMinutes == 115 && main.awakeMinutes == 45)
        // The sleeps' row and the cycle's row are one sleep: the cycle's readings joined to it.
        #expect(main.recovery.recoveryPercent == 62 && main.recovery.restingHeartRate == 54 && main.recovery.hrvMilliseconds == 48.5)
        #expect(
            main.recovery.oxygenSaturationPercent == 95.2 && main.recovery.skinTemperatureCelsius == 33.4 && main.recovery.respiratoryRate == 14.6)
        #expect(main.recovery.sleepPerformancePercent == 88 && main.recovery.sleepEfficiencyPercent == 90)
        let nap = try #require(read.sleeps.first { $0.isNap })
        #expect(nap.asleepMinutes == 35 && nap.recovery.recoveryPercent == nil && nap.recovery.sleepPerformancePercent == nil)
    }

    @Test(
        "offsets: UTC±hh:mm, a bare ±hh:mm and UTC; whole and half-hour zones; seconds optional",
        arguments: [
            ("UTC-05:00", "2026-11-20 23:10:00", "2026-11-21T04:10:00.000Z"), ("UTC+05:30", "2026-11-20 23:10:00", "2026-11-20T17:40:00.000Z"),
            ("UTC+00:00", "2026-11-20 23:10", "2026-11-20T23:10:00.000Z"), ("UTC", "2026-11-20 23:10:00", "2026-11-20T23:10:00.000Z"),
            ("+13:45", "2026-11-20 23:10:00", "2026-11-20T09:25:00.000Z"), ("UTC-09:30", "2024-02-29 23:59:59", "2024-03-01T09:29:59.000Z"),
            ("UTC+04:00", "1970-01-01 04:00:00", "1970-01-01T00:00:00.000Z"),
        ])
    func offsets(_ zone: String, _ local: String, _ utc: String) throws {
        let offset = try #require(WhoopExport.offsetMinutes(zone))
        #expect(WhoopExport.instant(local, offsetMinutes: offset).map(ISO8601.string) == utc)
    }

    @Test("a DST night is read at the one offset WHOOP gives the cycle: New York's fall-back night at UTC-04:00")
    func fallBack() throws {
        let row =
            "2026-10-31 23:00:00,2026-11-01 23:00:00,UTC-04:00,2026-10-31 23:00:00,2026-11-01 07:00:00,90,15,440,480,220,100,120,40,480,0,92,80,false"
        let read = try WhoopExport.read([.sleeps: WhoopFixture.sleeps([row])])
        let sleep = try #require(read.sleeps.first)
        #expect(ISO8601.string(sleep.start) == "2026-11-01T03:00:00.000Z" && ISO8601.string(sleep.end) == "2026-11-01T11:00:00.000Z")
    }

    @Test("a column WHOOP added is reported by name and the rest is read; a column renamed is refused naming what is missing and what is unknown")
    func columns() throws {
        let added = WhoopFixture.sleepHeader + ",Sleep cycles"
        let read = try WhoopExport.read([.sleeps: ([added] + [WhoopFixture.sleep + ",4"]).joined(separator: "\n")])
        #expect(read.sleeps.count == 1 && read.notes == ["sleeps.csv: columns not read, unknown to DoseTap: 'Sleep cycles'."])
        let renamed = WhoopFixture.sleepHeader.replacingOccurrences(of: "Deep (SWS) duration (min)", with: "Deep duration (min)")
        #expect {
            _ = try WhoopExport.read([.sleeps: ([renamed, WhoopFixture.sleep]).joined(separator: "\n")])
        } throws: { error in
            (error as? DoseError)?.message.contains(
                "sleeps.csv lacks the columns 'Deep (SWS) duration (min)'; it has columns DoseTap does not know: 'Deep duration (min)'") == true
        }
    }
}

@Suite("Importing WHOOP's export into the store")
struct WhoopImportTests {
    static let nightStart = WallClock.date(2026, 11, 20, 23, 0)

    static func database(withNight: Bool = true) throws -> (AppDatabase, TestClock) {
        let database = try AppDatabase.inMemory()
        let clock = TestClock(nightStart)
        if withNight {
            try StoreFixture.act(database.ledger, .dose1, at: nightStart, clock: clock)
            try StoreFixture.act(database.ledger, .dose2, at: nightStart.addingTimeInterval(170 * 60), clock: clock)
        }
        clock.set(WallClock.date(2026, 11, 21, 13, 0))
        return (database, clock)
    }

    @Test("the two files of one export make one sleep; the same export again adds nothing; the cycles file later fills in the recovery")
    func idempotent() throws {
        let (database, clock) = try Self.database()
        let sleeps = try WhoopFixture.write(WhoopFixture.sleeps())
        let first = try database.transfer.importFile(at: sleeps, clock: clock.store)
        #expect(try first.imported["sleeps"] == 2 && WhoopFixture.count(database) == 2)
        let night = try #require(database.history.nights(on: SessionKey(year: 2026, month: 11, day: 20)!).first)
        #expect(night.sleep?.figures.recovery?.recoveryPercent == nil && night.sleep?.figures.minutesAsleep == 420)
        #expect(try database.transfer.importFile(at: sleeps, clock: clock.store).skipped["sleeps"] == 2)
        let cycles = try WhoopFixture.write(WhoopFixture.cycles(), name: "physiological_cycles.csv")
        let later = try database.transfer.importFile(at: cycles, clock: clock.store)
        #expect(try later.imported["sleeps filled in"] == 1 && later.imported["sleeps", default: 0] == 0 && WhoopFixture.count(database) == 2)
        #expect(later.notes.contains { $0.hasPrefix("1 cycles without a sleep") })
        #expect(try database.transfer.importFile(at: cycles, clock: clock.store).skipped["sleeps"] == 1)
        let filled = try #require(database.history.nights(on: SessionKey(year: 2026, month: 11, day: 20)!).first?.sleep?.figures)
        #expect(filled.recovery?.recoveryPercent == 62 && filled.wasoMinutes == 45 && filled.wakeCount == nil && !filled.hasTimeline)
        // The zip of both, at the root or in a folder, adds nothing more.
        for folder in ["", "my_whoop_data_2026_11_21/"] {
            let zip = try WhoopFixture.zip(
                [("sleeps.csv", WhoopFixture.sleeps()), ("physiological_cycles.csv", WhoopFixture.cycles()), ("workouts.csv", "x")], folder: folder)
            let report = try database.transfer.importFile(at: zip, clock: clock.store)
            #expect(report.importedTotal == 0 && report.skipped["sleeps"] == 2, "\(report)")
        }
    }

    @Test("WHOOP's sleep and a watch's for the same night: the watch by default, WHOOP once the priority puts it first; its recovery either way")
    func priority() throws {
        let (database, clock) = try Self.database()
        let zip = try WhoopFixture.zip([("sleeps.csv", WhoopFixture.sleeps()), ("physiological_cycles.csv", WhoopFixture.cycles())])
        _ = try database.transfer.importFile(at: zip, clock: clock.store)
        let watch = [
            HealthFixture.sleep("AsleepCore", "2026-11-20 23:00:00 -0500", "2026-11-21 00:30:00 -0500"),
            HealthFixture.sleep("AsleepDeep", "2026-11-21 00:30:00 -0500", "2026-11-21 01:20:00 -0500"),
            HealthFixture.sleep("AsleepREM", "2026-11-21 01:20:00 -0500", "2026-11-21 06:40:00 -0500"),
        ]
        let health = try HealthFixture.write(HealthFixture.export(watch.joined(separator: "\n")))
        _ = try database.transfer.importFile(at: health, clock: clock.store)
        let date = SessionKey(year: 2026, month: 11, day: 20)!
        let byWatch = try #require(database.history.nights(on: date).first?.sleep?.figures)
        // 90 + 50 + 320 = 460 minutes asleep; Dose 2 at 01:50 local, in REM, 30 min after deep ended at 01:20.
        #expect(byWatch.sources == ["Alice’s Apple Watch"] && byWatch.minutesAsleep == 460 && byWatch.stageAtDose2 == .rem)
        #expect(byWatch.minutesFromDeepToDose2 == 30 && byWatch.recovery?.recoveryPercent == 62)
        _ = try database.settings.update("sleep_source_priority", to: "whoop,watch", clock: clock.store)
        let byWhoop = try #require(database.history.nights(on: date).first?.sleep?.figures)
        #expect(byWhoop.sources == ["WHOOP"] && byWhoop.minutesAsleep == 420 && byWhoop.stageAtDose2 == nil)
        // Insights read the same night the same way.
        let insight = try #require(database.history.insightNights(from: date, to: date).first)
        #expect(insight.sleep == byWhoop)
        // sessions.csv carries the figures WHOOP gave and leaves what it does not tell empty.
        let csv = try UseCases(store: .sqlite(database), clock: clock.store).transfer.sessionsCSV()
        #expect(csv.contains(",WHOOP,23:10,06:55,420,45,,95,115,210,45,,,62,54,48.5\r\n"), "\(csv)")
    }

    /// WHOOP rows spoiled one way each; every one must be refused with the file, the row and the column, and change nothing.
    static let hostile: [(name: String, file: String, text: String, says: String)] = {
        let header = WhoopFixture.sleepHeader
        func sleepRow(_ column: Int, _ value: String) -> String {
            var fields = WhoopFixture.sleep.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[column] = value
            return fields.joined(separator: ",")
        }
        func cycleRow(_ column: Int, _ value: String) -> String {
            var fields = WhoopFixture.cycle.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[column] = value
            return fields.joined(separator: ",")
        }
        var cases: [(String, String, String, String)] = [
            ("empty file", "sleeps.csv", "", "or WHOOP's export (its zip, sleeps.csv, physiological_cycles.csv)"),
            ("header only, wrong", "sleeps.csv", "Cycle start time,Foo\n", "neither a 'Nap' column"),
            (
                "a required column missing", "sleeps.csv", header.replacingOccurrences(of: ",Sleep onset", with: "") + "\n",
                "lacks the columns 'Sleep onset'"
            ),
            ("a column named twice", "sleeps.csv", header + ",Nap\n" + WhoopFixture.sleep + ",false\n", "names a column twice"),
            ("a ragged row", "sleeps.csv", header + "\n" + WhoopFixture.sleep + ",extra\n", "sleeps.csv row 2"),
            ("an unclosed quote", "sleeps.csv", header + "\n\"" + WhoopFixture.sleep + "\n", "sleeps.csv row"),
            ("a bare carriage return", "sleeps.csv", header + "\r" + WhoopFixture.sleep + "\n", "carriage return"),
            ("zone missing", "sleeps.csv", header + "\n" + sleepRow(2, "") + "\n", "'Cycle timezone'"),
            ("zone named, not an offset", "sleeps.csv", header + "\n" + sleepRow(2, "America/New_York") + "\n", "'Cycle timezone'"),
            ("zone beyond 18 hours", "sleeps.csv", header + "\n" + sleepRow(2, "UTC+19:00") + "\n", "'Cycle timezone'"),
            ("zone minutes 60", "sleeps.csv", header + "\n" + sleepRow(2, "UTC-04:60") + "\n", "'Cycle timezone'"),
            ("onset as a US date", "sleeps.csv", header + "\n" + sleepRow(3, "11/20/2026 23:10") + "\n", "'Sleep onset'"),
            ("onset on 30 February", "sleeps.csv", header + "\n" + sleepRow(3, "2026-02-30 23:10:00") + "\n", "'Sleep onset'"),
            ("onset at 24:10", "sleeps.csv", header + "\n" + sleepRow(3, "2026-11-20 24:10:00") + "\n", "'Sleep onset'"),
            ("onset as epoch seconds", "sleeps.csv", header + "\n" + sleepRow(3, "1763694600") + "\n", "'Sleep onset'"),
            ("onset in 1969", "sleeps.csv", header + "\n" + sleepRow(3, "1969-12-31 23:10:00") + "\n", "'Sleep onset'"),
            ("wake missing", "sleeps.csv", header + "\n" + sleepRow(4, "") + "\n", "'Wake onset'"),
            ("wake before onset", "sleeps.csv", header + "\n" + sleepRow(4, "2026-11-20 22:00:00") + "\n", "must come after 'Sleep onset'"),
            ("wake equal to onset", "sleeps.csv", header + "\n" + sleepRow(4, "2026-11-20 23:10:00") + "\n", "must come after"),
            ("a sleep of 25 hours", "sleeps.csv", header + "\n" + sleepRow(4, "2026-11-22 00:10:00") + "\n", "within 24 hours"),
            ("asleep NaN", "sleeps.csv", header + "\n" + sleepRow(7, "NaN") + "\n", "'Asleep duration (min)'"),
            ("asleep inf", "sleeps.csv", header + "\n" + sleepRow(7, "inf") + "\n", "'Asleep duration (min)'"),
            ("asleep negative", "sleeps.csv", header + "\n" + sleepRow(7, "-5") + "\n", "'Asleep duration (min)'"),
            ("asleep over a day", "sleeps.csv", header + "\n" + sleepRow(7, "1441") + "\n", "'Asleep duration (min)'"),
            ("in bed in exponent form", "sleeps.csv", header + "\n" + sleepRow(8, "4.65e2") + "\n", "'In bed duration (min)'"),
            ("deep in hex", "sleeps.csv", header + "\n" + sleepRow(10, "0x5F") + "\n", "'Deep (SWS) duration (min)'"),
            ("REM with a unit", "sleeps.csv", header + "\n" + sleepRow(11, "115 min") + "\n", "'REM duration (min)'"),
            ("awake with a comma decimal", "sleeps.csv", header + "\n" + sleepRow(12, "\"45,5\"") + "\n", "'Awake duration (min)'"),
            ("performance 101", "sleeps.csv", header + "\n" + sleepRow(5, "101") + "\n", "'Sleep performance %'"),
            ("respiratory rate 90", "sleeps.csv", header + "\n" + sleepRow(6, "90") + "\n", "'Respiratory rate (rpm)'"),
            ("nap maybe", "sleeps.csv", header + "\n" + sleepRow(17, "maybe") + "\n", "'Nap'"),
            ("a 2 MB cell", "sleeps.csv", header + "\n" + sleepRow(7, String(repeating: "9", count: 2_000_000)) + "\n", "'Asleep duration (min)'"),
            ("recovery 150", "physiological_cycles.csv", WhoopFixture.cycles([cycleRow(3, "150")]), "'Recovery score %'"),
            ("resting heart rate 0", "physiological_cycles.csv", WhoopFixture.cycles([cycleRow(4, "0")]), "'Resting heart rate (bpm)'"),
            ("HRV negative", "physiological_cycles.csv", WhoopFixture.cycles([cycleRow(5, "-1")]), "'Heart rate variability (ms)'"),
            ("skin at 60 °C", "physiological_cycles.csv", WhoopFixture.cycles([cycleRow(6, "60")]), "'Skin temp (celsius)'"),
            ("blood oxygen 20 %", "physiological_cycles.csv", WhoopFixture.cycles([cycleRow(7, "20")]), "'Blood oxygen %'"),
            (
                "cycles without recovery columns", "physiological_cycles.csv",
                WhoopFixture.cycleHeader.replacingOccurrences(of: "Recovery score %,", with: "") + "\n", "neither a 'Nap' column"
            ),
        ]
        // A bad row after good ones: nothing before it is kept either.
        cases.append(("a bad row after good ones", "sleeps.csv", WhoopFixture.sleeps([WhoopFixture.nap, sleepRow(7, "lots")]), "sleeps.csv row 2"))
        return cases
    }()

    @Test("hostile WHOOP files are refused with the file, row and column, and the database is unchanged", arguments: hostile.indices)
    func refused(_ index: Int) throws {
        let spoiled = Self.hostile[index]
        let (database, clock) = try Self.database()
        let path = try WhoopFixture.write(spoiled.text, name: spoiled.file)
        FuzzCorpus.keep(URL(fileURLWithPath: path), as: .whoopCSV, named: spoiled.name)
        let before = try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM audit_log ORDER BY id").count }
        var message = ""
        #expect {
            _ = try database.transfer.importFile(at: path, clock: clock.store)
        } throws: { error in
            message = (error as? DoseError)?.message ?? "\(error)"
            return error is DoseError
        }
        #expect(message.contains(spoiled.says), "\(spoiled.name): \(message)")
        #expect(!message.contains("1763694600") && !message.contains("0x5F") && !message.contains("999999"), "the value is not echoed")
        #expect(try WhoopFixture.count(database) == 0)
        #expect(try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM audit_log ORDER BY id").count } == before)
    }

    @Test("hostile WHOOP zips: a path out of the folder, a zip without either file, a file over its header's size are refused")
    func hostileZips() throws {
        let (database, clock) = try Self.database()
        let escape = try WhoopFixture.zip([("../sleeps.csv", WhoopFixture.sleeps())])
        #expect(throws: DoseError.self) { _ = try database.transfer.importFile(at: escape, clock: clock.store) }
        let neither = try WhoopFixture.zip([("workouts.csv", "Workout start time\n"), ("journal_entries.csv", "Cycle start time\n")])
        #expect {
            _ = try database.transfer.importFile(at: neither, clock: clock.store)
        } throws: { error in (error as? DoseError)?.message.contains("WHOOP's zip holds neither sleeps.csv nor physiological_cycles.csv") == true }
        #expect(try WhoopFixture.count(database) == 0)
    }
}
