import DoseCore
import Foundation
import Testing

/// Every branch of the weekly planner on hand-made nights (seed 003 "Planner").
@Suite("Weekly planner: the target suggestion and its safety rules")
struct WeeklyPlannerTests {
    /// Nights 1…n with these Dose 2 intervals (nil: skipped), oldest first.
    static func nights(_ intervals: [Double?], target: Int) -> [Adherence.Night] {
        intervals.enumerated().compactMap { day, interval in
            let session =
                interval.map { AdherenceTests.night(day + 1, dose2: $0) } ?? AdherenceTests.night(day + 1, skipped: true)
            return Adherence.Night(session, targetMinutes: target)
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let intervals: [Double?]
        let target: Int
        let kind: PlannerSuggestion.Kind
        let suggested: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "6 nights: insufficient data", intervals: Array(repeating: 165, count: 6), target: 180, kind: .insufficientData, suggested: 180),
        Case(
            name: "7 nights, one skipped: insufficient data", intervals: [165, 165, 165, nil, 165, 165, 165], target: 180, kind: .insufficientData,
            suggested: 180),
        Case(
            name: "7 nights, one outside the window: insufficient data", intervals: [165, 165, 165, 245, 165, 165, 165], target: 180,
            kind: .insufficientData, suggested: 180),
        Case(
            name: "too variable: 1 of 7 within ±15 min of the mean", intervals: [150, 150, 150, 230, 230, 230, 190], target: 180, kind: .tooVariable,
            suggested: 180),
        Case(
            name: "too variable: 4 of 7 (0.57 < 0.7)", intervals: [180, 180, 180, 180, 150, 150, 150], target: 165, kind: .tooVariable, suggested: 165
        ),
        Case(name: "steady enough: 5 of 7 (0.71 ≥ 0.7)", intervals: [180, 180, 180, 180, 180, 150, 150], target: 165, kind: .keep, suggested: 165),
        Case(
            name: "nudge down: average 155 with target 180", intervals: [155, 152, 158, 154, 156, 155, 155], target: 180, kind: .nudgeDown,
            suggested: 165),
        Case(name: "no nudge below the 165 default", intervals: [155, 152, 158, 154, 156, 155, 155], target: 165, kind: .keep, suggested: 165),
        Case(
            name: "nudge up: average 180 with target 165", intervals: [180, 178, 182, 180, 179, 181, 180], target: 165, kind: .nudgeUp, suggested: 180
        ),
        Case(name: "average exactly target + 10 is no nudge", intervals: Array(repeating: 175, count: 7), target: 165, kind: .keep, suggested: 165),
        Case(name: "never above 225, so never above 240", intervals: Array(repeating: 238, count: 7), target: 225, kind: .keep, suggested: 225),
        Case(name: "on target: keep", intervals: Array(repeating: 195, count: 7), target: 195, kind: .keep, suggested: 195),
        Case(
            name: "3 missed windows in a row: revert to 165", intervals: [195, 195, 195, 195, nil, 245, 140], target: 195, kind: .revert,
            suggested: 165),
        Case(
            name: "2 missed windows: no revert (and too few stable nights)", intervals: [195, 195, 195, 195, 195, nil, 245], target: 195,
            kind: .insufficientData, suggested: 195),
        Case(name: "3 misses at the default: keep 165", intervals: [nil, nil, nil], target: 165, kind: .keep, suggested: 165),
    ]

    @Test("each branch", arguments: cases)
    func branch(_ example: Case) {
        let suggestion = WeeklyPlanner.suggest(Self.nights(example.intervals, target: example.target), targetMinutes: example.target)
        #expect(suggestion.kind == example.kind && suggestion.suggestedMinutes == example.suggested)
        #expect(!suggestion.reason.isEmpty, "a suggestion is never shown without its reason")
        #expect(DoseSettings.targetIntervalOptions.contains(suggestion.suggestedMinutes))
        #expect((150...240).contains(suggestion.suggestedMinutes))
        #expect(suggestion.isChange == (example.suggested != example.target))
    }

    @Test("insufficient data says how many more stable nights are needed")
    func needed() {
        let suggestion = WeeklyPlanner.suggest(Self.nights([165, 165, 165, 165], target: 180), targetMinutes: 180)
        #expect(suggestion.nightsNeeded == 3 && suggestion.reason.contains("3 more needed"))
    }

    @Test("only the last 7 nights count: an old variable week does not hold back a steady one")
    func lastWeekOnly() {
        let intervals: [Double?] = [150, 230, 150, 230, 150, 230, 150] + Array(repeating: 182, count: 7)
        let suggestion = WeeklyPlanner.suggest(Self.nights(intervals, target: 165), targetMinutes: 165)
        #expect(suggestion.kind == .nudgeUp && suggestion.suggestedMinutes == 180)
    }
}
