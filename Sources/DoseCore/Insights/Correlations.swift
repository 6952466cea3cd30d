import Foundation

/// One night as insights read it: its events, the morning check-in and pre-sleep answers, and the other medications
/// taken. Built by the store's callers; DoseCore never reads storage.
public struct InsightNight: Sendable, Hashable {
    /// The night's doses, skip, snoozes and awakenings.
    public var summary: NightSummary
    public var checkIn: MorningCheckIn?
    public var preSleep: PreSleepLog?
    /// Names of the other medications logged that night (oxybate is the doses themselves).
    public var medications: [String]
    /// What a wearable measured of the night's sleep, when one was imported.
    public var sleep: SleepFigures?

    /// A summarised night with whatever was answered and measured.
    public init(
        summary: NightSummary, checkIn: MorningCheckIn? = nil, preSleep: PreSleepLog? = nil, medications: [String] = [], sleep: SleepFigures? = nil
    ) {
        self.summary = summary
        self.checkIn = checkIn
        self.preSleep = preSleep
        self.medications = medications
        self.sleep = sleep
    }

    /// A night with whatever was answered.
    public init(
        session: NightSession, checkIn: MorningCheckIn? = nil, preSleep: PreSleepLog? = nil, medications: [String] = [], sleep: SleepFigures? = nil
    ) {
        self.init(summary: NightSummary(session), checkIn: checkIn, preSleep: preSleep, medications: medications, sleep: sleep)
    }
}

/// A named descriptive correlation of seed 003: what was compared, in whose units, and the comparison itself.
public struct Correlation: Sendable, Hashable {
    /// How the outcome is measured, for the words around the numbers.
    public enum Unit: String, Sendable, Hashable, Codable {
        /// A 1–5 rating.
        case rating
        /// A 0–4 step of an ordered answer (grogginess: none … can't function).
        case steps
        /// A count per night.
        case count
        /// A share of nights in percent.
        case percent
        /// Minutes of sleep (a wearable's).
        case minutes
        /// A score in percent (WHOOP's recovery).
        case score
    }

    /// Stable name, for the API and the tests (`sleep_quality_vs_tv_on`).
    public let id: String
    /// The factor in words ("the TV on in bed").
    public let factor: String
    /// The outcome in words ("sleep quality").
    public let outcome: String
    public let unit: Unit
    public let comparison: FactorComparison

    /// One sentence with both sides' means and n, the difference and the effect size; nil while not shown.
    public var sentence: String? {
        guard comparison.isShown, let with = comparison.with.mean, let without = comparison.without.mean,
            let difference = comparison.difference
        else { return nil }
        let effect =
            comparison.effectSize.map { "\(comparison.effectWords ?? "") (d = \(Self.signedDecimal($0, places: 2)))" } ?? "not measurable (no spread)"
        return
            "\(Self.capitalised(outcome)) with \(factor): \(value(with)) over \(comparison.with.nights) nights, against \(value(without)) over "
            + "\(comparison.without.nights) nights without; difference \(signed(difference)); effect \(effect)."
    }

    /// A value in the outcome's unit, as shown.
    public func value(_ value: Double) -> String {
        switch unit {
        case .percent: return "\(Self.decimal(value, places: 1))%"
        case .rating: return "\(Self.decimal(value, places: 1)) of 5"
        case .steps, .count: return Self.decimal(value, places: 1)
        case .minutes: return "\(Self.decimal(value, places: 0)) min"
        case .score: return "\(Self.decimal(value, places: 0))%"
        }
    }

    func signed(_ value: Double) -> String {
        switch unit {
        case .minutes: Self.signedDecimal(value, places: 0) + " min"
        case .score: Self.signedDecimal(value, places: 0) + " points"
        default: Self.signedDecimal(value, places: 1) + (unit == .percent ? " points" : "")
        }
    }

