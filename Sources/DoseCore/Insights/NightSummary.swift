public import Foundation

/// A night reduced to what insights read: its doses, its skip, its snoozes and its logged awakenings. It is derived
/// from the night's events by `init(_:)` alone; the store keeps it beside the night and rewrites it with every change
/// to the night's events, so ten years of insights read one row a night instead of every event.
public struct NightSummary: Sendable, Hashable {
    /// An instant and the zone it was recorded in.
    public struct Moment: Sendable, Hashable {
        public let at: Date
        public let timeZoneID: String

        /// An instant in a zone.
        public init(at: Date, timeZoneID: String) {
            self.at = at
            self.timeZoneID = timeZoneID
        }

        /// When and where an event happened.
        init(_ event: NightEvent) { self.init(at: event.occurredAt, timeZoneID: event.timeZoneID) }

        /// The zone, or UTC if its identifier is unknown here.
        public var timeZone: TimeZone { TimeZone(identifier: timeZoneID) ?? TimeZone(secondsFromGMT: 0)! }
    }

    /// The skip in force (no Dose 2 after it).
    public struct Skip: Sendable, Hashable {
        /// The reason given, if any; `NightFacts.sleptThroughReason` for the automatic expiry.
        public let reason: String?
        /// Whether it is the automatic expiry (slept through) rather than the person's skip.
        public let sleptThrough: Bool

        /// A skip.
        public init(reason: String?, sleptThrough: Bool) {
            self.reason = reason
            self.sleptThrough = sleptThrough
        }
    }

    public let date: SessionKey
    public let startedAt: Date
    public let dose1: Moment?
    public let dose2: Moment?
    /// Extra doses, oldest first.
    public let extraDoses: [Moment]
    public let skip: Skip?
    /// Snoozes that night.
    public let snoozes: Int
    /// Logged times awake between Dose 1 and the final wake-up (or the night's last event): bathroom, water, snack and
    /// brief wakes (`Adherence.awakeEvents`). Zero without Dose 1.
    public let awakenings: Int
    /// The regimen Dose 1 was taken under; nil without Dose 1, or for a Dose 1 recorded before nights kept one.
    public let regimen: DoseRegimen?
    /// Whether the night has ended (its session is closed), so a Dose 2 neither taken nor skipped was missed.
    public let ended: Bool

    /// A summary as stored.
    public init(
        date: SessionKey, startedAt: Date, dose1: Moment?, dose2: Moment?, extraDoses: [Moment], skip: Skip?, snoozes: Int, awakenings: Int,
        regimen: DoseRegimen?, ended: Bool
    ) {
        self.regimen = regimen
        self.ended = ended
        self.date = date
        self.startedAt = startedAt
        self.dose1 = dose1
        self.dose2 = dose2
        self.extraDoses = extraDoses
        self.skip = skip
        self.snoozes = snoozes
        self.awakenings = awakenings
    }

    /// The summary of a night's events.
    public init(_ session: NightSession) {
        let facts = session.facts
        let end = facts.wake?.occurredAt ?? .distantFuture
        // Counted by halving the night's brief wakes: a night's summary is rewritten with every action.
        let awakenings = facts.dose1.map { facts.awakenings(after: $0.occurredAt, before: end) }
        self.init(
            date: session.date, startedAt: session.startedAt, dose1: facts.dose1.map(Moment.init), dose2: facts.dose2.map(Moment.init),
            extraDoses: facts.extraDoses.map(Moment.init),
            skip: facts.skip.map { Skip(reason: $0.metadata.skipReason, sleptThrough: NightFacts.isSleepThrough($0)) },
            snoozes: facts.snoozes.count, awakenings: awakenings ?? 0, regimen: facts.regimen, ended: !session.isOpen)
    }

    /// The night's Dose 2 window: nil without Dose 1 and once nightly; the label's before nights kept their regimen.
    public var window: DoseWindow? { dose1 == nil ? nil : DoseRegimen.window(of: regimen) }

    /// Whole minutes from Dose 1 to Dose 2, when both were taken.
    public var intervalMinutes: Int? {
        guard let dose1, let dose2 else { return nil }
        return DoseWindow.wholeMinutes(from: dose1.at, to: dose2.at)
    }
}
