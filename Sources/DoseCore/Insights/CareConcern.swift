public import Foundation

/// What a clinic's list shows of one person at a glance, and how it orders them (issue 56): the last 7 nights' Dose 2
/// that went wrong (early, late, missed), the wellness trend of the morning check-ins, and the days since a night was
/// last logged. The ones needing attention come first.
public struct CareConcern: Sendable, Equatable {
    /// The nights the concerns count, back from tonight.
    public static let recentNights = 7
    /// The nights before them that the wellness trend compares with.
    public static let baselineNights = 21
    /// A wellness change (points of 100) at least this large, either way, is a trend worth saying; a fall this large
    /// needs attention.
    public static let wellnessShift = 10.0
    /// Days without a logged night after which someone needs attention: a person who stopped logging may have stopped
    /// taking it, or stopped being able to.
    public static let quietDays = 3

    /// Nights with Dose 1 in the recent nights.
    public let nights: Int
    /// Dose 2 before the window opened.
    public let early: Int
    /// Dose 2 at or after the window closed.
    public let late: Int
    /// No Dose 2: slept through, ended without it, or a window that has closed with none logged yet.
    public let missed: Int
    /// Skipped on purpose: said, not counted as a concern.
    public let skipped: Int
    /// The mean wellness score (0–100) of the recent nights' check-ins, and of the baseline nights' before them.
    public let wellness: Double?
    public let wellnessBefore: Double?
    /// Whole days from the last night logged to tonight; nil when there is none.
    public let daysSinceLastNight: Int?

    /// One night's part: its date, its Dose 2 timing (nil without Dose 1 or once nightly), and its check-in's wellness.
    public struct Night: Sendable, Equatable {
        public let date: SessionKey
        public let timing: DoseTiming?
        public let wellness: Int?

        public init(date: SessionKey, timing: DoseTiming?, wellness: Int?) {
            self.date = date
            self.timing = timing
            self.wellness = wellness
        }

        /// A summarised night as of `now`: its timing as Insights judge it (against `targetMinutes` for a night that kept
        /// no target), except that a night still open whose window has closed with no Dose 2 counts as ended without
        /// it, so tonight's missed Dose 2 shows tonight, not once the night settles.
        public init(_ summary: NightSummary, wellness: Int?, targetMinutes: Int, at now: Date) {
            var timing = DoseTiming.of(summary, targetMinutes: targetMinutes)
            if timing == .undecided, let dose1 = summary.dose1?.at, let window = summary.window, window.position(of: now, dose1: dose1) == .closed {
                timing = .endedWithoutDose2
            }
            self.init(date: summary.date, timing: timing, wellness: wellness)
        }
    }

    /// The concerns of `nights` (any order) as of `today`, the last night logged being `lastNight` (which may be older
    /// than any night given).
    public init(_ nights: [Night], lastNight: SessionKey?, today: SessionKey) {
        let recentFrom = today.adding(days: -(Self.recentNights - 1))
        let baselineFrom = recentFrom.adding(days: -Self.baselineNights)
        let recent = nights.filter { $0.date >= recentFrom && $0.date <= today }
        let timings = recent.compactMap(\.timing)
        self.nights = timings.filter { $0 != .oneDose }.count
        early = timings.filter { $0 == .early }.count
        late = timings.filter { $0 == .late }.count
        missed = timings.filter { [.sleptThrough, .endedWithoutDose2].contains($0) }.count
        skipped = timings.filter { $0 == .skipped }.count
        func mean(_ scores: [Int]) -> Double? { scores.isEmpty ? nil : Double(scores.reduce(0, +)) / Double(scores.count) }
        wellness = mean(recent.compactMap(\.wellness))
        wellnessBefore = mean(nights.filter { $0.date >= baselineFrom && $0.date < recentFrom }.compactMap(\.wellness))
        daysSinceLastNight = lastNight.map { max(0, today.days(since: $0)) }
    }

    /// Dose 2 that went wrong in the recent nights.
    public var doseConcerns: Int { early + late + missed }

    /// The change of wellness from the baseline to the recent nights; nil without both.
    public var wellnessChange: Double? { wellness.flatMap { now in wellnessBefore.map { now - $0 } } }

    /// Whether the person needs attention: a Dose 2 that went wrong, no night logged for `quietDays`, or wellness
    /// fallen by `wellnessShift`.
    public var needsAttention: Bool {
        doseConcerns > 0 || (daysSinceLastNight.map { $0 >= Self.quietDays } ?? false) || (wellnessChange.map { $0 <= -Self.wellnessShift } ?? false)
    }

    /// Whether `a` comes before `b` on the list: those needing attention first, then by Dose 2 concerns, days without a
    /// night, and the fall in wellness, each the worst first; ties keep their order.
    public static func comesFirst(_ a: CareConcern, _ b: CareConcern) -> Bool {
        func key(_ concern: CareConcern) -> (Int, Int, Int, Double) {
            (
                concern.needsAttention ? 0 : 1, -concern.doseConcerns, -(concern.daysSinceLastNight ?? Int.max / 2),
                concern.wellnessChange ?? 0
            )
        }
        return key(a) < key(b)
    }

    /// `items` in the list's order by their concern (`comesFirst`), those without one (no `view` or `report`) last;
    /// items that compare equal keep their order.
    public static func ordered<Item>(_ items: [Item], by concern: (Item) -> CareConcern?) -> [Item] {
        items.enumerated().sorted { a, b in
            switch (concern(a.element), concern(b.element)) {
            case (let x?, let y?): comesFirst(x, y) || (!comesFirst(y, x) && a.offset < b.offset)
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.offset < b.offset
            }
        }.map(\.element)
    }
}
