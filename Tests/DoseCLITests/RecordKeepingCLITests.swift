import Foundation
import Testing

@Suite("dosetap end to end: check-in in full, pre-sleep, medications, corrections")
struct RecordKeepingCLITests {
    @Test("presleep → dose1 → meds → checkin with deep dives from flags and a JSON file → edit → event corrections")
    func fullRecord() throws {
        let cli = try CLI()
        var run = try cli.run(
            [
                "presleep", "--stress", "2", "--caffeine-cups", "1", "--intended-sleep", "in_30_min", "--pain", "none",
                "--alcohol", "0", "--exercise", "light", "--nap", "none",
            ], now: "2026-11-21 21:45")
        #expect(run.json["completion_state"] as? String == "complete")
        #expect(run.json["started_session"] as? Bool == true)
        run = try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(run.json["session_date"] as? String == "2026-11-21")
        run = try cli.run(["dose2"], now: "2026-11-22 01:20")
        let dose2ID = try #require(run.json["id"] as? String)
        run = try cli.run(["med", "log", "adderall_ir:10mg", "modafinil:0.2g"], now: "2026-11-22 08:00")
        #expect((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])?.count == 2)
        // No amount: refused, never filled in with the usual dose, and the usual dose is suggested in words.
        run = try cli.run(["med", "log", "adderall_ir"], now: "2026-11-22 08:03")
        #expect(run.errorCode == "400_INVALID_INPUT")
        #expect(run.status == 64)
        #expect(run.stdout.contains("adderall_ir:10mg"))
        run = try cli.run(["med", "log", "adderall_ir:10mg"], now: "2026-11-22 08:03")
        #expect(run.errorCode == "409_DUPLICATE_MEDICATION")
        #expect(run.status == 1)
        run = try cli.run(["med", "log", "adderall_ir:10mg", "--confirm", "duplicate"], now: "2026-11-22 08:03")
        #expect(run.status == 0)
        run = try cli.run(["med", "log", "adderall_ir:99mg"], now: "2026-11-22 08:30")
        #expect(run.status == 64)

        let file = cli.directory.appendingPathComponent("checkin.json")
        try Data(#"{"dream_recall": "vivid", "sleep_environment": {"sleep_aids_used": ["eye_mask"], "room_darkness": "dark"}}"#.utf8).write(to: file)
        run = try cli.run(
            [
                "checkin", "--from-json", file.path, "--quality", "4", "--hallucinations", "--pain-location", "neck",
                "--pain-severity", "2", "--sleep-therapy", "cpap",
            ], now: "2026-11-22 08:10")
        #expect(run.status == 0, "\(run.stdout)")
        let checkIn = try #require(run.json["checkin"] as? [String: Any])
        #expect(checkIn["dream_recall"] as? String == "vivid")
        #expect(checkIn["had_hallucinations"] as? Bool == true)
        #expect((checkIn["physical_symptoms"] as? [String: Any])?["pain_locations"] as? [String] == ["neck"])
        #expect(run.json["wellness_score"] as? Int == 49)

        run = try cli.run(["checkin", "--edit", "2026-11-21", "--quality", "5"], now: "2026-11-22 09:00")
        #expect(run.json["sleep_quality"] as? Int == 5)
        #expect(run.json["dream_recall"] as? String == "vivid")

        run = try cli.run(["event", "edit", dose2ID, "--at", "2026-11-22T06:10:00Z"], now: "2026-11-22 09:00")
        #expect((run.json["after"] as? [String: Any])?["occurred_at"] as? String == "2026-11-22T06:10:00.000Z")
        run = try cli.run(["event", "edit", dose2ID, "--at", "2026-11-22T05:00:00Z"], now: "2026-11-22 09:00")
        #expect(((run.json["after"] as? [String: Any])?["metadata"] as? [String: Any])?["is_early"] as? Bool == true)
        run = try cli.run(["event", "delete", dose2ID], now: "2026-11-22 09:00")
        #expect(run.status == 64)
        run = try cli.run(["event", "delete", dose2ID, "--yes"], now: "2026-11-22 09:00")
        #expect(run.json["after"] is NSNull)
        run = try cli.run(["event", "delete", dose2ID, "--yes"], now: "2026-11-22 09:00")
        #expect(run.errorCode == "404_NOT_FOUND")

        run = try cli.run(["session", "show", "2026-11-21"], json: false)
        #expect(run.stdout.contains("Adderall 10 mg"))
        #expect(run.stdout.contains("Pre-sleep log: complete"))
        run = try cli.run(["med", "entries"])
        #expect((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any])?.count == 3)
    }

    @Test(
        "bad check-in and pre-sleep answers are refused by name", .readsSQLiteFile,
        arguments: [
            (["checkin", "--mood", "ecstatic"], "mood"), (["checkin", "--pain-severity", "11"], "pain_severity"),
            (["checkin", "--sleep-aid", "fan", "--screen-time", "0_15"], "screen_in_bed_minutes_bucket"),
            (["checkin", "--sleep-aid", "none,fan"], "sleep_aids_used"), (["presleep", "--stress", "6"], "stress_level"),
            (["presleep", "--caffeine-last", "25:00"], "caffeine_last_time"), (["presleep", "--skip", "--stress", "2"], "skipped"),
        ])
    func badAnswers(arguments: [String], field: String) throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let before = try cli.databaseBytes()
        let run = try cli.run(arguments, now: "2026-11-22 07:00")
        #expect(run.status == 64)
        #expect(((run.json["error"] as? [String: Any])?["details"] as? [String: Any])?["field"] as? String == field, "\(run.stdout)")
        #expect(try cli.databaseBytes() == before)
    }

