public import Foundation

/// The fixed dose-window arithmetic (SPEC D2, D3, §3.1), on absolute instants so DST and travel never
/// stretch or shrink a night.
public enum DoseWindow {
    /// Dose 2 may be taken from this many minutes after Dose 1.
    public static let opensAfterMinutes = 150
    /// From here 15 minutes or fewer remain; snoozing stops.
    public static let nearCloseAfterMinutes = 225
    /// The window closes this many minutes after Dose 1.
    public static let closesAfterMinutes = 240
    /// Without Dose 2 or a skip, the night expires this many minutes after Dose 1.
    public static let sleepThroughExpiryMinutes = 270
    /// A snooze moves the wake alarm this far.
    public static let snoozeMinutes = 10
    /// A Dose 2 within this many minutes of the target counts as on time.
    public static let onTimeToleranceMinutes = 10
    /// A new Dose 1 needs this many minutes since the last oxybate dose of any night (D14).
    public static let redoseSpacingMinutes = 480

    /// Where an instant falls relative to a Dose 1.
    public enum Position: Sendable, Equatable {
        case beforeWindow, active, nearClose, closed
    }

    /// The position of `instant` for a Dose 1 at `dose1`: [0,150) before, [150,225) active, [225,240) near close, [240,∞) closed.
    /// Instants before Dose 1 count as before the window.
    public static func position(of instant: Date, dose1: Date) -> Position {
        let elapsed = instant.timeIntervalSince(dose1)
        if elapsed < minutes(opensAfterMinutes) { return .beforeWindow }
        if elapsed < minutes(nearCloseAfterMinutes) { return .active }
        if elapsed < minutes(closesAfterMinutes) { return .nearClose }
        return .closed
    }

    /// When the window opens.
    public static func opens(after dose1: Date) -> Date { dose1.addingTimeInterval(minutes(opensAfterMinutes)) }
    /// When snoozing stops.
    public static func nearClose(after dose1: Date) -> Date { dose1.addingTimeInterval(minutes(nearCloseAfterMinutes)) }
    /// When the window closes.
    public static func closes(after dose1: Date) -> Date { dose1.addingTimeInterval(minutes(closesAfterMinutes)) }
    /// When an untaken, unskipped Dose 2 expires.
    public static func expires(after dose1: Date) -> Date { dose1.addingTimeInterval(minutes(sleepThroughExpiryMinutes)) }

    /// Whole minutes from `start` to `end`, truncated toward zero.
    public static func wholeMinutes(from start: Date, to end: Date) -> Int {
        Int(end.timeIntervalSince(start) / 60)
    }

    static func minutes(_ count: Int) -> TimeInterval { TimeInterval(count * 60) }
}

extension DoseWindow {
    /// Whether a Dose 1 → Dose 2 interval is on time: within ±10 minutes of the target, both ends included (D10).
    public static func isOnTime(intervalMinutes: Int, targetMinutes: Int) -> Bool {
        abs(intervalMinutes - targetMinutes) <= onTimeToleranceMinutes
    }

    /// Whether Dose 2 came from a natural wake (seed 003's glossary: woke without the alarm): taken inside the window
    /// before the wake alarm was due, with no snooze that night. An early Dose 2 is never one (D18): it is a warning.
    public static func isNaturalWake(dose1: Date, dose2: Date, targetMinutes: Int, snoozes: Int) -> Bool {
        dose2 >= opens(after: dose1) && dose2.timeIntervalSince(dose1) < minutes(targetMinutes) && snoozes == 0
    }
}

extension EventMetadata {
    /// Dose 2's early and late flags for a dose taken at `instant` after Dose 1 (D2: early iff before the window opens,
    /// late iff at or after it closes). The one classifier for actions, corrections and imports alike.
    public mutating func classifyDose2(at instant: Date, dose1: Date) {
        let position = DoseWindow.position(of: instant, dose1: dose1)
        isEarly = position == .beforeWindow
        isLate = position == .closed
    }
}
