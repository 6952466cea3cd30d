import Foundation
import GRDB
import Testing

/// A refusal case: set-up commands (each at its local time), then the refused command.
struct RefusalCase: CustomTestStringConvertible, Sendable {
    let code: String
    let setup: [([String], String)]
    let command: [String]
    let at: String
    var exit: Int32 = 1
    var testDescription: String { code }
}

private let dose1 = (["dose1"], "2026-11-21 22:30")

/// Bad input: the option, what the message must name, and the exit status.
private let badInputCases: [(arguments: [String], mentions: String, exit: Int32)] = [
    (["status", "--tz", "Mars/Olympus"], "time zone", 64),
    (["status", "--now", "yesterday-ish"], "not a time", 64),
    (["log", "water", "--at", "25:99"], "not a time", 64),
    (["log", "water", "--at", "2026-11-22T05:00:00Z"], "in the future", 64),
    (["log", "sleepwalking"], "not a sleep event", 64),
    (["log", "water", "--note", String(repeating: "n", count: 501)], "at most 500 characters", 64),
    (["skip", "--reason", String(repeating: "r", count: 1001)], "at most 1000 characters", 64),
    (["settings", "set", "max_snoozes", "9"], "1–5", 64),
    (["dose2", "--confirm", "please"], "early, late, extra, after_skip", 64),
    (["dose2", "--confirm", "duplicate"], "not a confirmation `dose2` takes", 64),
    (["dose1", "--confirm", "early"], "Allowed: new_night.", 64),
    (["med", "log", "modafinil:100mg", "--confirm", "late"], "Allowed: duplicate.", 64),
    (["checkin", "--quality", "9"], "1–5", 64),
    (["checkin", "--rested", "sort of"], "very_well", 64),
    (["history", "--sort", "random"], "newest", 64),
    (["history", "--from", "2026-13-01"], "YYYY-MM-DD", 64),
    (["export", "--format", "pdf"], "analytics", 64),
    (["export", "--out", "/nonexistent-dir/x.csv"], "does not exist", 64),
    (["frobnicate"], "command line", 64),
    (["doze2"], "did you mean `dose2`?", 64),
    (["stauts"], "did you mean `status`?", 64),
    (["histroy", "--sort", "oldest"], "did you mean `history`?", 64),
]

@Suite("dosetap end to end: every error code the CLI can reach, and bad input that changes nothing")
struct RefusalTests {
    static let cases: [RefusalCase] = [
        RefusalCase(code: "422_DOSE1_REQUIRED", setup: [], command: ["dose2"], at: "2026-11-21 23:00"),
        RefusalCase(code: "409_ALREADY_TAKEN", setup: [dose1], command: ["dose1"], at: "2026-11-21 22:40"),
        RefusalCase(code: "422_WINDOW_NOT_OPEN", setup: [dose1], command: ["dose2"], at: "2026-11-22 00:59"),
        RefusalCase(code: "422_WINDOW_EXCEEDED", setup: [dose1], command: ["dose2"], at: "2026-11-22 02:30"),
        RefusalCase(code: "409_DOSE2_SKIPPED", setup: [dose1, (["skip"], "2026-11-22 01:00")], command: ["dose2"], at: "2026-11-22 01:10"),
        RefusalCase(code: "409_ALREADY_SKIPPED", setup: [dose1, (["skip"], "2026-11-22 01:00")], command: ["skip"], at: "2026-11-22 01:10"),
        RefusalCase(
            code: "409_SESSION_FINALIZING", setup: [dose1, (["wake", "--confirm", "end_night"], "2026-11-22 01:00")], command: ["dose2"],
            at: "2026-11-22 01:10"),
        // D16: with Dose 2 undecided, nothing ends the night without end_night; off a terminal the flag is named.
        RefusalCase(code: "409_DOSE2_PENDING", setup: [dose1], command: ["wake"], at: "2026-11-21 22:53"),
        RefusalCase(code: "409_DOSE2_PENDING", setup: [dose1], command: ["checkin"], at: "2026-11-21 23:59"),
        RefusalCase(code: "409_DOSE2_PENDING", setup: [dose1], command: ["log", "wake_final"], at: "2026-11-22 02:35"),
        RefusalCase(code: "409_DOSE2_PENDING", setup: [dose1], command: ["log", "Wake Up"], at: "2026-11-22 01:30"),
        RefusalCase(code: "409_NAP_STATE", setup: [], command: ["log", "nap_end"], at: "2026-11-21 15:00"),
        RefusalCase(code: "422_SNOOZE_UNAVAILABLE", setup: [dose1], command: ["snooze"], at: "2026-11-21 23:00"),
        RefusalCase(code: "422_SNOOZE_UNAVAILABLE", setup: [dose1], command: ["snooze"], at: "2026-11-22 02:16"),
        RefusalCase(
            code: "422_SNOOZE_LIMIT",
            setup: [
                (["settings", "set", "max_snoozes", "1"], "2026-11-21 20:00"), dose1,
                (["snooze"], "2026-11-22 01:00"),
            ], command: ["snooze"], at: "2026-11-22 01:05"),
        RefusalCase(code: "404_NOTHING_TO_UNDO", setup: [], command: ["undo"], at: "2026-11-21 22:00"),
        RefusalCase(code: "422_UNDO_EXPIRED", setup: [dose1], command: ["undo"], at: "2026-11-21 22:30:06"),
        RefusalCase(code: "429_RATE_LIMIT", setup: [(["log", "water"], "2026-11-21 23:00")], command: ["log", "water"], at: "2026-11-21 23:00:30"),
        RefusalCase(code: "404_NOT_FOUND", setup: [dose1], command: ["session", "show", "2020-01-01"], at: "2026-11-21 23:00"),
        RefusalCase(code: "404_NOT_FOUND", setup: [], command: ["checkin"], at: "2026-11-22 07:00"),
        RefusalCase(code: "400_INVALID_INPUT", setup: [dose1], command: ["log", "sleepwalking"], at: "2026-11-21 23:00", exit: 64),
        // D14: the night was closed by an early wake-up and check-in, yet the medicine is still in the body.
        RefusalCase(
            code: "409_RECENT_DOSE",
            setup: [
                dose1, (["dose2"], "2026-11-22 01:20"), (["wake", "--yes"], "2026-11-22 01:30"),
                (["checkin"], "2026-11-22 01:40"),
            ], command: ["dose1"], at: "2026-11-22 01:50"),
        // D15: wake-up 10 minutes after Dose 2 asks first; without a terminal to ask on, it names --yes and logs nothing.
        RefusalCase(code: "400_INVALID_INPUT", setup: [dose1, (["dose2"], "2026-11-22 01:20")], command: ["wake"], at: "2026-11-22 01:30", exit: 64),
    ]

