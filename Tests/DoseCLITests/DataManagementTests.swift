import Foundation
import GRDB
import Testing

/// The database's three files as bytes, each as it is on disk after every process has closed it.
private func fileBytes(_ database: String) -> [String: Data] {
    var files: [String: Data] = [:]
    for suffix in ["", "-wal", "-shm"] {
        files[suffix.isEmpty ? "sqlite" : suffix] = (try? Data(contentsOf: URL(fileURLWithPath: database + suffix))) ?? Data()
    }
    return files
}

/// The canary strings found in any of the database's files, with the file they were found in.
private func canariesFound(_ canaries: [String], in database: String) -> [String] {
    fileBytes(database).flatMap { file, bytes in canaries.filter { bytes.range(of: Data($0.utf8)) != nil }.map { "\($0) in \(file)" } }
}

@Suite("Managing old data: Clear Old and deleting several nights, from the built binary", .serialized)
struct DataManagementTests {
    /// Six nights, 2026-11-01 … 06, each with Dose 1, a logged event and Dose 2 carrying canary notes, a medication
    /// entry and a check-in; the note of night 2's event is edited, so its old value sits in the audit log.
    /// `dosetap serve` runs all along, as it does at home: its open connections keep the WAL beyond each command,
    /// holding the pages written, until something checkpoints and truncates it.
    static func sixNights() throws -> (CLI, Server) {
        let cli = try CLI()
        #expect(try cli.run(["settings", "set", "max_snoozes", "3"]).status == 0)
        let server = try Server(cli, now: "2026-11-01 12:00")
        for day in 1...6 {
            let date = String(format: "2026-11-%02d", day)
            let next = String(format: "2026-11-%02d", day + 1)
            #expect(try cli.run(["dose1", "--note", "canary-dose1-\(day)"], now: "\(date) 22:00").status == 0)
            let logged = try cli.run(["log", "bathroom", "--note", "canary-event-\(day)"], now: "\(date) 23:30")
            #expect(logged.status == 0)
            #expect(try cli.run(["dose2", "--note", "canary-dose2-\(day)"], now: "\(next) 00:50").status == 0)
            #expect(try cli.run(["med", "log", "modafinil:200", "--note", "canary-med-\(day)"], now: "\(next) 08:00").status == 0)
            #expect(try cli.run(["checkin", "--notes", "canary-checkin-\(day)"], now: "\(next) 08:05").status == 0)
            if day == 2, let id = logged.json["id"] as? String {
                #expect(try cli.run(["event", "edit", id, "--note", "edited-2"], now: "\(next) 09:00").status == 0)
            }
        }
        return (cli, server)
    }

    static func integrity(_ cli: CLI) throws -> String? {
        try DatabaseQueue(path: cli.database).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
    }

