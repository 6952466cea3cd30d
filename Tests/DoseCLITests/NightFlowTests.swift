import Foundation
import Testing

@Suite("dosetap end to end: a whole night, buttons, links, watch")
struct NightFlowTests {
    @Test("a whole night from Dose 1 to check-in, then history, show, export and delete")
    func wholeNight() throws {
        let cli = try CLI()
        var run = try cli.run([], now: "2026-11-21 21:00")
        #expect(run.status == 0)
        #expect(run.phase == "no_dose1")
        #expect(run.json["session_id"] is NSNull)

        run = try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(run.status == 0)
        #expect(run.json["type"] as? String == "dose1")
        #expect(run.json["session_date"] as? String == "2026-11-21")
        #expect(run.json["occurred_at"] as? String == "2026-11-22T03:30:00.000Z")
        #expect(run.json["recorded_at"] as? String == "2026-11-22T03:30:00.000Z")
        #expect((run.json["metadata"] as? [String: Any])?["is_early"] as? Bool == false)
        #expect(run.phase == "before_window")

        run = try cli.run(["dose2"], now: "2026-11-22 00:40")
        #expect(run.status == 1)
        #expect(run.errorCode == "422_WINDOW_NOT_OPEN")
        let error = run.json["error"] as? [String: Any]
        #expect(error?["confirm"] as? String == "early")
        #expect((error?["message"] as? String)?.contains("01:00, in 20 min") == true)

        run = try cli.run(["status"], now: "2026-11-22 01:05")
        #expect(run.phase == "active")
        #expect(run.json["minutes_since_dose1"] as? Int == 155)
        #expect(run.json["minutes_remaining"] as? Int == 85)
        for key in [
            "session_id", "session_date", "phase", "outcome", "dose1_at", "dose2_at", "dose2_skipped", "snooze_count",
            "snoozes_remaining", "can_snooze", "can_skip", "primary_action", "window_opens_at", "window_closes_at",
            "target_at", "minutes_since_dose1", "minutes_remaining", "next_reminder", "warnings",
        ] {
            #expect(run.json.keys.contains(key), "status lacks \(key)")
        }

        run = try cli.run(["snooze"], now: "2026-11-22 01:05")
        #expect(run.json["snooze_until"] as? String == "2026-11-22T06:15:00.000Z")
        #expect(run.json["snoozes_used"] as? Int == 1)
        #expect(run.json["snoozes_remaining"] as? Int == 2)

        run = try cli.run(["log", "Bathroom", "--note", "quick, \"really\""], now: "2026-11-22 01:06")
        #expect(run.json["type"] as? String == "bathroom")
        run = try cli.run(["dose2"], now: "2026-11-22 01:16")
        #expect(run.json["type"] as? String == "dose2")
        run = try cli.run(["undo"], now: "2026-11-22 01:16:04")
        #expect((run.json["undone"] as? [String: Any])?["type"] as? String == "dose2")
        #expect(run.phase == "active")
        run = try cli.run(["dose2"], now: "2026-11-22 01:17")
        #expect(run.phase == "completed")
        run = try cli.run(["wake"], now: "2026-11-22 06:50")
        #expect(run.phase == "finalizing")
        run = try cli.run(["checkin", "--quality", "4", "--mood", "good", "--notes", "slept ok"], now: "2026-11-22 07:00")
        #expect(run.status == 0)
        #expect(run.json["wellness_score"] as? Int == 67)
        #expect((run.json["session_closed"] as? [String: Any])?["terminal_state"] as? String == "completed")
        #expect(run.phase == "no_dose1")

        run = try cli.run(["history"], now: "2026-11-22 08:00")
        let night = (((run.json["groups"] as? [[String: Any]])?.first?["nights"]) as? [[String: Any]])?.first
        #expect(night?["interval_minutes"] as? Int == 167)
        #expect(night?["terminal_state"] as? String == "completed")
        #expect((night?["events"] as? [Any])?.count == 6)

        run = try cli.run(["session", "show", "2026-11-21"], json: false)
        #expect(run.stdout.contains("Dose 1 22:30, Dose 2 01:17 (167 min)"))
        #expect(run.stdout.contains("Bathroom — quick, \"really\""))

        let csvPath = cli.directory.appendingPathComponent("events.csv").path
        run = try cli.run(["export", "--out", csvPath])
        #expect(run.json["rows"] as? Int == 6)
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        #expect(csv.hasPrefix("event_id,event_type,source,occurred_at_utc,local_tz,dose_sequence,note\r\n"))
        #expect(csv.contains(",bathroom,user,2026-11-22T06:06:00.000Z,America/New_York,,\"quick, \"\"really\"\"\"\r\n"))
        #expect(csv.contains(",undo,user,"))
        let mode = try FileManager.default.attributesOfItem(atPath: csvPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        run = try cli.run(["export", "--format", "analytics"], json: false)
        #expect(run.stdout == "Date,Dose1Time,Dose2Time,Interval,OnTime,NaturalWake\r\n2026-11-21,22:30:00,01:17:00,167,true,false\r\n")

        run = try cli.run(["session", "delete", "2026-11-21"])
        #expect(run.status == 64)
        run = try cli.run(["session", "delete", "2026-11-21", "--yes"])
        #expect(run.json["deleted_sessions"] as? Int == 1)
        run = try cli.run(["session", "show", "2026-11-21"])
        #expect(run.errorCode == "404_NOT_FOUND")
    }

    @Test("human output at 2 a.m.: phase in words, countdown, local times, the next step")
    func humanStatus() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let run = try cli.run([], now: "2026-11-22 00:40", json: false)
        #expect(run.stdout.contains("Waiting for the Dose 2 window"))
        #expect(run.stdout.contains("Dose 2 opens in 20 min, at 01:00."))
        #expect(run.stdout.contains("Window 01:00–02:30, target 01:15."))
        #expect(run.stdout.contains("Next: stay in bed and wait."))
        let refused = try cli.run(["dose2"], now: "2026-11-22 00:40", json: false)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Not recorded. Too early for Dose 2: the window opens at 01:00, in 20 min."))
    }

