import Foundation
import Testing

/// Drives `dosetap` in a pseudo-terminal (Python's pty, an independent terminal): waits for each expected text and
/// types the answer after it. Prints everything the terminal showed, and exits with the program's status.
private let ptyDriver = """
    import json, os, pty, select, sys, time
    steps = json.loads(sys.argv[1])
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[2], sys.argv[2:])
    seen = b""
    def wait_for(text):
        global seen
        deadline = time.time() + 30
        while text.encode() not in seen:
            if time.time() > deadline:
                sys.stdout.write(seen.decode("utf-8", "replace")); sys.exit(99)
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try: chunk = os.read(fd, 4096)
                except OSError: break
                if not chunk: break
                seen += chunk
    for expect, answer in steps:
        wait_for(expect)
        seen = seen.replace(expect.encode(), b"<" + expect.encode() + b">", 1)
        os.write(fd, (answer + "\\n").encode())
    while True:
        try: chunk = os.read(fd, 4096)
        except OSError: break
        if not chunk: break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode("utf-8", "replace"))
    sys.exit(os.WEXITSTATUS(status))
    """

@Suite("dosetap setup: in a terminal and by flags")
struct SetupCLITests {
    static let titrationQuestion = "Titration plan ('2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g', none for none): "

    @Test(
        "in a pseudo-terminal: five steps asked in turn, Enter keeps a value, a refused step is asked again, the disclaimer must be accepted",
        .readsSQLiteFile)
    func interactive() throws {
        let cli = try CLI()
        let answers: [[String]] = [
            ["Usual bedtime (HH:mm) [21:00]: ", "22:30"], ["Usual wake time (HH:mm) [07:00]: ", ""],
            ["A new evening begins at (HH:mm) [18:00]: ", ""],
            ["Time zone (IANA, e.g. Europe/Paris) [America/New_York]: ", "Europe/Paris"],
            ["Product (xywav, xyrem, sodium_oxybate, lumryz) [xywav]: ", "xyrem"],
            ["Doses a night (twice_nightly, once_nightly) [twice_nightly]: ", ""], ["Dose 1 in grams [2.25]: ", "3"],
            ["Dose 2 in grams (twice nightly) [2.25]: ", "9"], [Self.titrationQuestion, ""],
            ["Bottle concentration (mg/mL) [500]: ", ""], ["One bottle holds (mL) [180]: ", ""],
            ["Please answer this step again.", "xyrem"], ["Doses a night (twice_nightly, once_nightly) [twice_nightly]: ", ""],
            ["Dose 1 in grams [2.25]: ", "3"], ["Dose 2 in grams (twice nightly) [2.25]: ", "2.5"],
            [Self.titrationQuestion, "2026-12-01 4.5 g + 4 g"],
            ["Bottle concentration (mg/mL) [500]: ", ""], ["One bottle holds (mL) [180]: ", ""],
            ["Did your prescriber set these steps? Type yes to keep them, Enter to change the plan: ", "yes"],
            ["Target minutes after Dose 1 (165, 180, 195, 210, 225) [165]: ", "180"], ["Allow snoozing (yes/no) [true]: ", ""],
            ["Snoozes a night (1–5) [3]: ", ""], ["Seconds to undo (3, 5, 7, 10) [5]: ", ""],
            ["Reminders ring (yes/no) [true]: ", ""], ["Ring the wake alarm again after (minutes, 0 = off) [0]: ", "5"],
            ["Type yes to accept the disclaimer: ", "no"], ["Type yes to accept the disclaimer: ", "yes"],
        ]
        let steps = String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
        let run = try CLI.execute(
            ["-c", ptyDriver, steps, CLI.binary.path, "setup", "--db", cli.database, "--now", "2026-11-21T17:00:00Z"],
            environment: ["TZ": "America/New_York"], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("Step 5 of 5 — Privacy and disclaimer"))
        #expect(run.stdout.contains("Invalid dose2_g: 9 g is more than one dose of Xyrem twice nightly may be"))
        #expect(run.stdout.contains("Invalid accept_disclaimer"))
        #expect(run.stdout.contains("The step of 2026-12-01 raises the nightly amount by 3 g at once, from 5.5 g to 8.5 g"), "\(run.stdout)")
        #expect(run.stdout.contains("Setup complete."))
        let settings = try cli.run(["settings", "list"])
        let values = settings.json.compactMapValues { $0 as? String }
        #expect(
            values["sleep_start"] == "22:30" && values["time_zone"] == "Europe/Paris" && values["medication_product"] == "xyrem", "\(settings.stdout)"
        )
        #expect(
            values["dose1_mg"] == "3000" && values["dose2_mg"] == "2500" && values["target_interval"] == "180"
                && values["wake_alarm_refire_minutes"] == "5")
        #expect(values["wake_time"] == "07:00", "Enter kept the value")
        #expect(values["titration"] == "2026-12-01 4.5 g + 4 g", "the fast step was kept once confirmed, without asking the step again")
    }

    @Test("by flags: all answers at once with --accept-disclaimer; without it, or with a bad answer, nothing changes")
    func flags() throws {
        let cli = try CLI()
        let refused = try cli.run(["setup", "--target", "180"])
        #expect(refused.status == 64 && refused.errorCode == "400_INVALID_INPUT")
        let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("accept-disclaimer"))
        let bad = try cli.run(["setup", "--target", "180", "--dose2", "4.75", "--accept-disclaimer"])
        #expect(bad.status == 64 && (bad.stdout.contains("dose2_g")))
        #expect(try cli.run(["settings", "get", "target_interval"]).json["value"] as? String == "165", "a refused setup changes nothing")
        let done = try cli.run([
            "setup", "--bedtime", "23:00", "--product", "sodium_oxybate", "--dose1", "4.5", "--dose2", "4.5", "--target", "195",
            "--accept-disclaimer",
        ])
        #expect(done.status == 0, "\(done.stdout)")
        #expect(done.json["setup_complete"] as? Bool == true)
        #expect(try cli.run(["settings", "get", "dose2_mg"]).json["value"] as? String == "4500")
    }

    @Test("a night command on a database never set up works with the defaults and says once how to run setup")
    func hintOnce() throws {
        let cli = try CLI()
        let first = try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(first.status == 0)
        #expect(first.stderr.contains("Run `dosetap setup`"))
        #expect(!first.stdout.contains("dosetap setup"), "stdout stays the JSON answer")
        let second = try cli.run(["log", "bathroom"], now: "2026-11-21 23:00")
        #expect(second.status == 0 && !second.stderr.contains("dosetap setup"))
        let set = try CLI()
        #expect(try set.run(["setup", "--accept-disclaimer"]).status == 0)
        #expect(!(try set.run(["dose1"], now: "2026-11-21 22:30")).stderr.contains("dosetap setup"))
    }
}

