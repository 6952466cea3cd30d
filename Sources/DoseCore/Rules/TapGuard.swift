public import Foundation

/// One tap is one action on a surface a person uses half asleep (D15, sharpened 2026-11-28): the second tap of a double
/// tap, at any gap a half-asleep finger takes, lands on nothing new. The page and the server keep the same rule; the page
/// also knows where the finger was, the server knows only when the page was drawn.
public enum TapGuard {
    /// How long after a tap that reached the server its page records nothing else but Undo. Longer than D15's 2 s, so
    /// that a second tap 2.5 s after the first, with the first's time on the wire, still lands inside it.
    public static let settleSeconds: TimeInterval = 3

    /// How long a question opened by a tap takes no answer.
    public static let answerSeconds: TimeInterval = 1

    /// The margin, in CSS pixels, around a tapped control in which nothing new that acts may appear while it settles.
    public static let marginPixels = 48

    /// Where on a page a tap landed, as far as the rule cares.
    public enum Spot: String, Sendable, CaseIterable {
        /// Undo lives in a place of its own, where no tap that drew the page could have been, so it answers at once.
        case undo
        /// An answer to a question a tap opened: never where that tap was, so it only waits out the first second.
        case answer
        /// Every other control that records something.
        case control
    }

    /// Whether a tap at `spot` counts, `elapsed` seconds after the tap that drew its page; nil when the page was not drawn
    /// in answer to a tap (opened, reloaded), which always counts.
    public static func counts(_ spot: Spot, elapsed: TimeInterval?) -> Bool {
        guard let elapsed else { return true }
        switch spot {
        case .undo: return true
        case .answer: return elapsed >= answerSeconds
        case .control: return elapsed >= settleSeconds
        }
    }

    /// Seconds since `drawnAfter` (the instant of the tap that drew the page) at `now`, or nil when there is none to go by:
    /// an instant in the future is not one a server of this site wrote, so it is not trusted to hold taps back.
    public static func elapsed(since drawnAfter: Date?, now: Date) -> TimeInterval? {
        guard let drawnAfter, drawnAfter <= now.addingTimeInterval(1) else { return nil }
        return max(0, now.timeIntervalSince(drawnAfter))
    }

    /// How long from `now` the page drawn after a tap at `drawnAfter` still holds back taps at `spot`, in milliseconds
    /// (0 when it does not), for the page to show the same rule the server keeps.
    public static func remainingMilliseconds(_ spot: Spot, drawnAfter: Date?, now: Date) -> Int {
        guard let elapsed = elapsed(since: drawnAfter, now: now) else { return 0 }
        let hold: TimeInterval =
            switch spot {
            case .undo: 0
            case .answer: answerSeconds
            case .control: settleSeconds
            }
        // In whole milliseconds, each rounded on its own, so 0.8 s into 3 s leaves 2,200, not 2,201.
        return max(0, Int((hold * 1000).rounded()) - Int((elapsed * 1000).rounded()))
    }
}
