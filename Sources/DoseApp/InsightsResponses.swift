public import DoseCore
import Foundation

/// `GET /v1/insights` and `dosetap insights --json`: every figure of the period, the correlations, the planner's
/// suggestion and each night as the figures read it.
public struct InsightsResponse: Encodable, Sendable {
    var state: String
    var nightsNeeded: Int
    var period: Period
    var targetInterval, nightsRecorded, nightsWithDose1, nightsDecided: Int
    var nightsOnceNightly: Int
    var bedtime: Bedtime?
    var regimenPeriods: [RegimenPeriodEntry]
    var timing: [String: Share]
    var interval: Interval
    var naturalWakePercent, snoozesPerNight: Double?
    var waso: Waso
    var wellness: Wellness
    var medications: [Medication]
    var correlations: [CorrelationEntry]
    var correlationCaveat: String
    var planner: PlannerResponse
    var notable: [NotableEntry]
    /// Each night as the figures read it: `[{session_date, timing, interval_minutes, inside_window, natural_wake, snoozes,
    /// logged_awakenings}]`. The three per-night lists are built as JSON directly: ten years of nights through
    /// `Encodable`, a container and a node per value, was most of the time of the answer.
    var nights: JSONValue

    /// When the bedtime dose is taken: the median local time and the median distance from it.
    struct Bedtime: Encodable, Sendable {
        var median: String
        var spreadMinutes, nights: Int
        enum CodingKeys: String, CodingKey { case median, spreadMinutes = "spread_minutes", nights }
    }

    /// A stretch of nights under one regimen or titration step, with how they went.
    struct RegimenPeriodEntry: Encodable, Sendable {
        var from, to: String
        var regimen: RegimenResponse?
        var nights: Int
        var timing: [String: Int]
        var meanWellness: Int?
        var checkIns: Int
        var sentence: String
        enum CodingKeys: String, CodingKey {
            case from, to, regimen, nights, timing, meanWellness = "mean_wellness", checkIns = "check_ins", sentence
        }
    }

    struct Period: Encodable, Sendable {
        var from, to, label: String
    }

    struct Share: Encodable, Sendable {
        var nights: Int
        var percent: Double?
    }

    struct Interval: Encodable, Sendable {
        var nights: Int
        var median, quartile1, quartile3, insideWindowPercent: Double?
        /// `[{session_date, minutes}]`, built by hand (see `nights`).
        var rollingMean7: JSONValue

        enum CodingKeys: String, CodingKey {
            case nights, median, quartile1 = "quartile_1", quartile3 = "quartile_3", insideWindowPercent = "inside_window_percent"
            case rollingMean7 = "rolling_mean_7"
        }
    }

    struct Waso: Encodable, Sendable {
        var estimate = true
        var minutesPerNight: Int?
        var method: String
        enum CodingKeys: String, CodingKey { case estimate, minutesPerNight = "minutes_per_night", method }
    }

    struct Wellness: Encodable, Sendable {
        var checkIns: Int
        var meanScore: Int?
        var meanSleepQuality: Double?
        /// `[{session_date, wellness, sleep_quality}]`, built by hand (see `nights`).
        var mornings: JSONValue
        enum CodingKeys: String, CodingKey {
            case checkIns = "check_ins", meanScore = "mean_score", meanSleepQuality = "mean_sleep_quality", mornings
        }
    }

    struct Medication: Encodable, Sendable {
        var name: String
        var nightsTaken: Int
        enum CodingKeys: String, CodingKey { case name, nightsTaken = "nights_taken" }
    }

    struct Side: Encodable, Sendable {
        var nights: Int
        var mean: Double?
    }

    struct CorrelationEntry: Encodable, Sendable {
        var id, factor, outcome, unit: String
        var shown: Bool
        var with, without: Side
        var difference, effectSize: Double?
        var effect, sentence: String?
        enum CodingKeys: String, CodingKey {
            case id, factor, outcome, unit, shown, with, without, difference, effectSize = "effect_size", effect, sentence
        }
    }

    struct NotableEntry: Encodable, Sendable {
        var sessionDate, kind, text: String
        enum CodingKeys: String, CodingKey { case sessionDate = "session_date", kind, text }
    }

    enum CodingKeys: String, CodingKey {
        case state, nightsNeeded = "nights_needed", period, targetInterval = "target_interval", nightsRecorded = "nights_recorded"
        case nightsWithDose1 = "nights_with_dose1", nightsDecided = "nights_decided", timing, interval
        case nightsOnceNightly = "nights_once_nightly", bedtime, regimenPeriods = "regimen_periods"
        case naturalWakePercent = "natural_wake_percent", snoozesPerNight = "snoozes_per_night", waso, wellness, medications
        case correlations, correlationCaveat = "correlation_caveat", planner, notable, nights
    }

