public import Foundation

/// How a night's Dose 2 went, in the one vocabulary of every surface, export and report (D18): *early* and *late* are
/// outside the night's window and always warnings; *on target* is within ±10 minutes of the target; *in window* is the
/// rest of the window; *skipped* and *slept through* are never a dose. A once-nightly night has *one dose*: there is no
/// Dose 2 to judge (D19).
public enum DoseTiming: String, Sendable, Hashable, CaseIterable, Codable {
    /// Dose 2 within ±10 minutes of the target (and inside the window).
    case onTarget = "on_target"
    /// Dose 2 inside the window but more than 10 minutes from the target.
    case inWindow = "in_window"
    /// Dose 2 before the window opened: a warning.
    case early
    /// Dose 2 at or after the window closed: a warning.
    case late
    /// Dose 2 skipped by the person.
    case skipped
    /// Slept through: the window ran out with no Dose 2 (the automatic expiry).
    case sleptThrough = "slept_through"
    /// Still to be decided: an open night with Dose 2 pending; not counted in the shares.
    case undecided
    /// The night was ended (a wake-up or check-in confirmed with end_night, or a close) with Dose 2 neither taken nor
    /// skipped: a missed Dose 2, counted as one.
    case endedWithoutDose2 = "ended_without_dose2"
    /// A once-nightly night: its one dose taken, no Dose 2 to judge; not counted in the Dose 2 figures.
    case oneDose = "one_dose"

    /// How a night with these events went, against its own target (or `targetMinutes` for a night recorded before
    /// nights kept one); nil for a night without Dose 1.
    /// `closed` says the night's session has closed; a night closed without Dose 2 or a skip ended without Dose 2. A night
    /// the person ended (wake-up, check-in) before its sleep-through expiry ended without Dose 2 even before it closes, and
    /// even when an expiry was recorded after it (before nights ended so kept none).
    public static func of(_ facts: NightFacts, targetMinutes: Int, closed: Bool = false) -> DoseTiming? {
        let endedFirst = facts.endedBeforeExpiry
        // Ended only after the window ran out, with no expiry recorded (a Dose 2 corrected away later): slept through.
        if facts.dose1 != nil, facts.window != nil, facts.dose2 == nil, facts.skip == nil, facts.endedAt != nil, !endedFirst {
            return .sleptThrough
        }
        let expiryAfterEnd = facts.skip.map { skip in NightFacts.isSleepThrough(skip) && endedFirst } ?? false
        return of(
            dose1: facts.dose1?.occurredAt, dose2: facts.dose2?.occurredAt,
            skipIsSleepThrough: expiryAfterEnd ? nil : facts.skip.map(NightFacts.isSleepThrough),
            ended: endedFirst || (closed && facts.endedAt == nil), window: facts.window,
            targetMinutes: facts.regimen?.targetMinutes ?? targetMinutes)
    }

    /// How a summarised night went, against its own target (or `targetMinutes`); nil for a night without Dose 1.
    public static func of(_ summary: NightSummary, targetMinutes: Int) -> DoseTiming? {
        of(
            dose1: summary.dose1?.at, dose2: summary.dose2?.at, skipIsSleepThrough: summary.skip?.sleptThrough, ended: summary.ended,
            window: summary.window, targetMinutes: summary.regimen?.targetMinutes ?? targetMinutes)
    }

    /// How a Dose 2 at `dose2` went after Dose 1 at `dose1`: the window decides early and late on absolute instants, to
    /// the second (D2), before the target is looked at, so an off-target dose inside the window is never called late.
    public static func of(dose2: Date, dose1: Date, window: DoseWindow, targetMinutes: Int) -> DoseTiming {
        switch window.position(of: dose2, dose1: dose1) {
        case .beforeWindow: return .early
        case .closed: return .late
        case .active, .nearClose:
            let interval = DoseWindow.wholeMinutes(from: dose1, to: dose2)
            return DoseWindow.isOnTime(intervalMinutes: interval, targetMinutes: targetMinutes) ? .onTarget : .inWindow
        }
    }

    /// The one reading both forms share; `skipIsSleepThrough` is nil without a skip in force.
    private static func of(
        dose1: Date?, dose2: Date?, skipIsSleepThrough: Bool?, ended: Bool, window: DoseWindow?, targetMinutes: Int
    ) -> DoseTiming? {
        guard let dose1 else { return nil }
        guard let window else { return .oneDose }
        if let dose2 { return of(dose2: dose2, dose1: dose1, window: window, targetMinutes: targetMinutes) }
        if let skipIsSleepThrough { return skipIsSleepThrough ? .sleptThrough : .skipped }
        return ended ? .endedWithoutDose2 : .undecided
    }

