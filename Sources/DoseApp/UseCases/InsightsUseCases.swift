public import DoseCore
public import DoseStore
import Foundation

/// What every insights surface shows: the period's figures, the weekly planner's suggestion and the settings they were
/// judged against.
public struct InsightsResult: Sendable {
    public let insights: Insights
    /// The planner's suggestion from the latest nights, whatever the period.
    public let planner: PlannerSuggestion
    public let settings: DoseSettings
}

/// Insights and the weekly planner: the page, `GET /v1/insights`, `dosetap insights` and the report all come here, so
/// they show the same figures.
public struct InsightsService: Sendable {
    let app: UseCases

    /// Nights the planner reads back from tonight: its 7, with room for undecided and missing nights.
    static let plannerLookback = 30

    /// The figures of the period chosen by `nights` (7, 30 or 90) or `from`/`to`; the default is the last 30 nights.
    public func insights(nights: Int? = nil, from: SessionKey? = nil, to: SessionKey? = nil) throws -> InsightsResult {
        let settings = try app.settings.current()
        let today = SessionKey(for: app.clock.now, in: app.clock.zone(settings))
        let period = try InsightsPeriod.choose(nights: nights, from: from, to: to, today: today)
        try app.night.settle()
        let nights = try insightNights(from: period.from, to: period.to)
        let target = settings.targetIntervalMinutes
        let recent: [InsightNight]
        let plannerFrom = today.adding(days: -(Self.plannerLookback - 1))
        if period.to == today, period.from <= plannerFrom {
            recent = nights.filter { $0.summary.date >= plannerFrom }
        } else {
            recent = try insightNights(from: plannerFrom, to: today)
        }
        let planner = WeeklyPlanner.suggest(recent.compactMap { Adherence.Night($0.summary, targetMinutes: target) }, targetMinutes: target)
        return InsightsResult(insights: Insights(nights, period: period, targetMinutes: target), planner: planner, settings: settings)
    }

    /// The nights dated `from` through `to` as insights read them.
    private func insightNights(from: SessionKey, to: SessionKey) throws -> [InsightNight] {
        try app.store.insightNights(from: from, to: to)
    }

    /// The report of the period chosen as for `insights`: its figures, and each of its nights with every event, oldest
    /// first, as `row` makes it. Nights are read a few hundred at a time and only their rows are kept.
    public func report<Row>(
        nights: Int? = nil, from: SessionKey? = nil, to: SessionKey? = nil, row: (NightRecord, InsightsResult) throws -> Row
    ) throws -> (result: InsightsResult, rows: [Row]) {
        let result = try insights(nights: nights, from: from, to: to)
        let period = result.insights.period
        var rows: [Row] = []
        try app.night.settle()
        try app.store.forEachNight(from: period.from, to: period.to) { rows.append(try row($0, result)) }
        return (result, rows)
    }

    /// Applies the planner's current suggestion after the person confirmed the safety warning; the setting change is
    /// audited with the planner's reason. Refused when `minutes` is not what the planner suggests now (a stale page)
    /// or without confirmation.
    public func applyPlanner(minutes: Int, confirmed: Bool) throws -> (settings: DoseSettings, suggestion: PlannerSuggestion) {
        let suggestion = try insights().planner
        guard suggestion.isChange, suggestion.suggestedMinutes == minutes else {
            let now = suggestion.isChange ? "\(suggestion.suggestedMinutes)" : "no change (keep \(suggestion.currentMinutes))"
            throw DoseError.invalidInput(
                field: "target_interval", problem: "\(minutes) is not the planner's suggestion", allowed: "the current suggestion: \(now)")
        }
        guard confirmed else {
            throw DoseError.invalidInput(
                field: "confirm", problem: "the change was not confirmed",
                allowed: "confirm that you have read the warning: \(PlannerSuggestion.safetyWarning)")
        }
        let settings = try app.store.settingsBook.update(
            [(SettingKey.targetInterval.rawValue, String(minutes))], reason: "weekly planner: \(suggestion.reason)", clock: app.clock)
        return (settings, suggestion)
    }
}
