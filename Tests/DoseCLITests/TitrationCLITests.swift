import Foundation
import Testing

/// Titration plans (D19), end to end through the binary: the plan changes tonight's amounts and the supply, a fast step
/// needs its confirmation, and the insights tell the steps apart.
@Suite("dosetap end to end: a titration plan")
struct TitrationCLITests {
    @Test("a step changes tonight's amounts and the supply; a fast step is refused until confirmed; the insights show each step")
    func titrationPlan() throws {
        let cli = try CLI()
        #expect(try cli.run(["supply", "log", "--bottles", "2", "--reason", "pharmacy"], now: "2026-11-21 20:00").status == 0)
        let before = try cli.run(["supply"], now: "2026-11-21 20:00").json
        #expect(before["nights_left"] as? Int == 40 && before["runs_out_on"] as? String == "2026-12-31")

        // Faster than the label: refused with its reason, and nothing changes until it is confirmed.
        let fast = try cli.run(["settings", "set", "titration", "2026-11-24 3 g + 3 g; 2026-11-26 3.75 g + 3 g"], now: "2026-11-21 20:00")
        #expect(fast.status == 1 && fast.errorCode == "422_TITRATION_TOO_FAST", "\(fast.stdout)")
        #expect(fast.stdout.contains("2 days after the last rise"), "\(fast.stdout)")
        #expect(try cli.run(["settings", "get", "titration"], now: "2026-11-21 20:00", json: false).stdout == "\n")
        let words = try cli.run(["settings", "set", "titration", "2026-11-24 4.5 g + 3.5 g"], now: "2026-11-21 20:00", json: false)
        #expect(words.status == 1)
        #expect(words.stderr.contains("raises the nightly amount by 3.5 g at once, from 4.5 g to 8 g"), "\(words.stderr)")
        #expect(words.stderr.contains("--confirm fast_titration"), "the CLI says how to confirm: \(words.stderr)")
        let confirmed = try cli.run(
            ["settings", "set", "titration", "2026-11-24 3 g + 3 g; 2026-11-26 3.75 g + 3 g", "--confirm", "fast_titration"],
            now: "2026-11-21 20:00")
        #expect(confirmed.status == 0, "\(confirmed.stdout)")
        let wrongConfirm = try cli.run(["settings", "set", "titration", "", "--confirm", "early"], now: "2026-11-21 20:00")
        #expect(wrongConfirm.status == 64 && wrongConfirm.stdout.contains("fast_titration"))

        // The plan as the label allows it: no confirmation.
        let plan = "2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g"
        #expect(try cli.run(["settings", "set", "titration", plan], now: "2026-11-21 20:00").status == 0)
        #expect(try cli.run(["settings", "get", "titration"], now: "2026-11-21 20:00", json: false).stdout == plan + "\n")
        let supply = try cli.run(["supply"], now: "2026-11-21 20:00").json
        #expect(
            supply["nights_left"] as? Int == 30 && supply["runs_out_on"] as? String == "2026-12-21", "10 nights at 4.5 g, 7 at 6 g, 13 at 6.75 g")

        // Before the step, the profile's amounts; from its night on, the step's, on Tonight and on the night's record.
        let lastNight = try cli.run(["status"], now: "2026-11-30 21:00").json["regimen"] as? [String: Any]
        #expect(lastNight?["doses_mg"] as? [Int] == [2250, 2250] && (lastNight?["titration_step"] == nil || lastNight?["titration_step"] is NSNull))
        let tonight = try cli.run(["status"], now: "2026-12-01 21:00")
        let regimen = tonight.json["regimen"] as? [String: Any]
        #expect(regimen?["doses_mg"] as? [Int] == [3000, 3000] && regimen?["titration_step"] as? String == "2026-12-01")
        let human = try cli.run(["status"], now: "2026-12-01 21:00", json: false)
        #expect(human.stdout.contains("3 g at bedtime, 3 g 150–240 minutes later (titration step of 2026-12-01)"), "\(human.stdout)")

        #expect(try cli.run(["dose1"], now: "2026-11-30 22:00").status == 0)
        #expect(try cli.run(["dose2"], now: "2026-12-01 00:45").status == 0)
        #expect(try cli.run(["checkin"], now: "2026-12-01 07:00").status == 0)
        #expect(try cli.run(["dose1"], now: "2026-12-01 22:00").status == 0)
        #expect(try cli.run(["dose2"], now: "2026-12-02 00:45").status == 0)
        #expect(try cli.run(["checkin"], now: "2026-12-02 07:00").status == 0)
        let show = try cli.run(["session", "show", "2026-12-01"], now: "2026-12-02 08:00")
        let night = ((try? JSONSerialization.jsonObject(with: Data(show.stdout.utf8))) as? [[String: Any]])?.first ?? [:]
        #expect((night["regimen"] as? [String: Any])?["doses_mg"] as? [Int] == [3000, 3000])
        let after = try cli.run(["supply"], now: "2026-12-02 08:00").json
        #expect(after["remaining_ml"] as? Double == 339.0, "4.5 g then 6 g at 500 mg/mL: 9 mL and 12 mL")

        // Each step with its nights.
        let insights = try cli.run(["insights", "--from", "2026-11-30", "--to", "2026-12-01"], now: "2026-12-02 08:00").json
        let periods = insights["regimen_periods"] as? [[String: Any]] ?? []
        #expect(periods.map { $0["from"] as? String } == ["2026-11-30", "2026-12-01"])
        #expect(periods.map { ($0["regimen"] as? [String: Any])?["doses_mg"] as? [Int] } == [[2250, 2250], [3000, 3000]])
        #expect(
            periods.last?["sentence"] as? String == "2026-12-01, XYWAV twice nightly 3 g + 3 g (titration step of 2026-12-01): 1 night; "
                + "Dose 2 on target 1; wellness 58 (1 check-in)")
        let text = try cli.run(["insights", "--from", "2026-11-30", "--to", "2026-12-01"], now: "2026-12-02 08:00", json: false)
        #expect(text.stdout.contains("XYWAV twice nightly 3 g + 3 g (titration step of 2026-12-01)"), "\(text.stdout)")

        // The clinician report: the plan, tonight's step, and each step with its nights.
        let out = cli.directory.appendingPathComponent("report.html").path
        #expect(try cli.run(["report", "--from", "2026-11-30", "--to", "2026-12-01", "--out", out], now: "2026-12-02 08:00").status == 0)
        let report = try String(contentsOfFile: out, encoding: .utf8)
        #expect(report.contains("2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g (before the first step: 2.25 g + 2.25 g)"))
        #expect(report.contains("<dt>2026-12-01</dt><dd>XYWAV twice nightly 3 g + 3 g (titration step of 2026-12-01)"), "\(report)")
        #expect(report.contains("1 night; Dose 2 on target 1; wellness 58 (1 check-in)"))
        #expect(report.contains("<dt>2026-11-30</dt><dd>XYWAV twice nightly 2.25 g + 2.25 g"))
    }
}