    static func count(_ cli: CLI, _ sql: String) throws -> Int {
        try DatabaseQueue(path: cli.database).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test(
        "session delete --before: the preview counts exactly, --yes deletes exactly those nights, and no canary of them stays in any file",
        .readsSQLiteFile)
    func deleteBefore() async throws {
        let (cli, server) = try Self.sixNights()
        #expect(FileManager.default.fileExists(atPath: cli.database + "-wal"), "the server keeps the WAL")
        let deletedCanaries = (1...3).flatMap {
            ["canary-dose1-\($0)", "canary-event-\($0)", "canary-dose2-\($0)", "canary-med-\($0)", "canary-checkin-\($0)"]
        }
        #expect(canariesFound(deletedCanaries, in: cli.database).count == deletedCanaries.count, "every canary is on disk before")

        // Without --yes: what would go, and nothing goes.
        let preview = try cli.run(["session", "delete", "--before", "2026-11-04"], now: "2026-11-08 12:00")
        #expect(preview.status == 64)
        #expect(preview.errorCode == "400_INVALID_INPUT")
        let message = ((preview.json["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains("3 nights (2026-11-01 to 2026-11-03), 9 events"), "\(message)")
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 6)

        let run = try cli.run(["session", "delete", "--before", "2026-11-04", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["deleted_sessions"] as? Int == 3)
        #expect(run.json["deleted_events"] as? Int == 9)
        #expect(run.json["first_date"] as? String == "2026-11-01")
        #expect(run.json["last_date"] as? String == "2026-11-03")
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 3)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM dose_events") == 6)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_events") == 3)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM morning_checkins") == 3)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM medication_events") == 3)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM night_summaries") == 3)
        // One entry a night, naming its date and the surface, and nothing of what it held.
        #expect(
            try Self.count(cli, "SELECT COUNT(*) FROM audit_log WHERE action = 'delete_session' AND json_extract(details, '$.surface') = 'cli'") == 3)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM audit_log WHERE details LIKE '%canary%' OR details LIKE '%edited-2%'") == 0)

        let found = canariesFound(deletedCanaries + ["edited-2"], in: cli.database)
        #expect(found.isEmpty, "deleted content left in the files: \(found)")
        let kept = (4...6).flatMap { ["canary-dose1-\($0)", "canary-checkin-\($0)"] }
        #expect(canariesFound(kept, in: cli.database).count == kept.count, "the kept nights are untouched")
        #expect(try Self.integrity(cli) == "ok")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }

    @Test(
        "several dates at once: all or nothing; an unknown date, tonight's open night or a dose under 8 hours old refuses the lot", .readsSQLiteFile)
    func deleteSeveral() async throws {
        let (cli, server) = try Self.sixNights()
        // A date with no night refuses everything, naming it.
        var run = try cli.run(["session", "delete", "2026-11-02", "2026-10-15", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 1)
        #expect(run.errorCode == "404_NOT_FOUND")
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 6)

        // Night 6's Dose 2 was at 00:50 on the 7th: at 08:00 that is under 8 hours, and it is what refuses an early Dose 1.
        run = try cli.run(["session", "delete", "2026-11-02", "2026-11-06", "--yes"], now: "2026-11-07 08:30")
        #expect(run.status == 64)
        #expect(((run.json["error"] as? [String: Any])?["message"] as? String)?.contains("less than 8 hours ago") == true)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 6)

        // Tonight's open night is never deleted, even alongside others.
        #expect(try cli.run(["dose1"], now: "2026-11-08 22:00").status == 0)
        run = try cli.run(["session", "delete", "2026-11-02", "2026-11-08", "--yes"], now: "2026-11-09 07:00")
        #expect(run.status == 64)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 7)

        // The newest night's check-in was written to the WAL, which the open connection keeps: the scrub must reach it.
        #expect(fileBytes(cli.database)["-wal"]?.range(of: Data("canary-checkin-6".utf8)) != nil, "the WAL holds night 6")
        run = try cli.run(["session", "delete", "2026-11-02", "2026-11-05", "2026-11-06", "--yes"], now: "2026-11-09 07:00")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["deleted_sessions"] as? Int == 3)
        #expect(run.json["deleted_events"] as? Int == 9)
        #expect(run.json["dates"] as? [String] == ["2026-11-02", "2026-11-05", "2026-11-06"])
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 4)
        let found = canariesFound(
            ["canary-dose1-2", "canary-med-5", "canary-checkin-5", "canary-checkin-6", "canary-event-6", "edited-2"], in: cli.database)
        #expect(found.isEmpty, "\(found)")
        // Tonight's open night is untouched.
        #expect(try cli.run(["status"], now: "2026-11-09 07:01").json["dose1_at"] as? String != nil)
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }

    @Test("--before and dates together, a --before with no nights, and a bad date are refused and change nothing", .readsSQLiteFile)
    func refusals() async throws {
        let (cli, server) = try Self.sixNights()
        var run = try cli.run(["session", "delete", "2026-11-02", "--before", "2026-11-04", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 64)
        run = try cli.run(["session", "delete", "--before", "2026-10-01", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 1)
        #expect(run.errorCode == "404_NOT_FOUND")
        run = try cli.run(["session", "delete", "--before", "2026-02-30", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 64)
        run = try cli.run(["session", "delete", "--yes"], now: "2026-11-08 12:00")
        #expect(run.status == 64)
        #expect(try await server.terminate(within: .seconds(20)) == 0)
        #expect(try Self.count(cli, "SELECT COUNT(*) FROM sleep_sessions") == 6)
    }
}