    /// `value` to `places` with a true minus sign or a plus, and no sign at zero.
    static func signedDecimal(_ value: Double, places: Int) -> String {
        let text = decimal(abs(value), places: places)
        guard decimal(value, places: places) != decimal(0, places: places) else { return text }
        return (value < 0 ? "−" : "+") + text
    }

    /// `value` rounded half away from zero to `places`, as text with exactly that many decimals.
    public static func decimal(_ value: Double, places: Int) -> String {
        let scale = pow(10, Double(places))
        let rounded = (value * scale).rounded() / scale
        return String(format: "%.\(places)f", rounded == 0 ? 0 : rounded)
    }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

/// The twelve correlations insights show: the four of seed 003 ("Dashboard Correlation Insights") from the check-in's
/// sleep environment, and caffeine, alcohol, stress and exercise from the pre-sleep log against sleep quality and on-time
/// share.
public enum Correlations {
    /// Stress at or above this (of 1–5) counts as a stressful evening.
    public static let highStress = 4

    /// Every correlation over `nights` against `targetMinutes`, in a fixed order; each says whether it can be shown.
    public static func all(_ nights: [InsightNight], targetMinutes: Int) -> [Correlation] {
        all(nights.map { ($0, Adherence.Night($0.summary, targetMinutes: targetMinutes)) })
    }

    /// Every correlation over nights already read against the target (nil: no Dose 1).
    static func all(_ rows: [(InsightNight, Adherence.Night?)]) -> [Correlation] {
        let environment: (InsightNight) -> SleepEnvironment? = { $0.checkIn?.environment }
        func aid(_ aid: SleepAid) -> (InsightNight) -> Bool? { { environment($0).map { $0.sleepAids.contains(aid) } } }
        let quality: (InsightNight, Adherence.Night?) -> Double? = { night, _ in night.checkIn.map { Double($0.sleepQuality) } }
        let onTime: (InsightNight, Adherence.Night?) -> Double? = { _, night in
            guard let timing = night?.timing, timing != .undecided else { return nil }
            return timing == .onTarget ? 100 : 0
        }
        func make(
            _ id: String, _ factor: String, _ outcome: String, _ unit: Correlation.Unit, _ hasFactor: (InsightNight) -> Bool?,
            _ measure: (InsightNight, Adherence.Night?) -> Double?
        ) -> Correlation {
            comparison(rows, id, factor, outcome, unit, { night, _ in hasFactor(night) }, measure)
        }

        let caffeine: (InsightNight) -> Bool? = { night in
            guard let log = night.preSleep, !log.skipped, log.caffeineCups != nil || log.caffeineMg != nil else { return nil }
            return (log.caffeineCups ?? 0) > 0 || (log.caffeineMg ?? 0) > 0
        }
        let alcohol: (InsightNight) -> Bool? = { $0.preSleep?.alcoholDrinks.map { $0 > 0 } }
        let stress: (InsightNight) -> Bool? = { $0.preSleep?.stressLevel.map { $0 >= highStress } }
        let exercise: (InsightNight) -> Bool? = { $0.preSleep?.exercise.map { $0 != .none } }
        let screen: (InsightNight) -> Bool? = { night in
            let inBed = environment(night).map { $0.sleepAids.contains(.tvOn) || $0.sleepAids.contains(.phoneInBed) }
            let before = night.preSleep?.screenTime30MinutesPrior
            if inBed == nil, before == nil { return nil }
            return (inBed ?? false) || (before ?? false)
        }

        return [
            make("sleep_quality_vs_tv_on", "the TV on", "sleep quality", .rating, aid(.tvOn), quality),
            make(
                "wake_events_vs_noise", "some noise or loud", "logged wake-ups per night", .count,
                { environment($0)?.noiseLevel.map { $0 != .quiet } }, { _, night in night.map { Double($0.awakenings) } }),
            make(
                "grogginess_vs_phone_in_bed", "the phone in bed", "morning grogginess (0 none – 4 can't function)", .steps, aid(.phoneInBed),
                { night, _ in night.checkIn.map { Double(Grogginess.allCases.firstIndex(of: $0.grogginess)!) } }),
            make(
                "dose2_skip_or_early_vs_screen", "screens in bed or in the 30 minutes before", "Dose 2 skipped or early", .percent, screen,
                { _, night in
                    guard let timing = night?.timing, timing != .undecided else { return nil }
                    return timing == .skipped || timing == .early ? 100 : 0
                }),
            make("sleep_quality_vs_caffeine", "caffeine", "sleep quality", .rating, caffeine, quality),
            make("on_time_vs_caffeine", "caffeine", "Dose 2 on target", .percent, caffeine, onTime),
            make("sleep_quality_vs_alcohol", "alcohol", "sleep quality", .rating, alcohol, quality),
            make("on_time_vs_alcohol", "alcohol", "Dose 2 on target", .percent, alcohol, onTime),
            make("sleep_quality_vs_stress", "stress of \(highStress) or more", "sleep quality", .rating, stress, quality),
            make("on_time_vs_stress", "stress of \(highStress) or more", "Dose 2 on target", .percent, stress, onTime),
            make("sleep_quality_vs_exercise", "exercise", "sleep quality", .rating, exercise, quality),
            make("on_time_vs_exercise", "exercise", "Dose 2 on target", .percent, exercise, onTime),
        ] + sleepCorrelations(rows)
    }

