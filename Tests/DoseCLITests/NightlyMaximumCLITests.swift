import Foundation
import Testing

/// D20 end to end: the built binary refuses what would pass the nightly maximum, whatever is confirmed, and keeps the
/// truth of a dose taken anyway.
@Suite("dosetap end to end: the nightly maximum (D20)")
struct NightlyMaximumCLITests {
    @Test("one extra within 9 g is kept; a second is refused with 422_NIGHTLY_MAXIMUM and nothing changes; took-anyway records it")
    func nightlyMaximum() throws {
        let cli = try CLI()
        #expect(try cli.run(["settings", "set", "dose1_mg", "3000"], now: "2026-11-21 12:00").status == 0)
        #expect(try cli.run(["settings", "set", "dose2_mg", "3000"], now: "2026-11-21 12:00").status == 0)
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(try cli.run(["dose2"], now: "2026-11-22 01:15").status == 0)
        let extra = try cli.run(["dose2", "--confirm", "extra"], now: "2026-11-22 01:40")
        #expect(extra.status == 0 && extra.stdout.contains("9 g in all"), "\(extra.stdout)")
        let before = try cli.run(["session", "show", "2026-11-21"], now: "2026-11-22 01:50").stdout
        let second = try cli.run(["dose2", "--confirm", "extra,early,late,after_skip"], now: "2026-11-22 01:50")
        #expect(second.status == 1 && second.errorCode == "422_NIGHTLY_MAXIMUM", "\(second.stdout)")
        #expect(second.stdout.contains("took-anyway") && second.stdout.contains("emergency services"), "\(second.stdout)")
        #expect(try cli.run(["session", "show", "2026-11-21"], now: "2026-11-22 01:50").stdout == before, "the refusal changed nothing")
        let anyway = try cli.run(["event", "took-anyway", "--at", "01:45"], now: "2026-11-22 01:55")
        #expect(anyway.status == 0, "\(anyway.stdout)")
        #expect(anyway.stdout.contains("12 g") && anyway.stdout.contains("more than the 9 g"), "\(anyway.stdout)")
        let bad = try cli.run(["event", "took-anyway", "--mg", "90000"], now: "2026-11-22 01:56")
        #expect(bad.status == 64 && bad.errorCode == "400_INVALID_INPUT" && bad.stdout.contains("9000 mg"), "\(bad.stdout)")
    }
}