    @Test("a check-in JSON file with an unknown field is refused")
    func unknownField() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let file = cli.directory.appendingPathComponent("bad.json")
        try Data(#"{"sleep_qualty": 4}"#.utf8).write(to: file)
        let run = try cli.run(["checkin", "--from-json", file.path], now: "2026-11-22 07:00")
        #expect(run.status == 64)
        #expect(((run.json["error"] as? [String: Any])?["message"] as? String)?.contains("sleep_qualty") == true)
    }

    @Test("the questionnaire asks the quick questions on standard input; Enter keeps each default", .readsSQLiteFile)
    func questionnaire() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["checkin", "--interactive", "--db", cli.database, "--tz", cli.zone, "--now", "2026-11-22T12:00:00Z", "--json"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // quality 4, rested default, grogginess default, clarity 8, mood good, readiness default, physical n,
        // respiratory y + details (stuffy nose, default cough, default sickness), narcolepsy n, environment described, notes.
        input.fileHandleForWriting.write(Data("4\n\n\n8\ngood\n\nn\ny\ny\nstuffy_nose\n\n\nn\ndescribe\neye_mask, fan\n\nloud\nslept fine\n".utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let checkIn = try #require(object["checkin"] as? [String: Any])
        #expect(checkIn["sleep_quality"] as? Int == 4)
        #expect(checkIn["mental_clarity"] as? Int == 8)
        #expect(checkIn["mood"] as? String == "good")
        #expect(checkIn["feel_rested"] as? String == "moderate")
        #expect(checkIn["notes"] as? String == "slept fine")
        #expect((checkIn["respiratory_symptoms"] as? [String: Any])?["congestion"] as? String == "stuffy_nose")
        #expect((checkIn["sleep_environment"] as? [String: Any])?["sleep_aids_used"] as? [String] == ["eye_mask", "fan"])
        #expect((checkIn["sleep_environment"] as? [String: Any])?["noise_level"] as? String == "loud")
    }
}

@Suite("dosetap end to end: export bundle and import")
struct BundleCLITests {
    @Test("export --format bundle, import into a new database, import again; a bad file exits 65 and changes nothing", .readsSQLiteFile)
    func bundle() throws {
        let cli = try CLI()
        try cli.run(["dose1", "--note", "=risky, \"quoted\""], now: "2026-11-21 22:30")
        try cli.run(["dose2"], now: "2026-11-22 01:20")
        try cli.run(["checkin", "--quality", "4"], now: "2026-11-22 07:00")
        let zip = cli.directory.appendingPathComponent("bundle.zip").path
        var run = try cli.run(["export", "--format", "bundle", "--out", zip], now: "2026-11-22 08:00")
        #expect(run.status == 0)
        #expect((run.json["rows"] as? [String: Any])?["dose_events.csv"] as? Int == 2)
        #expect(try FileManager.default.attributesOfItem(atPath: zip)[.posixPermissions] as? Int == 0o600)
        let other = cli.directory.appendingPathComponent("other.sqlite").path
        run = try cli.run(["import", zip], now: "2026-11-22 08:00", database: other)
        #expect((run.json["imported"] as? [String: Any])?["sessions.csv"] as? Int == 1)
        #expect((run.json["rejected"] as? [Any])?.isEmpty == true)
        run = try cli.run(["import", zip], now: "2026-11-22 08:00", database: other)
        #expect((run.json["imported"] as? [String: Any])?.isEmpty == true)
        run = try cli.run(["session", "show", "2026-11-21"], now: "2026-11-22 08:00", json: false, database: other)
        #expect(run.stdout.contains("Dose 1 — =risky, \"quoted\""))

        let junk = cli.directory.appendingPathComponent("junk.bin").path
        try Data("not anything DoseTap knows".utf8).write(to: URL(fileURLWithPath: junk))
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        run = try cli.run(["import", junk], now: "2026-11-22 08:00", database: other)
        #expect(run.status == 65)
        #expect(run.errorCode == "400_INVALID_INPUT")
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
    }
}