@Suite("dosetap supply: refills, adjustments, doses and the figures")
struct SupplyCLITests {
    @Test("two bottles, a night, a spill, a count, a deletion: the figures follow exactly; bad input changes nothing", .readsSQLiteFile)
    func ledger() throws {
        let cli = try CLI()
        let empty = try cli.run(["supply"], now: "2026-11-21 20:00")
        #expect(empty.json["tracked"] as? Bool == false)
        let refill = try cli.run(["supply", "log", "--bottles", "2", "--reason", "pharmacy"], now: "2026-11-21 20:00")
        #expect(refill.status == 0)
        let supply = refill.json["supply"] as? [String: Any] ?? [:]
        #expect(supply["remaining_ml"] as? Double == 360 && supply["nights_left"] as? Int == 40 && supply["runs_out_on"] as? String == "2026-12-31")
        #expect(try cli.run(["dose1"], now: "2026-11-21 22:30").status == 0)
        #expect(try cli.run(["dose2"], now: "2026-11-22 01:20").status == 0)
        let afterNight = try cli.run(["supply"], now: "2026-11-22 08:00")
        #expect(afterNight.json["remaining_ml"] as? Double == 351 && afterNight.json["nights_left"] as? Int == 39)
        #expect(afterNight.json["runs_out_on"] as? String == "2026-12-31", "tonight (the 22nd) is the first night still to come")
        let before = try cli.databaseBytes()
        for arguments in [
            ["supply", "adjust", "--remove", "5"], ["supply", "adjust", "--remove", "5", "--add", "3", "--reason", "x"],
            ["supply", "log"], ["supply", "log", "--bottles", "13"], ["supply", "log", "--ml", "0"],
            ["supply", "log", "--bottles", "1", "--ml", "180"],
            ["supply", "adjust", "--counted", "-1", "--reason", "x"],
        ] {
            let run = try cli.run(arguments, now: "2026-11-22 08:00")
            #expect(run.status == 64, "\(arguments)")
            #expect(run.errorCode == "400_INVALID_INPUT", "\(arguments)")
        }
        #expect(try cli.databaseBytes() == before)
        let spill = try cli.run(["supply", "adjust", "--remove", "11", "--reason", "spilled"], now: "2026-11-22 08:10")
        #expect((spill.json["supply"] as? [String: Any])?["remaining_ml"] as? Double == 340)
        let count = try cli.run(["supply", "adjust", "--counted", "45", "--reason", "counted the bottles"], now: "2026-11-22 08:20")
        let counted = count.json["supply"] as? [String: Any] ?? [:]
        #expect(counted["remaining_ml"] as? Double == 45 && counted["nights_left"] as? Int == 5 && counted["low"] as? Bool == true)
        #expect((counted["summary"] as? String ?? "").contains("Order a refill now"))
        let id = (count.json["entry"] as? [String: Any])?["id"] as? String ?? ""
        #expect(try cli.run(["supply", "delete", id], now: "2026-11-22 08:30").status == 64, "deleting needs --yes")
        let deleted = try cli.run(["supply", "delete", id, "--yes"], now: "2026-11-22 08:30")
        #expect((deleted.json["supply"] as? [String: Any])?["remaining_ml"] as? Double == 340)
        let text = try cli.run(["supply"], now: "2026-11-22 08:30", json: false)
        #expect(text.stdout.contains("340 mL (170 g) of XYWAV left: 37 full nights at 4.5 g a night"), "\(text.stdout)")
    }
}

