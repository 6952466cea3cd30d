import Foundation
import Testing

/// The regimen as data (D19), end to end: a twice-nightly history, then once nightly.
@Suite("dosetap end to end: twice nightly, then once nightly")
struct RegimenCLITests {
    @Test("after a switch to once nightly, tonight has no window and Dose 2 is refused by its words; past nights keep their judgements")
    func switchToOnceNightly() throws {
        let cli = try CLI()
        #expect(try cli.run(["settings", "set", "target_interval", "180"], now: "2026-11-20 12:00").status == 0)
        // Two twice-nightly nights: Dose 2 in the window but off target, then early (confirmed).
        try cli.run(["dose1"], now: "2026-11-20 22:00")
        #expect(try cli.run(["dose2"], now: "2026-11-21 01:20").status == 0)
        try cli.run(["checkin"], now: "2026-11-21 07:00")
        try cli.run(["dose1"], now: "2026-11-21 22:00")
        #expect(try cli.run(["dose2", "--confirm", "early"], now: "2026-11-21 23:59").status == 0)
        try cli.run(["checkin"], now: "2026-11-22 07:00")

        // Once nightly from now on: a twice-nightly amount is refused together with it, then both change.
        let tooMuch = try cli.run(["settings", "set", "dose1_mg", "6500"], now: "2026-11-22 12:00")
        #expect(tooMuch.status == 64 && tooMuch.errorCode == "400_INVALID_INPUT" && tooMuch.stdout.contains("twice nightly"))
        #expect(try cli.run(["settings", "set", "regimen", "once_nightly"], now: "2026-11-22 12:00").status == 0)
        #expect(try cli.run(["settings", "set", "dose1_mg", "6000"], now: "2026-11-22 12:00").status == 0)

        let before = try cli.run(["status"], now: "2026-11-22 21:00", json: false)
        #expect(before.stdout.contains("once nightly"), "\(before.stdout)")
        let dose1 = try cli.run(["dose1"], now: "2026-11-22 22:00", json: false)
        #expect(dose1.status == 0 && dose1.stdout.contains("The dose recorded at 22:00."), "no 'Dose 1' where there is no Dose 2: \(dose1.stdout)")
        let status = try cli.run(["status"], now: "2026-11-23 00:40").json
        #expect(status["phase"] as? String == "completed" && status["outcome"] as? String == "dose_taken")
        #expect(status["window_opens_at"] is NSNull && status["window_closes_at"] is NSNull && status["target_at"] is NSNull)
        #expect(status["next_reminder"] is NSNull && (status["dose2_periods"] as? [Any])?.isEmpty == true)
        let regimen = status["regimen"] as? [String: Any]
        #expect(regimen?["kind"] as? String == "once_nightly" && regimen?["window"] is NSNull && regimen?["doses_mg"] as? [Int] == [6000])

        for command in [["dose2"], ["dose2", "--confirm", "early"], ["skip"], ["snooze"], ["press", "single"]] {
            let refused = try cli.run(command, now: "2026-11-23 00:40")
            #expect(refused.status == 1 && refused.errorCode == "422_NOT_IN_REGIMEN", "\(command): \(refused.stdout)")
        }
        let words = try cli.run(["dose2"], now: "2026-11-23 00:40", json: false)
        #expect(words.stderr.contains("Tonight's regimen is XYWAV once nightly: there is no Dose 2 to take, skip or snooze."), "\(words.stderr)")

        // The past nights keep the regimen and the judgement of their time.
        func night(_ date: String, now: String? = nil) throws -> [String: Any] {
            let run = try cli.run(["session", "show", date], now: now)
            return ((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [[String: Any]])?.first ?? [:]
        }
        let first = try night("2026-11-20")
        #expect((first["regimen"] as? [String: Any])?["kind"] as? String == "twice_nightly")
        #expect(((first["regimen"] as? [String: Any])?["window"] as? [String: Any])?["opens_after_minutes"] as? Int == 150)
        #expect((first["regimen"] as? [String: Any])?["target_minutes"] as? Int == 180)
        #expect(first["dose2_timing"] as? String == "in_window")
        #expect(try night("2026-11-21")["dose2_timing"] as? String == "early")
        let tonight = try night("2026-11-22", now: "2026-11-23 00:41")
        #expect(tonight["dose2_timing"] as? String == "one_dose" && (tonight["regimen"] as? [String: Any])?["kind"] as? String == "once_nightly")
    }
}
