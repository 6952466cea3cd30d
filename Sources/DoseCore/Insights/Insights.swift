import Foundation

/// The nights insights cover: the last 7, 30 or 90 nights, or a custom range of session dates (both ends included).
public struct InsightsPeriod: Sendable, Hashable {
    /// The lengths offered besides a custom range.
    public static let lengths = [7, 30, 90]
    /// The longest custom range: twenty years, which bounds the work of one request.
    public static let maximumNights = 7_305

    public let from: SessionKey
    public let to: SessionKey
    /// "Last 30 nights" or "2026-01-01 to 2026-03-31".
    public let label: String
    /// 7, 30 or 90 for the last nights; nil for a custom range.
    public let length: Int?

    /// The `nights` session dates ending with `last` (tonight's date).
    public static func last(_ nights: Int, endingAt last: SessionKey) -> InsightsPeriod {
        InsightsPeriod(from: last.adding(days: -(nights - 1)), to: last, label: "Last \(nights) nights", length: nights)
    }

    /// A custom range; refused when it runs backwards or is longer than `maximumNights`.
    public static func custom(from: SessionKey, to: SessionKey) throws(DoseError) -> InsightsPeriod {
        guard from <= to else {
            throw .invalidInput(field: "from", problem: "\(from) is after \(to)", allowed: "a start date on or before the end date")
        }
        guard from.adding(days: maximumNights - 1) >= to else {
            throw .invalidInput(
                field: "to", problem: "\(from) to \(to) is longer than \(maximumNights) nights", allowed: "at most \(maximumNights) nights")
        }
        return InsightsPeriod(from: from, to: to, label: "\(from) to \(to)", length: nil)
    }

    /// The period a surface asks for: `from`/`to` when either is given (the other end defaults to the other's side of
    /// `today`'s 30 nights), else the last `nights` (7, 30 or 90; 30 by default) ending `today`.
    public static func choose(nights: Int?, from: SessionKey?, to: SessionKey?, today: SessionKey) throws(DoseError) -> InsightsPeriod {
        if from != nil || to != nil {
            guard nights == nil else {
                throw .invalidInput(field: "nights", problem: "given with from/to", allowed: "either nights (7, 30, 90) or a from/to range")
            }
            let end = to ?? today
            return try custom(from: from ?? end.adding(days: -29), to: end)
        }
        let length = nights ?? 30
        guard lengths.contains(length) else {
            throw .invalidInput(field: "nights", problem: "\(length)", allowed: lengths.map(String.init).joined(separator: ", "))
        }
        return last(length, endingAt: today)
    }

    /// Whether a session date lies in the period.
    public func contains(_ date: SessionKey) -> Bool { from <= date && date <= to }
}

/// Everything insights show for a period, computed once in DoseCore so the page, the API, the CLI and the report agree.
public struct Insights: Sendable, Hashable {
    /// The seed's states for the Insights screen.
    public enum State: String, Sendable, Hashable, Codable {
        case ready
        case insufficientData = "insufficient_data"
    }

    /// A night's morning, for the wellness chart.
    public struct Morning: Sendable, Hashable {
        public let date: SessionKey
        /// The check-in's wellness score, 0–100.
        public let wellness: Int
        /// Sleep quality, 1–5.
        public let sleepQuality: Int
    }

    /// Another medication over the period: the nights it was logged.
    public struct MedicationUse: Sendable, Hashable {
        public let name: String
        public let nightsTaken: Int
    }

    /// A night worth a clinician's attention, with what happened in words.
    public struct Notable: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, Codable {
            case extraDose = "extra_dose"
            case lateDose = "late_dose"
            case earlyDose = "early_dose"
            case skipped
            case sleptThrough = "slept_through"
            case endedWithoutDose2 = "ended_without_dose2"
        }

