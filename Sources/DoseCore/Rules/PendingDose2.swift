public import Foundation

/// Where an undecided Dose 2 stands at one instant, for the refusal that keeps a night from ending by accident (D16).
public struct PendingDose2: Sendable, Hashable {
    /// Where the instant lies relative to the window.
    public enum Position: String, Sendable, Hashable {
        case beforeWindow = "before_window"
        case window
        case afterWindow = "after_window"
    }

    public let position: Position
    public let opensAt: Date
    public let closesAt: Date
    public let opensLocalTime: String
    public let closesLocalTime: String
    /// Whole minutes to the next edge: until the window opens (rounded up), until it closes, or since it closed.
    public let minutes: Int

    /// Dose 2's `window` after a Dose 1 at `dose1`, seen from `instant`, with clock times in `zone`.
    public init(dose1: Date, window: DoseWindow, at instant: Date, zone: TimeZone) {
        opensAt = window.opens(after: dose1)
        closesAt = window.closes(after: dose1)
        opensLocalTime = LocalClock.hourMinute(opensAt, in: zone)
        closesLocalTime = LocalClock.hourMinute(closesAt, in: zone)
        if instant < opensAt {
            position = .beforeWindow
            minutes = max(1, Int((opensAt.timeIntervalSince(instant) / 60).rounded(.up)))
        } else if instant < closesAt {
            position = .window
            minutes = DoseWindow.wholeMinutes(from: instant, to: closesAt)
        } else {
            position = .afterWindow
            minutes = DoseWindow.wholeMinutes(from: closesAt, to: instant)
        }
    }

    /// Where Dose 2 stands, in one sentence that names when the window opens or closes.
    public var sentence: String {
        switch position {
        case .beforeWindow:
            "Dose 2 is still to come: its window opens at \(opensLocalTime), in \(DurationText.words(minutes: minutes)), and closes at "
                + "\(closesLocalTime)."
        case .window:
            "Dose 2 is not taken yet: its window is open until \(closesLocalTime) (\(DurationText.words(minutes: minutes)) left)."
        case .afterWindow:
            "Dose 2 is neither taken nor skipped: its window closed at \(closesLocalTime), \(DurationText.words(minutes: minutes)) ago."
        }
    }
}
