import Foundation

/// The weekly planner's suggestion for the target interval (seed 003 "Planner"): restricted to the safe set
/// of targets (`DoseWindow.label.targetOptions`), never outside the label's window, only after 7 stable nights, and back to 165 after 3 missed
/// windows in a row. A suggestion is advice with its reason; applying it is the person's explicit choice.
public struct PlannerSuggestion: Sendable, Hashable {
    /// Why the planner says what it says.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// Fewer than 7 of the last 7 nights had Dose 2 taken: no change is suggested yet.
        case insufficientData = "insufficient_data"
        /// The last 7 intervals vary too much to move the target.
        case tooVariable = "too_variable"
        /// Dose 2 has been coming well before the target: a 15-minute earlier target.
        case nudgeDown = "nudge_down"
        /// Dose 2 has been coming well after the target: a 15-minute later target.
        case nudgeUp = "nudge_up"
        /// Three missed windows in a row: back to the 165-minute default.
        case revert
        /// The target fits: keep it.
        case keep
    }

    public let kind: Kind
    /// The target in force.
    public let currentMinutes: Int
    /// The target suggested (equal to the current one when no change is suggested).
    public let suggestedMinutes: Int
    /// The reason in words; a suggestion is never shown without it.
    public let reason: String
    /// Nights still needed before the planner can suggest a change (for `insufficient_data`).
    public let nightsNeeded: Int

    /// What the person confirms before a suggestion is applied.
    public static let safetyWarning =
        "Change when you take Dose 2 only as your prescriber has told you. The target moves your wake alarm; "
        + "\(RegimenWords.windowPhrase(.label)) and every safety check stay the same."

    /// Whether it suggests a different target.
    public var isChange: Bool { suggestedMinutes != currentMinutes }
}

/// The planner's rules, a pure function of the nights and the target in force.
public enum WeeklyPlanner {
    /// The nights a suggestion looks at, and the stable ones it needs.
    public static let nightsConsidered = 7
    /// Of the considered nights, this share must lie within ±15 minutes of their mean (seed 003: consistency 0.7).
    public static let consistencyNeeded = 0.7
    public static let consistencyBandMinutes = 15.0
    /// Missed windows in a row that send the target back to the default.
    public static let missesBeforeRevert = 3
    /// One step of a nudge.
    public static let stepMinutes = 15
    /// The default the planner reverts to.
    public static let baselineMinutes = DoseSettings.targetIntervalOptions[0]

    /// The suggestion for `nights` (any order) with `targetMinutes` in force.
    /// Long by design: the planner's rules in the order they are tried, each returning its answer, read top to bottom as
    /// SPEC words them; split, the order that makes a revert win over a nudge would live in two places.
    public static func suggest(_ nights: [Adherence.Night], targetMinutes: Int) -> PlannerSuggestion {
        let decided = nights.filter { $0.timing != .undecided }.sorted { $0.date < $1.date }
        func answer(_ kind: PlannerSuggestion.Kind, _ suggested: Int, _ reason: String, needed: Int = 0) -> PlannerSuggestion {
            // The safe set is the only place a suggestion can land: inside the label's window by construction.
            let options = DoseSettings.targetIntervalOptions
            let safe = options.contains(suggested) ? suggested : targetMinutes
            return PlannerSuggestion(kind: kind, currentMinutes: targetMinutes, suggestedMinutes: safe, reason: reason, nightsNeeded: needed)
        }

        let recent = decided.suffix(missesBeforeRevert)
        if recent.count == missesBeforeRevert, recent.allSatisfy({ !$0.insideWindow }) {
            return targetMinutes == baselineMinutes
                ? answer(
                    .keep, targetMinutes,
                    "Dose 2 missed \(RegimenWords.windowPhrase(.label)) on the last \(missesBeforeRevert) nights; the target is already the "
                        + "\(baselineMinutes)-minute default."
                )
                : answer(
                    .revert, baselineMinutes,
                    "Dose 2 missed \(RegimenWords.windowPhrase(.label)) on the last \(missesBeforeRevert) nights in a row: back to the "
                        + "\(baselineMinutes)-minute default."
                )
        }

        let week = decided.suffix(nightsConsidered)
        let stable = week.compactMap { $0.insideWindow ? $0.intervalMinutes : nil }
        guard stable.count == nightsConsidered else {
            let needed = nightsConsidered - stable.count
            return answer(
                .insufficientData, targetMinutes,
                "The planner needs \(nightsConsidered) nights in a row with Dose 2 taken inside the window before it suggests any change; "
                    + "\(needed) more needed.",
                needed: needed)
        }
        let mean = Double(stable.reduce(0, +)) / Double(stable.count)
        let steady = stable.filter { abs(Double($0) - mean) <= consistencyBandMinutes }.count
        guard Double(steady) / Double(stable.count) >= consistencyNeeded else {
            return answer(
                .tooVariable, targetMinutes,
                "The last \(nightsConsidered) intervals vary too much (\(steady) of \(stable.count) within ±15 minutes of their mean) to move "
                    + "the target."
            )
        }
        let average = Int(mean.rounded())
        if mean < 160, targetMinutes > baselineMinutes {
            return answer(
                .nudgeDown, targetMinutes - stepMinutes,
                "Dose 2 came \(average) minutes after Dose 1 on average over \(nightsConsidered) nights, well before the "
                    + "\(targetMinutes)-minute target."
            )
        }
        if mean > Double(targetMinutes + 10), targetMinutes < DoseSettings.targetIntervalOptions.last! {
            return answer(
                .nudgeUp, targetMinutes + stepMinutes,
                "Dose 2 came \(average) minutes after Dose 1 on average over \(nightsConsidered) nights, more than 10 minutes after the "
                    + "\(targetMinutes)-minute target."
            )
        }
        return answer(
            .keep, targetMinutes,
            "Dose 2 came \(average) minutes after Dose 1 on average over \(nightsConsidered) nights: the \(targetMinutes)-minute target fits.")
    }
}
