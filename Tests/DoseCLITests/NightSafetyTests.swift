import Foundation
import Testing

/// D14, D15 and the night's words, end to end through the built binary.
@Suite("dosetap end to end: no re-dosing, no wake-up by accident, the night in words")
struct NightSafetyTests {
    /// A night with Dose 1 at 22:30 and Dose 2 at 01:20.
    func nightWithDose2() throws -> CLI {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(try cli.run(["dose2"], now: "2026-11-22 01:20").status == 0)
        return cli
    }

    @Test("after Dose 2, status says what happened in words and the next step is sleep, not Wake Up")
    func outcomeInWords() throws {
        let cli = try nightWithDose2()
        let status = try cli.run(["status"], now: "2026-11-22 01:21", json: false)
        #expect(status.stdout.contains("Dose 2 taken at 01:20 — 170 min after Dose 1: on target."))
        #expect(status.stdout.contains("Next: nothing now; sleep."))
        let json = try cli.run(["status"], now: "2026-11-22 01:21")
        #expect(json.json["primary_action"] as? String == "none")
        #expect(json.json["outcome_text"] as? String == "Dose 2 taken at 01:20 — 170 min after Dose 1: on target")
        #expect(json.json["wake_asks_until"] as? String == "2026-11-22T08:20:00.000Z")
    }

    @Test("near the close the next step never offers a snooze that is off")
    func noSnoozeOffer() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        let status = try cli.run(["status"], now: "2026-11-22 02:18", json: false)
        let next = status.stdout.split(separator: "\n").first { $0.contains("Next:") } ?? ""
        #expect(next.contains("take Dose 2 now") && !next.contains("snooze"))
        #expect(status.stdout.contains("Less than 15 minutes"))
    }

    @Test("after an early wake-up and check-in, Dose 1 from any surface is refused for 8 hours; new_night records it")
    func noRedosing() throws {
        let cli = try nightWithDose2()
        #expect(try cli.run(["wake", "--yes"], now: "2026-11-22 01:30").status == 0)
        #expect(try cli.run(["checkin"], now: "2026-11-22 01:40").status == 0)
        for command in [["dose1"], ["press", "single"], ["open", "dosetap://dose1"]] {
            let run = try cli.run(command, now: "2026-11-22 01:50")
            #expect(run.status == 1 && run.errorCode == "409_RECENT_DOSE", "\(command)")
        }
        #expect(try cli.run(["dose1"], now: "2026-11-22 09:19").errorCode == "409_RECENT_DOSE")
        let confirmed = try cli.run(["dose1", "--confirm", "new_night"], now: "2026-11-22 01:50", json: false)
        #expect(confirmed.status == 0)
        #expect(confirmed.stdout.contains("30 min from the last oxybate dose"))
        #expect(try cli.run(["history"]).stdout.contains("new_night"))
    }

    @Test("8 hours after the last dose, Dose 1 needs no confirmation")
    func eightHoursLater() throws {
        let cli = try nightWithDose2()
        try cli.run(["checkin"], now: "2026-11-22 07:00")
        #expect(try cli.run(["dose1"], now: "2026-11-22 09:20").status == 0)
    }

    @Test("wake-up within 2 h of Dose 2 asks on a terminal: no keeps the night open, yes logs it", .readsSQLiteFile)
    func wakeAsksOnTerminal() throws {
        let cli = try nightWithDose2()
        let command = [CLI.binary.path, "wake", "--db", cli.database, "--tz", cli.zone, "--now", "2026-11-22T06:35:00Z"]
        // util-linux `script` gives the binary a real terminal, as a person at a shell has.
        func ask(_ answer: String) throws -> Run {
            try CLI.execute(
                ["-qec", command.joined(separator: " "), "/dev/null"], stdin: answer, executable: URL(fileURLWithPath: "/usr/bin/script"))
        }
        let no = try ask("n\n")
        #expect(no.stdout.contains("Are you up for the day?") && no.stdout.contains("Not logged"))
        #expect(try cli.run(["status"], now: "2026-11-22 01:36").json["wake_at"] is NSNull)
        let yes = try ask("y\n")
        #expect(yes.status == 0 && yes.stdout.contains("Wake Up recorded"), "\(yes.stdout)")
        #expect(try cli.run(["status"], now: "2026-11-22 01:36").json["phase"] as? String == "finalizing")
    }

    @Test("history lists a night's events by time even with nights newest first")
    func historyOrder() throws {
        let cli = try nightWithDose2()
        try cli.run(["log", "bathroom", "--at", "2026-11-22T04:00:00Z"], now: "2026-11-22 01:30")
        let text = try cli.run(["history"], now: "2026-11-22 01:31", json: false).stdout
        let dose1 = try #require(text.range(of: "22:30  Dose 1"))
        let bathroom = try #require(text.range(of: "23:00  Bathroom"))
        let dose2 = try #require(text.range(of: "01:20  Dose 2"))
        #expect(dose1.lowerBound < bathroom.lowerBound && bathroom.lowerBound < dose2.lowerBound, "\(text)")
    }
}