    /// One named comparison of `measure` on the nights where `hasFactor` holds against those where it does not.
    static func comparison(
        _ rows: [(InsightNight, Adherence.Night?)], _ id: String, _ factor: String, _ outcome: String, _ unit: Correlation.Unit,
        _ hasFactor: (InsightNight, Adherence.Night?) -> Bool?, _ measure: (InsightNight, Adherence.Night?) -> Double?
    ) -> Correlation {
        Correlation(
            id: id, factor: factor, outcome: outcome, unit: unit,
            comparison: FactorComparison(rows.map { (hasFactor($0.0, $0.1), measure($0.0, $0.1)) }))
    }

    /// What a wearable measured against the night's timing and snoozes: a Dose 2 more than 10 minutes after the target
    /// (in the window or late, against on target; other nights left out) against deep sleep, time asleep and recovery;
    /// snoozing against wake after sleep onset.
    static func sleepCorrelations(_ rows: [(InsightNight, Adherence.Night?)]) -> [Correlation] {
        let late: (InsightNight, Adherence.Night?) -> Bool? = { _, night in
            guard let night, let interval = night.intervalMinutes else { return nil }
            if night.timing == .onTarget { return false }
            return interval > night.targetMinutes ? true : nil
        }
        let snoozed: (InsightNight, Adherence.Night?) -> Bool? = { night, _ in night.sleep == nil ? nil : night.summary.snoozes > 0 }
        func make(
            _ id: String, _ factor: String, _ outcome: String, _ unit: Correlation.Unit, _ hasFactor: (InsightNight, Adherence.Night?) -> Bool?,
            _ measure: (SleepFigures) -> Double?
        ) -> Correlation {
            comparison(rows, id, factor, outcome, unit, hasFactor) { night, _ in night.sleep.flatMap(measure) }
        }
        return [
            make(
                "deep_sleep_vs_late_dose2", "Dose 2 over 10 min after the target (against on target)", "deep sleep (wearable)", .minutes, late,
                \.deepMinutes),
            make(
                "asleep_vs_late_dose2", "Dose 2 over 10 min after the target (against on target)", "time asleep (wearable)", .minutes, late,
                { $0.minutesAsleep }),
            make("waso_vs_snoozes", "a snooze", "awake after falling asleep (wearable)", .minutes, snoozed, { $0.wasoMinutes }),
            make(
                "recovery_vs_late_dose2", "Dose 2 over 10 min after the target (against on target)", "recovery (WHOOP)", .score, late,
                { $0.recovery?.recoveryPercent }),
        ]
    }
}
