public import Foundation

/// One stretch of a night with Dose 2 still to take, and the confirmations a Dose 2 inside it needs.
///
/// A device that has lost the server (the phone on the nightstand, offline at 2 a.m.) keeps these from the last status
/// and only compares its clock with them; it never copies the rules. Tests hold every period to what the rules decide
/// on both sides of its edges.
public struct Dose2Period: Sendable, Hashable {
    /// Where the period lies relative to the window.
    public enum Kind: String, Sendable, CaseIterable {
        case beforeWindow = "before_window"
        case window
        case afterWindow = "after_window"
        /// Past the sleep-through expiry: the night counts Dose 2 as skipped, so a dose also needs `after_skip`.
        case expired
    }

    public let kind: Kind
    /// The first instant of the period (Dose 1's for the first).
    public let from: Date
    /// The first instant after it; nil for the last, which has no end.
    public let until: Date?
    /// What a Dose 2 inside the period must be confirmed with; empty in the window.
    public let confirmations: [ConfirmKind]

    /// The periods after a Dose 1 at `dose1` in `window`, in order, with no gap between them.
    public static func periods(dose1: Date, window: DoseWindow) -> [Dose2Period] {
        let (opens, closes, expires) = (window.opens(after: dose1), window.closes(after: dose1), window.expires(after: dose1))
        return [
            Dose2Period(kind: .beforeWindow, from: dose1, until: opens, confirmations: [.early]),
            Dose2Period(kind: .window, from: opens, until: closes, confirmations: []),
            Dose2Period(kind: .afterWindow, from: closes, until: expires, confirmations: [.late]),
            Dose2Period(kind: .expired, from: expires, until: nil, confirmations: [.afterSkip, .late]),
        ]
    }

    /// The period holding `instant`, as a device would look it up: `from` inclusive, `until` exclusive.
    public static func period(at instant: Date, in periods: [Dose2Period]) -> Dose2Period? {
        periods.first { $0.from <= instant && $0.until.map { instant < $0 } ?? true }
    }
}

extension NightStatus {
    /// While Dose 2 is still to take (Dose 1 taken, no Dose 2, no skip): its periods; otherwise none, and none once
    /// nightly.
    public var dose2Periods: [Dose2Period] {
        guard let dose1At, let window = regimen.window, dose2At == nil, !dose2Skipped else { return [] }
        return Dose2Period.periods(dose1: dose1At, window: window)
    }
}
