public import DoseCore
public import Foundation
import GRDB

/// A night's wearable sleep: the merged stages (empty when a source of totals spoke for it), their figures, and the
/// vitals measured during it.
public struct NightSleep: Sendable {
    public var spans: [StageSpan]
    public var figures: SleepFigures
    public var heartRate: [(at: Date, beatsPerMinute: Double)]
    /// Means over the sleep of the other vitals Apple Health gives, when measured.
    public var meanHRV: Double?
    public var meanRespiratoryRate: Double?
    /// Blood oxygen as a fraction (0.95), as the Health app stores it.
    public var meanOxygenSaturation: Double?

    /// A night's sleep as read, or as a test builds it.
    public init(
        spans: [StageSpan], figures: SleepFigures, heartRate: [(at: Date, beatsPerMinute: Double)], meanHRV: Double? = nil,
        meanRespiratoryRate: Double? = nil, meanOxygenSaturation: Double? = nil
    ) {
        self.spans = spans
        self.figures = figures
        self.heartRate = heartRate
        self.meanHRV = meanHRV
        self.meanRespiratoryRate = meanRespiratoryRate
        self.meanOxygenSaturation = meanOxygenSaturation
    }
}

/// Attaches wearable sleep to nights: one read of the sleep records around a set of nights, merged and split into
/// periods once, and each night given the sleep that overlaps it most (`WearableNight.choose`), by the priority in
/// the settings.
enum WearableSleepReader {
    /// The stretch of time a night's sleep is looked for in: from two hours before it started to two hours after it
    /// ended (16 hours after it started while open).
    struct Window {
        let id: String
        let from: Date
        let to: Date
        let dose2: Date?

        init(id: String, startedAt: Date, endedAt: Date?, dose2: Date?) {
            self.id = id
            from = startedAt.addingTimeInterval(-2 * 3600)
            to = (endedAt ?? startedAt.addingTimeInterval(16 * 3600)).addingTimeInterval(2 * 3600)
            self.dose2 = dose2
        }

        init(_ session: NightSession) {
            self.init(
                id: session.id.rawValue, startedAt: session.startedAt, endedAt: session.endedAt, dose2: session.facts.dose2?.occurredAt)
        }
    }

    /// The sleep of each night that has one, by night id. `vitals` reads the heart rate and the other vitals too (a
    /// night's page), which lists of nights do not need.
    static func read(_ windows: [Window], vitals: Bool, _ db: Database) throws -> [String: NightSleep] {
        guard let (from, to) = searched(windows) else { return [:] }
        let summaries = try WearableSummaryRow.overlapping(from: from, to: to, db)
        let samples = try Row.fetchAll(
            db, sql: "SELECT source, stage, start_at, end_at FROM wearable_sleep WHERE start_at < ? AND end_at > ? ORDER BY start_at, id",
            arguments: [ISO8601.string(to), ISO8601.string(from)]
        ).compactMap { row in sample(source: row["source"], stage: row["stage"], start: row["start_at"], end: row["end_at"]) }
        guard !samples.isEmpty || !summaries.isEmpty else { return [:] }
        let priority = try SettingsStore.load(db, machineTimeZoneID: "UTC").sleepSourcePriority
        return try attach(windows, samples: samples, summaries: summaries, priority: priority) { sleep in
            guard vitals else { return }
            let bounds: StatementArguments = [ISO8601.string(sleep.figures.periodStart), ISO8601.string(sleep.figures.periodEnd)]
            let heartRate = try Row.fetchAll(db, sql: "SELECT start_at, value FROM wearable_vitals WHERE \(heartRateCondition)", arguments: bounds)
            let means = try Row.fetchAll(db, sql: "SELECT kind, AVG(value) FROM wearable_vitals WHERE \(meansCondition)", arguments: bounds)
            addVitals(heartRate: heartRate.map { ($0[0], $0[1]) }, means: means.map { ($0[0], $0[1]) }, to: &sleep)
        }
    }

    /// The span sleep records are read from for `windows`, nil for none. A sleep record lasts at most a day (the importers
    /// refuse longer), so 12 hours either side finds every period that reaches into the windows, whole.
    static func searched(_ windows: [Window]) -> (from: Date, to: Date)? {
        guard let first = windows.map(\.from).min(), let last = windows.map(\.to).max() else { return nil }
        return (first.addingTimeInterval(-12 * 3600), last.addingTimeInterval(12 * 3600))
    }

    /// A stored sleep record as a sample, nil when a cell is not one the importers write.
    static func sample(source: String, stage: String, start: String, end: String) -> SleepSample? {
        guard let stage = SleepStage(rawValue: stage), let start = ISO8601.parse(start), let end = ISO8601.parse(end) else { return nil }
        return SleepSample(source: source, stage: stage, start: start, end: end)
    }

    /// Each window's sleep from the records read for all of them (`searched`), merged and split into periods once; `vitals`
    /// adds a night's vitals once its period is known. Both stores read the rows; this decides.
    static func attach(
        _ windows: [Window], samples: [SleepSample], summaries: [SleepSummary], priority: SourcePriority,
        vitals: (inout NightSleep) throws -> Void
    ) rethrows -> [String: NightSleep] {
        let periods = SleepTimeline.periods(SleepTimeline.merge(samples, priority: priority))
        var result: [String: NightSleep] = [:]
        for window in windows {
            guard
                let night = WearableNight.choose(
                    periods: periods, summaries: summaries, from: window.from, to: window.to, dose2: window.dose2, priority: priority)
            else { continue }
            var sleep = NightSleep(spans: night.spans, figures: night.figures, heartRate: [])
            try vitals(&sleep)
            result[window.id] = sleep
        }
        return result
    }

    /// The heart-rate rows over a period (`start_at`, `value`), in time order, when bound to its start and end.
    static let heartRateCondition = "kind = 'heart_rate' AND start_at BETWEEN ? AND ? ORDER BY start_at"
    /// The other vitals' means over a period (`kind`, the mean), when bound to its start and end.
    static let meansCondition = "kind != 'heart_rate' AND start_at BETWEEN ? AND ? GROUP BY kind"

    /// The heart rate over the sleep and the means of HRV, respiratory rate and blood oxygen, from the rows either store
    /// read with `heartRateCondition` and `meansCondition`.
    static func addVitals(heartRate: [(at: String, value: Double)], means: [(kind: String, mean: Double)], to sleep: inout NightSleep) {
        sleep.heartRate = heartRate.compactMap { row in ISO8601.parse(row.at).map { (at: $0, beatsPerMinute: row.value) } }
        for (kind, mean) in means {
            switch kind {
            case "hrv_sdnn": sleep.meanHRV = mean
            case "respiratory_rate": sleep.meanRespiratoryRate = mean
            case "oxygen_saturation": sleep.meanOxygenSaturation = mean
            default: break
            }
        }
    }
}