    /// The ways a twice-nightly night's Dose 2 goes, which the Dose 2 figures count; a once-nightly night is not one.
    public static let dose2Figures = allCases.filter { $0 != .oneDose }

    /// Outside the window: shown as a warning, never with a success mark.
    public var isWarning: Bool { self == .early || self == .late }

    /// Whether Dose 2 was taken.
    public var isDose: Bool { [.onTarget, .inWindow, .early, .late].contains(self) }

    /// Its words in a sentence: "on target", "late (after the window)".
    public var words: String {
        switch self {
        case .onTarget: "on target"
        case .inWindow: "in window"
        case .early: "early (before the window)"
        case .late: "late (after the window)"
        case .skipped: "skipped"
        case .sleptThrough: "slept through"
        case .undecided: "not decided"
        case .endedWithoutDose2: "ended without Dose 2"
        case .oneDose: "one dose (once nightly)"
        }
    }

    /// Its name as a label or badge: "On target", "Late".
    public var label: String {
        switch self {
        case .onTarget: "On target"
        case .inWindow: "In window"
        case .early: "Early"
        case .late: "Late"
        case .skipped: "Skipped"
        case .sleptThrough: "Slept through"
        case .undecided: "Not decided"
        case .endedWithoutDose2: "Ended without Dose 2"
        case .oneDose: "One dose"
        }
    }

    /// A closed night's outcome as a badge: "On target", "⚠ Late", "Slept through", "Ended without Dose 2", "No Dose 1".
    public static func badge(_ timing: DoseTiming?) -> String {
        guard let timing else { return "No Dose 1" }
        return timing.isWarning ? "⚠ \(timing.label)" : timing.label
    }

    /// A mark that reads without colour: a tick only inside the window, a warning sign outside it, and a dash where no
    /// dose was taken.
    public var mark: String {
        switch self {
        case .onTarget, .inWindow, .oneDose: "✓"
        case .early, .late: "⚠"
        case .skipped, .sleptThrough, .undecided, .endedWithoutDose2: "—"
        }
    }
}

/// The adherence figures of a run of nights: how each Dose 2 went, and the Dose 1 → Dose 2 interval's spread. A pure
/// function of the nights and the target, so every surface (page, API, CLI, report) shows the same numbers.
public struct Adherence: Sendable, Hashable {
    /// One night as the figures read it.
    public struct Night: Sendable, Hashable {
        public let date: SessionKey
        public let timing: DoseTiming
        /// Whole minutes from Dose 1 to Dose 2, when both were taken.
        public let intervalMinutes: Int?
        /// Whether Dose 2 came inside the night's window (to the second).
        public let insideWindow: Bool
        /// Whether Dose 2 came from a natural wake: before the wake alarm, with no snooze (seed 003's glossary).
        public let naturalWake: Bool
        /// Snoozes that night.
        public let snoozes: Int
        /// The target the night was judged against.
        public let targetMinutes: Int
        /// Logged times awake between Dose 1 and the final wake-up (or the night's last event): bathroom, water,
        /// snack and brief wakes.
        public let awakenings: Int

        /// The night of `session` against its own target (`targetMinutes` for a night recorded before nights kept one);
        /// nil when it has no Dose 1 or is once nightly (no Dose 2 to judge).
        public init?(_ session: NightSession, targetMinutes: Int) {
            self.init(NightSummary(session), targetMinutes: targetMinutes)
        }

        /// The summarised night against its own target (or `targetMinutes`); nil when it has no Dose 1 or is once nightly.
        public init?(_ summary: NightSummary, targetMinutes: Int) {
            guard let timing = DoseTiming.of(summary, targetMinutes: targetMinutes), timing != .oneDose, let dose1 = summary.dose1?.at,
                let window = summary.window
            else { return nil }
            let targetMinutes = summary.regimen?.targetMinutes ?? targetMinutes
            date = summary.date
            self.timing = timing
            self.targetMinutes = targetMinutes
            let dose2 = summary.dose2?.at
            intervalMinutes = summary.intervalMinutes
            insideWindow = dose2.map { [.active, .nearClose].contains(window.position(of: $0, dose1: dose1)) } ?? false
            snoozes = summary.snoozes
            naturalWake =
                dose2.map { window.isNaturalWake(dose1: dose1, dose2: $0, targetMinutes: targetMinutes, snoozes: summary.snoozes) } ?? false
            awakenings = summary.awakenings
        }

        /// Minutes awake after sleep onset, estimated: the logged awakenings times `Adherence.minutesPerAwakening`.
        /// Logged events have no duration, so this is always an estimate, and says so.
        public var wasoEstimateMinutes: Int { awakenings * Adherence.minutesPerAwakening }
    }

