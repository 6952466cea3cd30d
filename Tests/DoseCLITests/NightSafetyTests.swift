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

    @Test("wake-up within 2 h of Dose 2 asks on a terminal: no keeps the night open, yes logs it")
    func wakeAsksOnTerminal() throws {
        let cli = try nightWithDose2()
        let command = [CLI.binary.path, "wake", "--db", cli.database, "--tz", cli.zone, "--now", "2026-11-22T06:35:00Z"]
        // util-linux `script` gives the binary a real terminal, as a person at a shell has.
        func ask(_ answer: String) throws -> Run {
            try CLI.execute(["-qec", command.joined(separator: " "), "/dev/null"], stdin: answer, executable: URL(fileURLWithPath: "/usr/bin/script"))
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