/// D16 and D17 end to end, through the built binary: on a real terminal (util-linux `script` gives it one) the CLI asks;
/// anywhere else it refuses and names the flag.
@Suite("dosetap: ending a night with Dose 2 undecided, and a new Dose 1 within 8 hours")
struct NightEndingCLITests {
    /// `dosetap ARGS` on a pseudo-terminal, answering `answer` to its question.
    static func onTerminal(_ cli: CLI, _ arguments: [String], now: String, answer: String) throws -> Run {
        let command = ([CLI.binary.path] + arguments + ["--db", cli.database, "--tz", cli.zone, "--now", CLI.instant(now, zone: cli.zone)])
            .map { "'\($0)'" }.joined(separator: " ")
        return try CLI.execute(["-qec", command, "/dev/null"], stdin: answer + "\n", executable: URL(fileURLWithPath: "/usr/bin/script"))
    }

    @Test("on a terminal wake asks; n keeps the night, y ends it and cancels the alarms", .readsSQLiteFile, arguments: [("n", false), ("y", true)])
    func asksOnTerminal(answer: String, ends: Bool) throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 23:36")
        let run = try Self.onTerminal(cli, ["wake"], now: "2026-11-21 23:59", answer: answer)
        #expect(run.stdout.contains("its window opens at 02:06") && run.stdout.contains("End the night anyway? [y/N]"), "\(run.stdout)")
        #expect(run.status == (ends ? 0 : 1))
        let status = try cli.run(["status"], now: "2026-11-22 00:00").json
        #expect((status["phase"] as? String) == (ends ? "finalizing" : "before_window"))
        #expect((status["next_reminder"] is NSNull) == ends)
    }

    @Test("checkin --confirm end_night ends the night; the flag is refused where it does not belong")
    func confirmFlag() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 23:36")
        let refused = try cli.run(["checkin", "--quality", "4"], now: "2026-11-21 23:59")
        #expect(refused.status == 1 && refused.errorCode == "409_DOSE2_PENDING")
        let wrong = try cli.run(["checkin", "--confirm", "early"], now: "2026-11-21 23:59")
        #expect(wrong.status == 64 && wrong.errorCode == "400_INVALID_INPUT")
        let done = try cli.run(["checkin", "--quality", "4", "--confirm", "end_night"], now: "2026-11-21 23:59")
        #expect(done.status == 0, "\(done.stdout)")
        let shown = try cli.run(["session", "show", "2026-11-21"], now: "2026-11-22 00:00").stdout
        #expect(shown.contains("\"terminal_state\" : \"aborted\"") || shown.contains("\"terminal_state\":\"aborted\""), "\(shown)")
    }

    @Test("D17: a button press or a dosetap:// link never records a Dose 1 within 8 h; the CLI does with new_night")
    func halfAsleepDose1() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        try cli.run(["dose2"], now: "2026-11-22 01:20")
        try cli.run(["checkin"], now: "2026-11-22 06:00")
        let status = try cli.run(["status"], now: "2026-11-22 07:00").json
        #expect(status["primary_action"] as? String == "wait_for_new_night")
        #expect(
            status["new_dose1_from"] as? String == CLI.instant("2026-11-22 09:20", zone: cli.zone).replacingOccurrences(of: ".000Z", with: ".000Z"))
        let night = (status["blocking_night"] as? [String: Any])?["session_id"] as? String ?? ""
        #expect(!night.isEmpty)
        let words = try cli.run(["status"], now: "2026-11-22 07:00", json: false).stdout
        #expect(words.contains("Last night: Dose 1 22:30, Dose 2 01:20") && words.contains("no Dose 1 before 09:20"), "\(words)")
        for command in [["press", "single"], ["open", "dosetap://dose1"]] {
            let run = try cli.run(command, now: "2026-11-22 07:00")
            #expect(run.errorCode == "409_RECENT_DOSE" && (run.json["error"] as? [String: Any])?["confirm"] == nil, "\(command)")
        }
        // Every night is reachable by its id, as status and history name it.
        let shown = try cli.run(["session", "show", night], now: "2026-11-22 07:00")
        #expect(shown.status == 0 && shown.stdout.contains(night))
        #expect(try cli.run(["session", "show", "no-such-night"], now: "2026-11-22 07:00").errorCode == "404_NOT_FOUND")
        let recorded = try cli.run(["dose1", "--confirm", "new_night"], now: "2026-11-22 07:00")
        #expect(recorded.status == 0)
    }
}