        public let date: SessionKey
        public let kind: Kind
        public let text: String
    }

    public let period: InsightsPeriod
    public let adherence: Adherence
    /// Check-ins in the period, oldest first.
    public let mornings: [Morning]
    /// The twelve correlations; only those with enough nights are shown.
    public let correlations: [Correlation]
    /// Other medications, most often taken first.
    public let medications: [MedicationUse]
    /// Nights a clinician should see, oldest first.
    public let notable: [Notable]
    /// Nights recorded in the period (with Dose 1 or not).
    public let nightsRecorded: Int
    /// Nights with Dose 1, once or twice nightly.
    public let nightsWithDose1: Int
    /// Nights taken once nightly: one dose each, not in the Dose 2 figures.
    public let onceNightlyNights: Int
    /// When the bedtime dose (Dose 1) is taken, over every night with one; nil without any.
    public let bedtime: Bedtime?
    /// The period's nights with Dose 1 in stretches of one regimen each (a titration step, a switch to once nightly).
    public let regimenPeriods: [RegimenPeriod]

    /// The regularity of the bedtime dose: its median local time and how far a typical night strays from it.
    public struct Bedtime: Sendable, Hashable {
        /// The median local time of Dose 1, in minutes after local noon (so a bedtime either side of midnight counts on
        /// one line).
        public let medianAfterNoon: Int
        /// The median distance of each night's Dose 1 from that time, in minutes.
        public let spreadMinutes: Int
        /// Nights it is read from.
        public let nights: Int

        /// The median time as a clock time, `HH:mm`.
        public var clock: String {
            let minutes = (medianAfterNoon + 12 * 60) % (24 * 60)
            return String(format: "%02d:%02d", minutes / 60, minutes % 60)
        }

        /// Reads the bedtime doses of `nights`; nil with none.
        init?(_ nights: [NightSummary]) {
            let times = nights.compactMap { night in
                night.dose1.map { dose in
                    let local = LocalClock.calendar(dose.timeZone).dateComponents([.hour, .minute], from: dose.at)
                    return ((local.hour ?? 0) * 60 + (local.minute ?? 0) + 12 * 60) % (24 * 60)
                }
            }
            guard let median = Adherence.quantile(times, 0.5) else { return nil }
            let middle = Int(median.rounded())
            medianAfterNoon = middle
            spreadMinutes = Int((Adherence.quantile(times.map { abs($0 - middle) }, 0.5) ?? 0).rounded())
            self.nights = times.count
        }
    }

    /// The figures of the `nights` that fall in `period` (others are ignored), against `targetMinutes`.
    public init(_ nights: [InsightNight], period: InsightsPeriod, targetMinutes: Int) {
        // The store gives the period's nights in order; only others are filtered and sorted (copying ten years of
        // nights, check-ins and all, was a share of the time).
        let order = { (a: InsightNight, b: InsightNight) in (a.summary.date, a.summary.startedAt) < (b.summary.date, b.summary.startedAt) }
        let inOrder = nights.allSatisfy { period.contains($0.summary.date) } && zip(nights, nights.dropFirst()).allSatisfy { !order($1, $0) }
        let inside = inOrder ? nights : nights.filter { period.contains($0.summary.date) }.sorted(by: order)
        self.period = period
        nightsRecorded = inside.count
        nightsWithDose1 = inside.filter { $0.summary.dose1 != nil }.count
        onceNightlyNights = inside.filter { $0.summary.dose1 != nil && $0.summary.window == nil }.count
        bedtime = Bedtime(inside.map(\.summary))
        regimenPeriods = RegimenPeriod.of(inside, targetMinutes: targetMinutes)
        // Each night is read against the target once; the adherence figures and the correlations share the reading.
        let read = inside.map { ($0, Adherence.Night($0.summary, targetMinutes: targetMinutes)) }
        adherence = Adherence(nights: read.compactMap(\.1), targetMinutes: targetMinutes)
        mornings = inside.compactMap { night in
            night.checkIn.map { Morning(date: night.summary.date, wellness: $0.wellnessScore, sleepQuality: $0.sleepQuality) }
        }
        correlations = Correlations.all(read)
        var taken: [String: Int] = [:]
        for night in inside {
            for name in Set(night.medications) { taken[name, default: 0] += 1 }
        }
        medications = taken.map { MedicationUse(name: $0.key, nightsTaken: $0.value) }.sorted {
            ($1.nightsTaken, $0.name) < ($0.nightsTaken, $1.name)
        }
        notable = inside.flatMap { Self.notable($0.summary, targetMinutes: targetMinutes) }
    }

    /// How many more nights with Dose 1 (once or twice nightly) the figures need before they mean anything.
    public var nightsNeeded: Int { max(0, Adherence.minimumNights - nightsWithDose1) }

    /// `ready`, or `insufficient_data` with fewer than `Adherence.minimumNights` nights with Dose 1.
    public var state: State { nightsNeeded > 0 ? .insufficientData : .ready }

    /// The correlations with enough nights on both sides.
    public var shownCorrelations: [Correlation] { correlations.filter(\.comparison.isShown) }

    /// The mean wellness score, in whole points; nil without a check-in.
    public var meanWellness: Int? {
        mornings.isEmpty ? nil : Int((Double(mornings.map(\.wellness).reduce(0, +)) / Double(mornings.count)).rounded())
    }

    /// The mean sleep quality, to one decimal; nil without a check-in.
    public var meanSleepQuality: Double? {
        mornings.isEmpty ? nil : (Double(mornings.map(\.sleepQuality).reduce(0, +)) * 10 / Double(mornings.count)).rounded() / 10
    }

    /// The notable facts of one night.
    static func notable(_ night: NightSummary, targetMinutes: Int) -> [Notable] {
        var found: [Notable] = []
        for extra in night.extraDoses {
            found.append(Notable(date: night.date, kind: .extraDose, text: "Extra dose at \(LocalClock.hourMinute(extra.at, in: extra.timeZone))"))
        }
        guard let dose1 = night.dose1?.at, let timing = DoseTiming.of(night, targetMinutes: targetMinutes) else { return found }
        if let dose2 = night.dose2, let window = night.window {
            let minutes = DoseWindow.wholeMinutes(from: dose1, to: dose2.at)
            let at = LocalClock.hourMinute(dose2.at, in: dose2.timeZone)
            switch window.position(of: dose2.at, dose1: dose1) {
            case .closed:
                found.append(
                    Notable(date: night.date, kind: .lateDose, text: "Dose 2 at \(at), \(minutes) min after Dose 1: after the window closed"))
            case .beforeWindow:
                found.append(
                    Notable(date: night.date, kind: .earlyDose, text: "Dose 2 at \(at), \(minutes) min after Dose 1: before the window opened"))
            case .active, .nearClose:
                break
            }
        } else if timing == .skipped {
            let reason = night.skip?.reason.map { ": \($0)" } ?? ""
            found.append(Notable(date: night.date, kind: .skipped, text: "Dose 2 skipped\(reason)"))
        } else if timing == .sleptThrough {
            found.append(Notable(date: night.date, kind: .sleptThrough, text: "Slept through: the window closed with no Dose 2"))
        } else if timing == .endedWithoutDose2 {
            found.append(
                Notable(
                    date: night.date, kind: .endedWithoutDose2, text: "Ended without Dose 2: the night was ended before Dose 2 was taken or skipped"))
        }
        return found
    }
}