    @Test("each refusal: its code, exit status, message, and not one byte of the database changed", .readsSQLiteFile, arguments: cases)
    func refusal(_ item: RefusalCase) throws {
        let cli = try CLI()
        try cli.run(["status"], now: "2026-11-21 12:00")
        for (arguments, at) in item.setup {
            let run = try cli.run(arguments, now: at)
            #expect(run.status == 0, "set-up \(arguments) failed: \(run.stdout)")
        }
        let before = try cli.databaseBytes()
        let run = try cli.run(item.command, now: item.at)
        #expect(run.status == item.exit)
        #expect(run.errorCode == item.code)
        let message = (run.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.count > 20)
        if item.code == "429_RATE_LIMIT" { #expect((run.json["error"] as? [String: Any])?["retry_after"] as? Int == 30) }
        if item.code == "400_INVALID_INPUT", item.command.first == "log" { #expect(message.contains("bathroom, water")) }
        #expect(try cli.databaseBytes() == before)
        // The human form says the same on stderr with the same exit status.
        let human = try cli.run(item.command, now: item.at, json: false)
        #expect(human.status == item.exit)
        // Confirmations are named as the flag that gives them.
        let flagged = message.replacingOccurrences(of: #"confirm '([a-z_]+)'"#, with: "add `--confirm $1`", options: .regularExpression)
        #expect(human.stderr.contains(flagged))
        if item.code == "409_RECENT_DOSE" {
            #expect(human.stderr.contains("Dose 2 was taken at 01:20, 30 min before this Dose 1"))
            #expect(human.stderr.contains("possible from 09:20") && human.stderr.contains("`--confirm new_night`"))
        }
        if item.command == ["wake"], item.code == "400_INVALID_INPUT" {
            #expect(human.stderr.contains("10 min ago") && human.stderr.contains("--yes"))
        }
        if item.code == "409_DOSE2_PENDING" {
            #expect(human.stderr.contains("add `--confirm end_night`") && human.stderr.contains("Dose 2"), "\(human.stderr)")
            #expect(human.stderr.contains("window"), "the refusal names when the window opens or closes: \(human.stderr)")
        }
    }

    @Test(
        "a read with --db in a folder that does not exist says which path it tried and creates nothing", .readsSQLiteFile,
        arguments: [["status"], ["history"], ["session", "show", "2026-11-21"], ["settings", "list"], ["export"], ["med", "entries"]])
    func missingDatabaseFolder(arguments: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-missing-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("typo.sqlite").path
        let run = try CLI.inProcess(arguments + ["--db", path, "--json"])
        #expect(run.status == 64)
        let message = ((run.json["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains(path) && message.contains("no folder"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test("bad input gets a clear error and the right exit code, and leaves the data untouched", .readsSQLiteFile, arguments: 0..<badInputCases.count)
    func badInput(index: Int) throws {
        let item = badInputCases[index]
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        try cli.run(["log", "dream"], now: "2026-11-21 22:40")
        let before = try cli.databaseBytes()
        let run = try cli.run(item.arguments, now: "2026-11-21 23:58")
        #expect(run.status == item.exit, "\(item.arguments)")
        #expect(run.errorCode == "400_INVALID_INPUT")
        #expect((((run.json["error"] as? [String: Any])?["message"]) as? String)?.contains(item.mentions) == true, "\(run.stdout)")
        #expect(try cli.databaseBytes() == before)
    }

    @Test("a file that is not a database: exit 65, file untouched", .readsSQLiteFile)
    func notADatabase() throws {
        let cli = try CLI()
        let path = cli.directory.appendingPathComponent("diary.txt").path
        let content = Data(String(repeating: "dear diary\n", count: 500).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        for arguments in [["status"], ["dose1"], ["log", "water"]] {
            let run = try cli.run(arguments, now: "2026-11-21 22:30", database: path)
            #expect(run.status == 65)
            #expect(run.errorCode == "400_INVALID_INPUT")
            #expect(((run.json["error"] as? [String: Any])?["message"] as? String)?.contains("not a readable SQLite database") == true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a database from a newer schema: exit 65, every byte untouched", .readsSQLiteFile)
    func newerSchema() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        try DatabaseQueue(path: cli.database).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 999") }
        let before = try cli.databaseBytes()
        let run = try cli.run(["dose2"], now: "2026-11-22 01:10")
        #expect(run.status == 65)
        #expect(((run.json["error"] as? [String: Any])?["message"] as? String)?.contains("newer DoseTap (schema 999") == true)
        #expect(try cli.databaseBytes() == before)
    }
}