    @Test("--at records a forgotten event at a local HH:mm or an ISO instant; a future --at is refused")
    func backdating() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        var run = try cli.run(["log", "water", "--at", "23:10"], now: "2026-11-21 23:40")
        #expect(run.json["occurred_at"] as? String == "2026-11-22T04:10:00.000Z")
        #expect(run.json["recorded_at"] as? String == "2026-11-22T04:40:00.000Z")
        run = try cli.run(["dose2", "--at", "2026-11-22T06:20:00Z"], now: "2026-11-22 01:30")
        #expect(run.json["occurred_at"] as? String == "2026-11-22T06:20:00.000Z")
        run = try cli.run(["log", "dream", "--at", "2026-11-22T06:32:00Z"], now: "2026-11-22 01:30")
        #expect(run.status == 64)
        #expect(run.errorCode == "400_INVALID_INPUT")
    }

    @Test("press: single takes the next allowed dose and never confirms; double snoozes; hold undoes")
    func press() throws {
        let cli = try CLI()
        var run = try cli.run(["press", "single"], now: "2026-11-21 22:30")
        #expect(run.json["type"] as? String == "dose1")
        #expect(run.json["source"] as? String == "button")
        run = try cli.run(["press", "single"], now: "2026-11-21 23:00")
        #expect(run.errorCode == "422_WINDOW_NOT_OPEN")
        run = try cli.run(["press", "double"], now: "2026-11-22 01:05")
        #expect(run.json["type"] as? String == "snooze")
        run = try cli.run(["press", "hold"], now: "2026-11-22 01:05:03")
        #expect((run.json["undone"] as? [String: Any])?["type"] as? String == "snooze")
        run = try cli.run(["press", "single"], now: "2026-11-22 02:35")
        #expect(run.errorCode == "422_WINDOW_EXCEEDED")
        run = try cli.run(["press", "single"], now: "2026-11-22 01:10")
        #expect(run.json["type"] as? String == "dose2")
        run = try cli.run(["press", "single"], now: "2026-11-22 01:20")
        #expect(run.errorCode == "409_ALREADY_TAKEN")
        run = try cli.run(["press", "triple"], now: "2026-11-22 01:20")
        #expect(run.status == 64)
    }

    @Test("dosetap:// links follow the same rules and never auto-confirm")
    func links() throws {
        let cli = try CLI()
        var run = try cli.run(["open", "dosetap://dose1"], now: "2026-11-21 22:30")
        #expect(run.json["source"] as? String == "link")
        run = try cli.run(["open", "dosetap://dose2"], now: "2026-11-21 23:30")
        #expect(run.errorCode == "422_WINDOW_NOT_OPEN")
        run = try cli.run(["open", "dosetap://log?event=bathroom&notes=up%20again"], now: "2026-11-21 23:31")
        #expect(run.json["type"] as? String == "bathroom")
        #expect(run.json["note"] as? String == "up again")
        run = try cli.run(["open", "dosetap://snooze"], now: "2026-11-21 23:32")
        #expect(run.errorCode == "422_SNOOZE_UNAVAILABLE")
        for bad in ["https://example.com/dose1", "dosetap://dose3", "dosetap://log"] {
            run = try cli.run(["open", bad], now: "2026-11-21 23:33")
            #expect(run.status == 64, "\(bad)")
            #expect(run.errorCode == "400_INVALID_INPUT")
        }
    }

    @Test("status --watch counts down on a simulated clock and rings the bell at each planned reminder")
    func watch() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let run = try cli.run(["status", "--watch", "--ticks", "30", "--interval", "60"], now: "2026-11-22 00:55", json: false)
        #expect(run.status == 0)
        let bells = run.stdout.split(separator: "\n").filter { $0.contains("\u{7}") }
        #expect(bells.map { String($0.dropFirst(3).prefix(5)) } == ["01:00", "01:10", "01:15", "01:17", "01:19", "01:21"])
        #expect(bells[2].contains("Time for Dose 2."))
        #expect(run.stdout.contains("00:55:00  Waiting for the Dose 2 window — opens in 0:05:00"))
        #expect(run.stdout.contains("01:20:00  Dose 2 window open — 1:10:00 left"))
        let json = try cli.run(["status", "--watch", "--ticks", "3"], now: "2026-11-22 01:14")
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[2].contains("\"kind\":\"wake_alarm\""))
    }

    @Test("settings: list, get, set with validation")
    func settings() throws {
        let cli = try CLI()
        var run = try cli.run(["settings", "list"])
        #expect(run.json["target_interval"] as? String == "165")
        #expect(run.json["time_zone"] as? String == "Pacific/Chatham")
        #expect(run.json["cooldown.bathroom"] as? String == "60")
        run = try cli.run(["settings", "set", "target_interval", "195"])
        #expect(run.json["target_interval"] as? String == "195")
        run = try cli.run(["settings", "get", "target_interval"], json: false)
        #expect(run.stdout == "195\n")
        for (key, value) in [
            ("target_interval", "200"), ("max_snoozes", "6"), ("undo_window_seconds", "4"), ("time_zone", "Mars/Olympus"),
            ("wake_time", "25:00"), ("missed_checkin_cutoff_hours", "0"), ("cooldown.bathroom", "3601"),
            ("cooldown.sleepwalking", "5"), ("colour", "red"), ("allow_snoozing", "maybe"),
        ] {
            run = try cli.run(["settings", "set", key, value])
            #expect(run.status == 64, "\(key)=\(value)")
            #expect(run.errorCode == "400_INVALID_INPUT")
            #expect(((run.json["error"] as? [String: Any])?["message"] as? String)?.contains("Allowed") == true)
        }
        run = try cli.run(["settings", "get", "target_interval"])
        #expect(run.json["value"] as? String == "195")
    }

    @Test("status is the default command, and the database goes to the documented default path")
    func defaults() throws {
        let cli = try CLI()
        let data = cli.directory.appendingPathComponent("xdg").path
        var run = try CLI.execute(["--now", "2026-11-21T12:00:00Z"], environment: ["XDG_DATA_HOME": data])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Dose 1 not taken"))
        #expect(run.stderr.contains("not medical advice"))
        #expect(FileManager.default.fileExists(atPath: data + "/dosetap/dosetap.sqlite"))
        run = try CLI.execute(["--now", "2026-11-21T12:00:00Z"], environment: ["XDG_DATA_HOME": data])
        #expect(!run.stderr.contains("not medical advice"))
        let explicit = cli.directory.appendingPathComponent("env.sqlite").path
        run = try CLI.execute(["dose1", "--now", "2026-11-21T23:00:00Z", "--json"], environment: ["DOSETAP_DB": explicit, "XDG_DATA_HOME": data])
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: explicit))
    }

    @Test("Clear All Data needs the exact phrase, then leaves nothing", .readsSQLiteFile)
    func clearAll() throws {
        let cli = try CLI()
        try cli.run(["dose1", "--note", "secret-marker-991"], now: "2026-11-21 22:30")
        var run = try cli.run(["clear-all"])
        #expect(run.status == 64)
        run = try cli.run(["clear-all", "--confirm", "yes"])
        #expect(run.status == 64)
        run = try cli.run(["clear-all", "--confirm", "Clear All Data — This cannot be undone."])
        #expect(run.status == 0)
        #expect(run.json["remaining_rows"] as? Int == 0)
        run = try cli.run(["export"], json: false)
        #expect(run.stdout == "event_id,event_type,source,occurred_at_utc,local_tz,dose_sequence,note\r\n")
        #expect(try cli.databaseBytes().range(of: Data("secret-marker-991".utf8)) == nil)
    }
}
