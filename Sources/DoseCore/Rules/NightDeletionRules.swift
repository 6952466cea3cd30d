public import Foundation

/// A night chosen for deletion, as the deletion's refusals read it.
public struct NightToDelete: Sendable, Hashable {
    /// The night's date.
    public var date: SessionKey
    /// Whether it is still open (tonight's).
    public var isOpen: Bool
    /// Its latest oxybate dose (Dose 1, Dose 2 or an extra dose), if it holds one.
    public var latestDose: RecordedDose?

    /// A night chosen for deletion.
    public init(date: SessionKey, isOpen: Bool, latestDose: RecordedDose?) {
        self.date = date
        self.isOpen = isOpen
        self.latestDose = latestDose
    }
}

extension NightRules {
    /// Refuses deleting the chosen nights when one of them is still open, or holds a dose taken less than the redose
    /// spacing before `now`: that dose is what refuses a new Dose 1 too soon (D14), and deleting it would let one
    /// through. Times in the refusal are local to `timeZone`.
    public static func refuseDeletion(of nights: [NightToDelete], now: Date, timeZone: TimeZone) throws(DoseError) {
        if let open = nights.first(where: \.isOpen) {
            throw .invalidInput(
                field: "dates", problem: "the night of \(open.date) is still open (it is tonight's)",
                allowed: "nights that have ended; use undo for a mistake made seconds ago")
        }
        for night in nights {
            guard let dose = night.latestDose, nearestDose([dose], to: now) != nil else { continue }
            throw .invalidInput(
                field: "dates",
                problem: "the night of \(night.date) holds a dose taken at \(LocalClock.hourMinute(dose.at, in: timeZone)), less than 8 hours ago",
                allowed:
                    "nights whose last dose is at least 8 hours old (this one from "
                    + "\(LocalClock.hourMinute(redoseSpacingEnds(after: dose), in: timeZone))), "
                    + "since that dose is what stops a new Dose 1 too soon")
        }
    }
}
