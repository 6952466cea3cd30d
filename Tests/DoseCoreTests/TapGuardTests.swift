import DoseCore
import Foundation
import Testing

@Suite("D15: one tap is one action, at every gap a half-asleep double tap takes")
struct TapGuardTests {
    static let drawn = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "a tap on a page drawn after a tap counts only once that tap has settled; Undo at once; a question's answer after 1 s",
        arguments: [
            (TapGuard.Spot.control, 0.0, false), (.control, 0.1, false), (.control, 2.5, false), (.control, 2.999, false),
            (.control, 3.0, true), (.control, 60, true),
            (.answer, 0.0, false), (.answer, 0.6, false), (.answer, 0.999, false), (.answer, 1.0, true), (.answer, 2.0, true),
            (.undo, 0.0, true), (.undo, 0.3, true),
        ])
    func counts(spot: TapGuard.Spot, secondsAfter: Double, counts: Bool) {
        let now = Self.drawn.addingTimeInterval(secondsAfter)
        let elapsed = TapGuard.elapsed(since: Self.drawn, now: now)
        #expect(TapGuard.counts(spot, elapsed: elapsed) == counts)
        #expect((TapGuard.remainingMilliseconds(spot, drawnAfter: Self.drawn, now: now) > 0) == !counts)
    }

    @Test("every gap of the sweep up to 2.5 s falls inside the settling, with the wire's time to spare")
    func sweepGaps() {
        for gap in [0.1, 0.3, 0.6, 0.8, 1.2, 1.8, 2.5] {
            #expect(TapGuard.settleSeconds > gap + 0.4, "a second tap \(gap) s after the first")
        }
        #expect(TapGuard.settleSeconds >= 2, "never less than D15's 2 s")
    }

    @Test("a page drawn without a tap holds nothing back; an instant from the future is not trusted to")
    func noTap() {
        #expect(TapGuard.counts(.control, elapsed: nil))
        #expect(TapGuard.elapsed(since: nil, now: Self.drawn) == nil)
        #expect(TapGuard.elapsed(since: Self.drawn.addingTimeInterval(30), now: Self.drawn) == nil)
        #expect(TapGuard.elapsed(since: Self.drawn.addingTimeInterval(0.5), now: Self.drawn) == 0, "a clock half a second ahead")
        #expect(TapGuard.remainingMilliseconds(.control, drawnAfter: nil, now: Self.drawn) == 0)
        #expect(TapGuard.remainingMilliseconds(.control, drawnAfter: Self.drawn, now: Self.drawn.addingTimeInterval(1)) == 2000)
        #expect(TapGuard.remainingMilliseconds(.answer, drawnAfter: Self.drawn, now: Self.drawn.addingTimeInterval(0.25)) == 750)
    }
}