    /// The logged events that mean being awake in the night.
    public static let awakeEvents: Set<SleepEventType> = [.bathroom, .water, .snack, .wakeTemp]
    /// What one logged awakening counts for in the WASO estimate.
    public static let minutesPerAwakening = 5
    /// How the WASO estimate is made, in words, wherever it is shown.
    public static let wasoMethod =
        "Estimated: \(minutesPerAwakening) minutes for each logged bathroom trip, drink, snack or brief wake between Dose 1 and the final "
        + "wake-up. Logged events have no duration."
    /// Fewer nights with Dose 1 than this is seed 003's `insufficient_data` state.
    public static let minimumNights = 3

    /// The nights with Dose 1, oldest first.
    public let nights: [Night]
    /// The target the timings were judged against.
    public let targetMinutes: Int

    /// The figures of `sessions` (any order; nights without Dose 1 are left out) against `targetMinutes`.
    public init(_ sessions: [NightSession], targetMinutes: Int) {
        self.init(nights: sessions.compactMap { Night($0, targetMinutes: targetMinutes) }, targetMinutes: targetMinutes)
    }

    /// The figures of nights already read against `targetMinutes`.
    public init(nights: [Night], targetMinutes: Int) {
        self.nights = nights.sorted { $0.date < $1.date }
        self.targetMinutes = targetMinutes
    }

    /// Nights counted in the shares: every night with Dose 1 whose Dose 2 was decided (taken, skipped or expired).
    public var decided: Int { nights.filter { $0.timing != .undecided }.count }

    /// How many nights went each way.
    public func count(_ timing: DoseTiming) -> Int { nights.filter { $0.timing == timing }.count }

    /// The share of decided nights that went `timing`, in percent to one decimal; nil with none decided.
    public func percent(_ timing: DoseTiming) -> Double? {
        timing == .undecided ? nil : Self.percent(count(timing), of: decided)
    }

    /// The intervals of nights with both doses, oldest first.
    public var intervals: [Int] { nights.compactMap(\.intervalMinutes) }

    /// The median interval in minutes; nil with no interval.
    public var medianInterval: Double? { Self.quantile(intervals, 0.5) }

    /// The interquartile range (first and third quartiles, linear interpolation between order statistics, as R's and
    /// NumPy's defaults); nil with no interval.
    public var interquartileRange: (lower: Double, upper: Double)? {
        guard let lower = Self.quantile(intervals, 0.25), let upper = Self.quantile(intervals, 0.75) else { return nil }
        return (lower, upper)
    }

    /// The mean of each run of 7 consecutive intervals, ending at each night from the seventh on.
    public var rollingMean7: [(date: SessionKey, minutes: Double)] {
        let taken = nights.filter { $0.intervalMinutes != nil }
        guard taken.count >= 7 else { return [] }
        return (6..<taken.count).map { end in
            let run = taken[(end - 6)...end].compactMap(\.intervalMinutes)
            return (taken[end].date, Double(run.reduce(0, +)) / 7)
        }
    }

    /// The share of nights with both doses whose Dose 2 came inside their window, in percent to one decimal.
    public var insideWindowPercent: Double? {
        let taken = nights.filter { $0.intervalMinutes != nil }
        return Self.percent(taken.filter(\.insideWindow).count, of: taken.count)
    }

    /// How many more nights with Dose 1 the figures need before they mean anything; 0 when they are ready.
    public var nightsNeeded: Int { max(0, Self.minimumNights - nights.count) }

    /// The share of nights with Dose 2 that came from a natural wake, in percent to one decimal.
    public var naturalWakePercent: Double? {
        let taken = nights.filter { $0.intervalMinutes != nil }
        return Self.percent(taken.filter(\.naturalWake).count, of: taken.count)
    }

    /// Snoozes per night with Dose 1, to one decimal.
    public var snoozesPerNight: Double? {
        nights.isEmpty ? nil : (Double(nights.map(\.snoozes).reduce(0, +)) * 10 / Double(nights.count)).rounded() / 10
    }

    /// The estimated WASO per night with Dose 1, in whole minutes (an estimate: see `Night.wasoEstimateMinutes`).
    public var wasoEstimatePerNight: Int? {
        nights.isEmpty ? nil : nights.map(\.wasoEstimateMinutes).reduce(0, +) / nights.count
    }

    /// `part` of `whole` in percent to one decimal; nil for none.
    static func percent(_ part: Int, of whole: Int) -> Double? {
        whole == 0 ? nil : (Double(part) * 1000 / Double(whole)).rounded() / 10
    }

    /// The `q` quantile of `values` (0…1), type 7: h = (n − 1)q, between the order statistics around h.
    static func quantile(_ values: [Int], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted().map(Double.init)
        let h = Double(sorted.count - 1) * q
        let low = Int(h.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (h - Double(low)) * (sorted[high] - sorted[low])
    }
}
