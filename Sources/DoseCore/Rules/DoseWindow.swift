public import Foundation

/// The Dose 2 window of a twice-nightly regimen: its edges in minutes after Dose 1. Only a regimen makes one (see
/// ``DoseRegimen/window``); the label's is ``label``, and it is not a person's setting.
public struct DoseWindow: Hashable, Sendable {
    /// Dose 2 may be taken from this many minutes after Dose 1.
    public let opensAfterMinutes: Int
    /// From here 15 minutes or fewer remain; snoozing stops.
    public let nearCloseAfterMinutes: Int
    /// The window closes this many minutes after Dose 1.
    public let closesAfterMinutes: Int
    /// Without Dose 2 or a skip, the night expires this many minutes after Dose 1.
    public let sleepThroughExpiryMinutes: Int
    /// The wake-alarm targets a person may choose inside the window.
    public let targetOptions: [Int]

    /// The window of the XYWAV and Xyrem labels: Dose 2 2½ to 4 hours after Dose 1 (SPEC §3.1, D2).
    public static let label = DoseWindow(
        opensAfterMinutes: 150, nearCloseAfterMinutes: 225, closesAfterMinutes: 240, sleepThroughExpiryMinutes: 270,
        targetOptions: [165, 180, 195, 210, 225])

    /// A snooze moves the wake alarm this far.
    public static let snoozeMinutes = 10
    /// A Dose 2 within this many minutes of the target counts as on time.
    public static let onTimeToleranceMinutes = 10
    /// A new Dose 1 needs this many minutes since the last oxybate dose of any night (D14), whatever the regimen.
    public static let redoseSpacingMinutes = 480

    /// Where an instant falls relative to a Dose 1.
    public enum Position: Sendable, Equatable {
        case beforeWindow, active, nearClose, closed
    }

    /// The position of `instant` for a Dose 1 at `dose1`: [0, opens) before, [opens, near close) active, [near close,
    /// closes) near close, [closes, ∞) closed. Instants before Dose 1 count as before the window.
    public func position(of instant: Date, dose1: Date) -> Position {
        let elapsed = instant.timeIntervalSince(dose1)
        if elapsed < Self.minutes(opensAfterMinutes) { return .beforeWindow }
        if elapsed < Self.minutes(nearCloseAfterMinutes) { return .active }
        if elapsed < Self.minutes(closesAfterMinutes) { return .nearClose }
        return .closed
    }

    /// When the window opens.
    public func opens(after dose1: Date) -> Date { dose1.addingTimeInterval(Self.minutes(opensAfterMinutes)) }
    /// When snoozing stops.
    public func nearClose(after dose1: Date) -> Date { dose1.addingTimeInterval(Self.minutes(nearCloseAfterMinutes)) }
    /// When the window closes.
    public func closes(after dose1: Date) -> Date { dose1.addingTimeInterval(Self.minutes(closesAfterMinutes)) }
    /// When an untaken, unskipped Dose 2 expires.
    public func expires(after dose1: Date) -> Date { dose1.addingTimeInterval(Self.minutes(sleepThroughExpiryMinutes)) }

    /// The points a person may choose for the escalation contact: inside the window, and at least 5 minutes before it
    /// closes so that someone told can still help.
    public var escalationMinutes: ClosedRange<Int> { opensAfterMinutes...(closesAfterMinutes - 5) }

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
    public func isNaturalWake(dose1: Date, dose2: Date, targetMinutes: Int, snoozes: Int) -> Bool {
        dose2 >= opens(after: dose1) && dose2.timeIntervalSince(dose1) < Self.minutes(targetMinutes) && snoozes == 0
    }
}

extension EventMetadata {
    /// Dose 2's early and late flags for a dose taken at `instant` after Dose 1 in `window` (D2: early iff before the
    /// window opens, late iff at or after it closes). The one classifier for actions, corrections and imports alike.
    public mutating func classifyDose2(at instant: Date, dose1: Date, window: DoseWindow) {
        let position = window.position(of: instant, dose1: dose1)
        isEarly = position == .beforeWindow
        isLate = position == .closed
    }
}
