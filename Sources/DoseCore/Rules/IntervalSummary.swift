/// How close Dose 2 came to the target over a run of nights: the figures the API and the Insights page share.
public struct IntervalSummary: Sendable, Hashable {
    /// One night's Dose 1 → Dose 2 interval.
    public struct Night: Sendable, Hashable {
        public let date: SessionKey
        public let minutes: Int

        public init(date: SessionKey, minutes: Int) {
            self.date = date
            self.minutes = minutes
        }
    }

    /// Nights with Dose 2, oldest first.
    public let nights: [Night]
    /// The target interval the figures are measured against.
    public let targetMinutes: Int

    /// The summary of `nights` (any order) against `targetMinutes`.
    public init(nights: [Night], targetMinutes: Int) {
        self.nights = nights.sorted { $0.date < $1.date }
        self.targetMinutes = targetMinutes
    }

    /// Nights whose interval is within ±10 minutes of the target (SPEC §5.5 "on time").
    public var onTime: Int { nights.filter { DoseWindow.isOnTime(intervalMinutes: $0.minutes, targetMinutes: targetMinutes) }.count }

    /// On-time nights as a whole percentage (rounded down), or nil with no nights.
    public var onTimePercent: Int? { nights.isEmpty ? nil : onTime * 100 / nights.count }
}