@Suite("dosetap import of the Health app's export")
struct HealthImportCLITests {
    @Test(
        "export.xml imports through the built binary; session show --json carries the night's sleep in minutes; a hostile file changes nothing",
        .readsSQLiteFile)
    func importAndShow() throws {
        let cli = try CLI()
        #expect(try cli.run(["dose1"], now: "2026-11-01 22:00").status == 0)
        #expect(try cli.run(["dose2"], now: "2026-11-02 00:50").status == 0)
        let export = cli.directory.appendingPathComponent("export.xml")
        let record = { (value: String, start: String, end: String) in
            #"<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="\#(start)" endDate="\#(end)" value="HKCategoryValueSleepAnalysis\#(value)"/>"#
        }
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        ]>
        <HealthData locale="en_US">
        \(record("AsleepCore", "2026-11-01 22:10:00 -0500", "2026-11-01 23:40:00 -0500"))
        \(record("AsleepDeep", "2026-11-01 23:40:00 -0500", "2026-11-02 00:30:00 -0500"))
        \(record("AsleepREM", "2026-11-02 00:30:00 -0500", "2026-11-02 06:30:00 -0500"))
        </HealthData>
        """.write(to: export, atomically: true, encoding: .utf8)
        let imported = try cli.run(["import", export.path], now: "2026-11-05 08:00")
        #expect(imported.status == 0, "\(imported.stdout)")
        #expect((imported.json["imported"] as? [String: Any])?["sleep"] as? Int == 3)
        let shown = try cli.run(["session", "show", "2026-11-01"], now: "2026-11-05 08:00")
        let night = try #require((try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [[String: Any]])?.first)
        let sleep = try #require(night["sleep"] as? [String: Any])
        #expect(sleep["minutes_asleep"] as? Double == 500 && sleep["waso_minutes"] as? Double == 0 && sleep["stage_at_dose2"] as? String == "rem")
        #expect(sleep["minutes_from_deep_to_dose2"] as? Double == 20 && (sleep["stage_minutes"] as? [String: Double])?["deep"] == 50)
        let hostile = cli.directory.appendingPathComponent("laughs.xml")
        try
            #"<?xml version="1.0"?><!DOCTYPE HealthData [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><HealthData>&b;</HealthData>"#
            .write(to: hostile, atomically: true, encoding: .utf8)
        let before = try cli.databaseBytes()
        let refused = try cli.run(["import", hostile.path], now: "2026-11-05 08:00")
        #expect(refused.status == 65 || refused.status == 64, "\(refused.status) \(refused.stdout)")
        let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("ENTITY"), "\(message)")
        #expect(try cli.databaseBytes() == before)
    }
}