    /// The response for a period's insights and the planner's suggestion.
    public init(_ insights: Insights, planner suggestion: PlannerSuggestion) {
        let adherence = insights.adherence
        state = insights.state.rawValue
        nightsNeeded = insights.nightsNeeded
        period = Period(from: insights.period.from.description, to: insights.period.to.description, label: insights.period.label)
        (targetInterval, nightsRecorded) = (adherence.targetMinutes, insights.nightsRecorded)
        (nightsWithDose1, nightsDecided, nightsOnceNightly) = (insights.nightsWithDose1, adherence.decided, insights.onceNightlyNights)
        bedtime = insights.bedtime.map { Bedtime(median: $0.clock, spreadMinutes: $0.spreadMinutes, nights: $0.nights) }
        regimenPeriods = insights.regimenPeriods.map {
            RegimenPeriodEntry(
                from: $0.from.description, to: $0.to.description, regimen: $0.regimen.map(RegimenResponse.init), nights: $0.nights,
                timing: Dictionary(uniqueKeysWithValues: $0.timings.map { ($0.key.rawValue, $0.value) }), meanWellness: $0.meanWellness,
                checkIns: $0.checkIns, sentence: $0.sentence)
        }
        timing = Dictionary(
            uniqueKeysWithValues: DoseTiming.dose2Figures.map { ($0.rawValue, Share(nights: adherence.count($0), percent: adherence.percent($0))) })
        let quartiles = adherence.interquartileRange
        interval = Interval(
            nights: adherence.intervals.count, median: adherence.medianInterval, quartile1: quartiles?.lower, quartile3: quartiles?.upper,
            insideWindowPercent: adherence.insideWindowPercent,
            rollingMean7: .array(
                adherence.rollingMean7.map { ["session_date": .string($0.date.description), "minutes": .double(($0.minutes * 10).rounded() / 10)] }))
        (naturalWakePercent, snoozesPerNight) = (adherence.naturalWakePercent, adherence.snoozesPerNight)
        waso = Waso(minutesPerNight: adherence.wasoEstimatePerNight, method: Adherence.wasoMethod)
        wellness = Wellness(
            checkIns: insights.mornings.count, meanScore: insights.meanWellness, meanSleepQuality: insights.meanSleepQuality,
            mornings: .array(
                insights.mornings.map {
                    ["session_date": .string($0.date.description), "wellness": .int($0.wellness), "sleep_quality": .int($0.sleepQuality)]
                }))
        medications = insights.medications.map { Medication(name: $0.name, nightsTaken: $0.nightsTaken) }
        correlations = insights.correlations.map { correlation in
            let comparison = correlation.comparison
            return CorrelationEntry(
                id: correlation.id, factor: correlation.factor, outcome: correlation.outcome, unit: correlation.unit.rawValue,
                shown: comparison.isShown, with: Side(nights: comparison.with.nights, mean: comparison.isShown ? comparison.with.mean : nil),
                without: Side(nights: comparison.without.nights, mean: comparison.isShown ? comparison.without.mean : nil),
                difference: comparison.difference, effectSize: comparison.effectSize.map { ($0 * 100).rounded() / 100 },
                effect: comparison.effectWords, sentence: correlation.sentence)
        }
        correlationCaveat = FactorComparison.caveat
        planner = PlannerResponse(suggestion)
        notable = insights.notable.map { NotableEntry(sessionDate: $0.date.description, kind: $0.kind.rawValue, text: $0.text) }
        nights = .array(
            adherence.nights.map { night in
                [
                    "session_date": .string(night.date.description), "timing": .string(night.timing.rawValue),
                    "interval_minutes": night.intervalMinutes.map(JSONValue.int) ?? .null, "inside_window": .bool(night.insideWindow),
                    "natural_wake": .bool(night.naturalWake), "snoozes": .int(night.snoozes), "logged_awakenings": .int(night.awakenings),
                ]
            })
    }
}

/// The weekly planner's suggestion (and, once applied, the target now in force), with the warning confirmed first.
public struct PlannerResponse: Encodable, Sendable {
    var kind: String
    var currentTarget, suggestedTarget, nightsNeeded: Int
    var change: Bool
    var reason, safetyWarning: String
    var appliedTarget: Int?

    enum CodingKeys: String, CodingKey {
        case kind, currentTarget = "current_target", suggestedTarget = "suggested_target", nightsNeeded = "nights_needed", change, reason
        case safetyWarning = "safety_warning", appliedTarget = "applied_target"
    }

    /// The response for a suggestion; `applied` is the target after applying it.
    public init(_ suggestion: PlannerSuggestion, applied: Int? = nil) {
        (kind, currentTarget, suggestedTarget) = (suggestion.kind.rawValue, suggestion.currentMinutes, suggestion.suggestedMinutes)
        (nightsNeeded, change, reason) = (suggestion.nightsNeeded, suggestion.isChange, suggestion.reason)
        safetyWarning = PlannerSuggestion.safetyWarning
        appliedTarget = applied
    }

    /// The suggestion in words, for the CLI.
    public var words: String {
        if let appliedTarget { return "Target changed from \(currentTarget) to \(appliedTarget) minutes (audited). \(reason)" }
        guard change else { return "\(reason) No change suggested." }
        return "\(reason) Suggested target: \(suggestedTarget) min. \(safetyWarning) To apply it: dosetap planner apply \(suggestedTarget) --yes"
    }
}
