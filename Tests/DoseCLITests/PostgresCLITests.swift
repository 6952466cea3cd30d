import Foundation
import Testing

/// The built binary on PostgreSQL (`--database URL`, `DOSETAP_DATABASE_URL`) beside the same commands on a SQLite file:
/// tonight's commands must answer the same words, JSON and exit codes on both.
@Suite("The command line on PostgreSQL answers as on SQLite", .readsSQLiteFile)
struct PostgresCLITests {
    static let url = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_URL"]
    static let skipped = "PostgreSQL tests skipped: set DOSETAP_TEST_POSTGRES_URL=postgres://USER@127.0.0.1:PORT/DATABASE (.ci/run does)"

    /// A URL for a new store of its own (a fresh schema in the test server).
    static func freshURL() throws -> String {
        let base = try #require(url)
        let schema = "cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)"
    }

    /// Ids are made fresh on each store; everything else must match.
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "ID", options: .regularExpression)
    }

    /// stderr with the store's place named alike.
    static func notes(_ text: String, place: String) -> String {
        masked(text).split(separator: "\n")
            .map { $0.hasPrefix("DoseTap keeps your dose log in \(place)") ? "DoseTap keeps your dose log in STORE." : String($0) }
            .joined(separator: "\n")
    }

    /// An Apple Health export of the night of 2026-11-21: sleep stages and vitals, so history, insights and the report
    /// read the wearable tables on both stores.
    static let healthExport: String = {
        let sleep = { (value: String, start: String, end: String) in
            #"<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="\#(start)" endDate="\#(end)" value="HKCategoryValueSleepAnalysis\#(value)"/>"#
        }
        let vital = { (type: String, unit: String, at: String, value: String) in
            #"<Record type="HKQuantityTypeIdentifier\#(type)" sourceName="Apple Watch" unit="\#(unit)" startDate="\#(at)" endDate="\#(at)" value="\#(value)"/>"#
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
            \(sleep("AsleepCore", "2026-11-21 22:40:00 -0500", "2026-11-22 00:10:00 -0500"))
            \(sleep("AsleepDeep", "2026-11-22 00:10:00 -0500", "2026-11-22 01:20:00 -0500"))
            \(sleep("Awake", "2026-11-22 01:20:00 -0500", "2026-11-22 01:40:00 -0500"))
            \(sleep("AsleepREM", "2026-11-22 01:40:00 -0500", "2026-11-22 06:50:00 -0500"))
            \(vital("HeartRate", "count/min", "2026-11-22 02:00:00 -0500", "54"))
            \(vital("RespiratoryRate", "count/min", "2026-11-22 03:00:00 -0500", "14.5"))
            </HealthData>
            """
    }()

    /// Runs `steps` on a fresh SQLite file and a fresh PostgreSQL store, with and without `--json`, and expects the same
    /// stdout, stderr and exit status from both (ids and each store's own folder masked). `FOLDER` in an argument is the
    /// store's own scratch folder.
    /// Returns the exit status of each step on SQLite (from the `--json` pass), so a test can say which must succeed.
    @discardableResult
    static func expectSame(_ steps: [(arguments: [String], now: String)], setUp: (URL) throws -> Void = { _ in }) throws -> [Int32] {
        var statuses: [Int32] = []
        for json in [true, false] {
            let sqliteCLI = try CLI()
            let store = try freshURL()
            let folder = sqliteCLI.directory.appendingPathComponent("postgres")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try setUp(sqliteCLI.directory)
            try setUp(folder)
            for step in steps {
                let onSQLite = try sqliteCLI.run(
                    step.arguments.map { $0.replacingOccurrences(of: "FOLDER", with: sqliteCLI.directory.path) }, now: step.now, json: json)
                var arguments =
                    step.arguments.map { $0.replacingOccurrences(of: "FOLDER", with: folder.path) }
                    + ["--database", store, "--tz", sqliteCLI.zone, "--now", CLI.instant(step.now, zone: sqliteCLI.zone)]
                if json { arguments.append("--json") }
                let onPostgres = try CLI.inProcess(arguments)
                if json { statuses.append(onSQLite.status) }
                let label = "\(step.arguments.joined(separator: " ")) at \(step.now)\(json ? " --json" : "")"
                let mask = { (text: String, folder: String) in masked(text.replacingOccurrences(of: folder, with: "FOLDER")) }
                #expect(onPostgres.status == onSQLite.status, "\(label): \(onPostgres.stderr) \(onPostgres.stdout)")
                #expect(mask(onPostgres.stdout, folder.path) == mask(onSQLite.stdout, sqliteCLI.directory.path), "\(label)")
                #expect(notes(onPostgres.stderr, place: "postgres://") == notes(onSQLite.stderr, place: sqliteCLI.database), "\(label)")
            }
        }
        return statuses
    }

    @Test(
        "a night of commands: the same stdout, stderr and exit status on a SQLite file and on PostgreSQL",
        .enabled(if: url != nil, Comment(rawValue: skipped)))
    func sameNight() throws {
        let cli = try CLI()
        let postgres = try Self.freshURL()
        try Self.expectSame([
            (["status"], "2026-11-21 21:00"),
            (["dose2"], "2026-11-21 21:10"),
            (["dose1"], "2026-11-21 22:30"),
            (["dose1"], "2026-11-21 22:35"),
            (["log", "bathroom"], "2026-11-21 23:00"),
            (["log", "Bathroom"], "2026-11-21 23:00:30"),
            (["snooze"], "2026-11-22 00:40"),
            (["dose2"], "2026-11-22 00:59"),
            (["status"], "2026-11-22 00:59:30"),
            (["snooze"], "2026-11-22 01:01"),
            (["undo"], "2026-11-22 01:01:02"),
            (["dose2"], "2026-11-22 01:10"),
            (["dose2"], "2026-11-22 01:11"),
            (["settings", "set", "target_interval", "999"], "2026-11-22 01:12"),
            (["settings", "set", "cooldown.Brief Wake", "30"], "2026-11-22 01:12"),
            (["settings", "list"], "2026-11-22 01:12"),
            (["wake"], "2026-11-22 02:00"),
            (["wake", "--yes"], "2026-11-22 02:00"),
            (["checkin"], "2026-11-22 02:01"),
            (["status"], "2026-11-22 02:30"),
            (["dose1"], "2026-11-22 03:00"),
            (["status"], "2026-11-22 21:00"),
        ])
        // The environment variable chooses the store as --database does; --db beside it names a file instead.
        let viaEnvironment = try CLI.inProcess(
            ["status", "--json", "--now", CLI.instant("2026-11-21 23:00", zone: cli.zone)], environment: ["DOSETAP_DATABASE_URL": postgres])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
        #expect(try CLI.inProcess(["dose1", "--json", "--db", cli.database, "--database", postgres]).status == 64, "two stores at once are refused")
    }

    @Test(
        "the records around the night: setup, journal, medications, supply, history, insights, exports, imports, deletion",
        .enabled(if: url != nil, Comment(rawValue: skipped)))
    func sameRecords() throws {
        let statuses = try Self.expectSame(
            [
                (["history"], "2026-11-20 12:00"),
                (
                    [
                        "setup", "--bedtime", "22:30", "--wake-time", "07:00", "--time-zone", "America/New_York", "--product", "xywav", "--dose1",
                        "2.25",
                        "--dose2", "2.25", "--target", "180", "--accept-disclaimer",
                    ], "2026-11-20 12:00"
                ),
                (["presleep", "--from-json", "FOLDER/presleep.json"], "2026-11-21 22:00"),
                (["dose1"], "2026-11-21 22:30"),
                (["med", "log", "modafinil:200mg"], "2026-11-21 22:31"),
                (["med", "log", "modafinil:200mg"], "2026-11-21 22:32"),
                (["med", "entries"], "2026-11-21 22:33"),
                (["log", "bathroom"], "2026-11-21 23:00"),
                (["dose2"], "2026-11-22 01:35"),
                (["checkin"], "2026-11-22 07:00"),
                (["import", "FOLDER/health.xml"], "2026-11-22 07:02"),
                (["history"], "2026-11-22 07:05"),
                (["session", "show", "2026-11-21"], "2026-11-22 07:05"),
                (["supply", "log", "--bottles", "1"], "2026-11-22 08:00"),
                (["supply"], "2026-11-22 08:00"),
                (["insights"], "2026-11-22 08:00"),
                (["planner"], "2026-11-22 08:00"),
                (["alarm", "log", "2026-11-21"], "2026-11-22 08:00"),
                (["device", "list"], "2026-11-22 08:00"),
                (["export"], "2026-11-22 08:00"),
                (["export", "--format", "analytics"], "2026-11-22 08:00"),
                (["export", "--format", "sessions"], "2026-11-22 08:00"),
                (["export", "--format", "bundle", "--out", "FOLDER/backup.zip"], "2026-11-22 08:00"),
                (["report", "--out", "FOLDER/report.html"], "2026-11-22 08:00"),
                (["session", "delete", "2026-11-21", "--yes"], "2026-11-22 10:00"),
                (["history"], "2026-11-22 10:00"),
                (["import", "FOLDER/backup.zip"], "2026-11-22 10:10"),
                (["import", "FOLDER/backup.zip"], "2026-11-22 10:11"),
                (["history"], "2026-11-22 10:12"),
                (["clear-all", "--confirm", "Clear All Data — This cannot be undone."], "2026-11-22 10:20"),
                (["history"], "2026-11-22 10:21"),
                (["supply"], "2026-11-22 10:21"),
            ],
            setUp: { folder in
                try Data("{}".utf8).write(to: folder.appendingPathComponent("presleep.json"))
                try Self.healthExport.write(to: folder.appendingPathComponent("health.xml"), atomically: true, encoding: .utf8)
            })
        // Every step succeeds but the second medication (the duplicate guard refuses it, exit 3) and the second import
        // (which adds nothing and says so).
        #expect(statuses.enumerated().filter { $0.element != 0 }.map(\.offset) == [5], "\(statuses)")
    }

    @Test(
        "pages of history, one date's nights, a period's insights and report: the same on both stores, whatever each copies",
        .enabled(if: url != nil, Comment(rawValue: skipped)))
    func sameNightsRead() throws {
        var steps: [(arguments: [String], now: String)] = []
        for day in 16...21 {
            let next = day + 1
            steps += [(["dose1"], "2026-11-\(day) 22:30"), (["log", "bathroom"], "2026-11-\(day) 23:10")]
            if day == 16 {
                // An undo, and notes a spreadsheet could take for a formula: events.csv writes both the same from either store.
                steps += [
                    (["log", "water", "--note", "=SUM(1,2), \"quoted\""], "2026-11-16 23:30"), (["undo"], "2026-11-16 23:30"),
                    (["log", "water", "--note", "+1, then -1"], "2026-11-16 23:40"),
                ]
            }
            steps += [
                (["dose2"], "2026-11-\(next) 01:35"), (["log", "wake_final"], "2026-11-\(next) 07:00"), (["checkin"], "2026-11-\(next) 07:05"),
            ]
        }
        let reads: [[String]] = [
            ["history"], ["history", "--limit", "1", "--page", "2"], ["history", "--limit", "2", "--page", "2", "--sort", "oldest"],
            ["history", "--limit", "4", "--page", "2", "--sort", "za"], ["history", "--from", "2026-11-18", "--to", "2026-11-20", "--limit", "2"],
            ["history", "--type", "bathroom", "--limit", "1", "--page", "3"], ["history", "--limit", "3", "--page", "9"],
            ["history", "--group", "week", "--limit", "3"], ["session", "show", "2026-11-18"],
            ["insights", "--from", "2026-11-17", "--to", "2026-11-19"],
            ["insights", "--nights", "7"], ["planner"], ["export"],
            ["report", "--from", "2026-11-18", "--to", "2026-11-20", "--out", "FOLDER/report.html"],
        ]
        steps += reads.map { ($0, "2026-11-22 12:00") }
        let statuses = try Self.expectSame(steps)
        #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)")
    }

    @Test(
        "store copy: SQLite to PostgreSQL and back, verified, the same bundle byte for byte; a non-empty target is refused",
        .enabled(if: url != nil, Comment(rawValue: skipped)))
    func storeCopyRoundTrip() throws {
        let cli = try CLI()
        for (arguments, now) in [
            (["dose1"], "2026-11-21 22:30"), (["med", "log", "modafinil:200mg"], "2026-11-21 22:31"), (["log", "bathroom"], "2026-11-21 23:00"),
            (["dose2"], "2026-11-22 01:35"), (["checkin"], "2026-11-22 07:00"), (["supply", "log", "--ml", "180"], "2026-11-22 08:00"),
            (["settings", "set", "target_interval", "195"], "2026-11-22 08:00"),
        ] {
            #expect(try cli.run(arguments, now: now).status == 0, "\(arguments)")
        }
        let postgres = try Self.freshURL()
        let there = try CLI.inProcess(["store", "copy", "--from", cli.database, "--to", postgres, "--json"])
        #expect(there.status == 0, "\(there.stdout) \(there.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(there.stdout.utf8)) as? [String: Any])
        #expect(report["copied"] as? Bool == true && (report["rows"] as? Int ?? 0) >= 10, "\(report)")
        // PostgreSQL to another PostgreSQL store (another schema of the same server), then back to a file.
        let second = try Self.freshURL()
        let across = try CLI.inProcess(["store", "copy", "--from", postgres, "--to", second])
        #expect(across.status == 0, "\(across.stdout) \(across.stderr)")
        let itself = try CLI.inProcess(["store", "copy", "--from", second, "--to", second, "--json"])
        #expect(itself.status == 64 && itself.stdout.contains("the source itself"), "\(itself.stdout)")
        let back = cli.directory.appendingPathComponent("back.sqlite").path
        let returned = try CLI.inProcess(["store", "copy", "--from", second, "--to", back])
        #expect(returned.status == 0 && returned.stdout.contains("Verified"), "\(returned.stdout) \(returned.stderr)")

        // The same bundle from the original, from PostgreSQL and from the copy back.
        let now = ["--now", CLI.instant("2026-11-22 09:00", zone: cli.zone), "--tz", cli.zone, "--json"]
        var bundles: [Data] = []
        for (index, store) in [["--db", cli.database], ["--database", postgres], ["--database", second], ["--db", back]].enumerated() {
            let out = cli.directory.appendingPathComponent("bundle-\(index).zip").path
            let run = try CLI.inProcess(["export", "--format", "bundle", "--out", out] + store + now)
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            bundles.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(Set(bundles).count == 1, "the four bundles differ")

        // A target holding records is refused and left as it was; so is a source that does not exist.
        let again = try CLI.inProcess(["store", "copy", "--from", cli.database, "--to", postgres, "--json"])
        #expect(again.status == 64 && again.stdout.contains("already holds records"), "\(again.stdout)")
        let intoFile = try CLI.inProcess(["store", "copy", "--from", postgres, "--to", back, "--json"])
        #expect(intoFile.status == 64 && intoFile.stdout.contains("already holds records"), "\(intoFile.stdout)")
        let missing = cli.directory.appendingPathComponent("nothing.sqlite").path
        let nowhere = cli.directory.appendingPathComponent("new.sqlite").path
        let noSource = try CLI.inProcess(["store", "copy", "--from", missing, "--to", nowhere, "--json"])
        #expect(noSource.status == 64 && !FileManager.default.fileExists(atPath: nowhere), "\(noSource.stdout)")
        let history = try CLI.inProcess(["history", "--database", postgres] + now)
        #expect(history.status == 0 && history.stdout.contains("2026-11-21"), "\(history.stdout)")
    }

    @Test("a URL that is not PostgreSQL's, or a server that is not there, is refused without its password and changes nothing")
    func refusals() throws {
        let mysql = try CLI.inProcess(["status", "--json", "--database", "mysql://me:hunter2@db/x"])
        #expect(mysql.status == 64 && mysql.errorCode == "400_INVALID_INPUT" && !mysql.stdout.contains("hunter2"), "\(mysql.stdout)")
        let down = try CLI.inProcess(["dose1", "--json", "--database", "postgres://me:hunter2@127.0.0.1:1/nights"])
        #expect(down.status == 75 && down.errorCode == "503_STORAGE_BUSY", "exit \(down.status): \(down.stdout)")
        #expect(!down.stdout.contains("hunter2") && down.stdout.contains("127.0.0.1:1"), "\(down.stdout)")
    }

    @Test(
        "what keeps files beside the store (certificates, the diagnostic log) lives in the data folder on PostgreSQL",
        .enabled(if: url != nil, Comment(rawValue: skipped)))
    func dataFolder() throws {
        let cli = try CLI()
        let store = try Self.freshURL()
        let environment = ["XDG_DATA_HOME": cli.directory.path]
        let tls = try CLI.inProcess(["tls", "init", "--json", "--database", store], environment: environment)
        #expect(tls.status == 0, "\(tls.stdout) \(tls.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("dosetap/tls").path), "certificates in the data folder")
        #expect(try CLI.inProcess(["dose1", "--json", "--database", store], environment: environment).status == 0)
        let review = try CLI.inProcess(
            ["support-bundle", "--out", cli.directory.appendingPathComponent("s.zip").path, "--review", "--database", store], environment: environment
        )
        #expect(review.status == 0 && review.stdout.contains("dose1_taken"), "\(review.stdout) \(review.stderr)")
        // DOSETAP_DATABASE_URL is read whenever --database is not given, even beside --db: the store is PostgreSQL's.
        let viaEnvironment = try CLI.inProcess(["history", "--json", "--db", cli.database], environment: ["DOSETAP_DATABASE_URL": store])
        #expect(viaEnvironment.status == 0 && viaEnvironment.stdout.contains("dose1"), "\(viaEnvironment.stdout)")
        #expect(!FileManager.default.fileExists(atPath: cli.database), "no SQLite file was made")
    }
}
