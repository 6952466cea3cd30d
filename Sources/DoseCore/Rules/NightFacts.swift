public import Foundation

/// The facts of a night read off its events once, so every rule asks the same questions the same way. A night keeps
/// its facts (`NightSession.facts`) and folds each new event into them (`folding`), so an action costs the same on the
/// thousandth event as on the tenth; folding is the same as reading the events again, always (a property test says so).
public struct NightFacts: Sendable, Hashable {
    /// The Dose 1 event (the first, if somehow several).
    public private(set) var dose1: NightEvent?
    /// The Dose 2 event.
    public private(set) var dose2: NightEvent?
    /// Extra doses, oldest first.
    public private(set) var extraDoses: [NightEvent]
    /// The skip in force: the latest skip, unless a Dose 2 supersedes it.
    public private(set) var skip: NightEvent?
    /// Every skip event, superseded or not.
    public private(set) var allSkips: [NightEvent]
    /// Snoozes, oldest first.
    public private(set) var snoozes: [NightEvent]
    /// The final wake-up.
    public private(set) var wake: NightEvent?
    /// The morning check-in.
    public private(set) var checkIn: NightEvent?
    /// Every event.
    public private(set) var events: [NightEvent]
    /// The regimen Dose 1 was taken under (D19), nil without Dose 1 or for a Dose 1 recorded before nights kept one.
    public private(set) var regimen: DoseRegimen?
    /// The night's Dose 2 window: nil without Dose 1 and under a once-nightly regimen; the label's for a Dose 1 recorded
    /// before nights kept their regimen, when every night was twice nightly.
    public private(set) var window: DoseWindow?
    /// When each brief wake (`Adherence.awakeEvents`) happened, oldest first: what the night's awakenings count.
    public private(set) var awakeTimes: [Date]

    /// Reads the facts of a set of events.
    public init(_ events: [NightEvent]) {
        // A session keeps its events in order already; checking is far cheaper than sorting a long night again.
        let sorted =
            events.indices.dropFirst().allSatisfy { !NightSession.chronological(events[$0], events[$0 - 1]) }
            ? events : events.sorted(by: NightSession.chronological)
        self.events = sorted
        var dose1: NightEvent?
        var dose2: NightEvent?
        var wake: NightEvent?
        var checkIn: NightEvent?
        var extraDoses: [NightEvent] = []
        var allSkips: [NightEvent] = []
        var snoozes: [NightEvent] = []
        var awakeTimes: [Date] = []
        for event in sorted {
            if case .sleep(let type) = event.kind, Adherence.awakeEvents.contains(type) { awakeTimes.append(event.occurredAt) }
            switch event.kind {
            case .dose1: if dose1 == nil { dose1 = event }
            case .dose2: if dose2 == nil { dose2 = event }
            case .extraDose: extraDoses.append(event)
            case .dose2Skipped: allSkips.append(event)
            case .snooze: snoozes.append(event)
            case .sleep(.wakeFinal): if wake == nil { wake = event }
            case .checkIn: if checkIn == nil { checkIn = event }
            case .sleep: break
            }
        }
        self.dose1 = dose1
        self.dose2 = dose2
        self.extraDoses = extraDoses
        self.allSkips = allSkips
        self.skip = dose2 == nil ? allSkips.last : nil
        self.snoozes = snoozes
        self.wake = wake
        self.checkIn = checkIn
        self.regimen = dose1?.metadata.regimen
        self.window = dose1.flatMap(Self.window(of:))
        self.awakeTimes = awakeTimes
    }

    /// Adds an event that sorts after every event already read (the usual new event of a night) without reading the
    /// others again. An event that sorts earlier reads the night again.
    public mutating func fold(_ event: NightEvent) {
        if let last = events.last, NightSession.chronological(event, last) {
            self = NightFacts(events + [event])
            return
        }
        events.append(event)
        if case .sleep(let type) = event.kind, Adherence.awakeEvents.contains(type) { awakeTimes.append(event.occurredAt) }
        switch event.kind {
        case .dose1:
            if dose1 == nil {
                dose1 = event
                regimen = event.metadata.regimen
                window = Self.window(of: event)
            }
        case .dose2:
            if dose2 == nil {
                dose2 = event
                skip = nil
            }
        case .extraDose: extraDoses.append(event)
        case .dose2Skipped:
            allSkips.append(event)
            if dose2 == nil { skip = event }
        case .snooze: snoozes.append(event)
        case .sleep(.wakeFinal): if wake == nil { wake = event }
        case .checkIn: if checkIn == nil { checkIn = event }
        case .sleep: break
        }
    }

    /// How many brief wakes happened strictly between `start` and `end`: found by halving, not by walking the night.
    public func awakenings(after start: Date, before end: Date) -> Int {
        func firstIndex(after instant: Date, orAt: Bool) -> Int {
            var (low, high) = (0, awakeTimes.count)
            while low < high {
                let middle = (low + high) / 2
                if awakeTimes[middle] < instant || (!orAt && awakeTimes[middle] == instant) { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return max(0, firstIndex(after: end, orAt: true) - firstIndex(after: start, orAt: false))
    }

    /// The Dose 2 window a Dose 1 opens: its regimen's, or the label's for a Dose 1 recorded before nights kept one.
    public static func window(of dose1: NightEvent) -> DoseWindow? { DoseRegimen.window(of: dose1.metadata.regimen) }

    /// The night's regimen kind, nil without Dose 1.
    public var regimenKind: DoseRegimen.Kind? { dose1.map { _ in window == nil ? .onceNightly : .twiceNightly } }

    /// Whether the skip in force is the automatic sleep-through expiry.
    public var sleptThrough: Bool { skip.map(NightFacts.isSleepThrough) ?? false }

    /// Number of doses recorded (Dose 1, Dose 2, extras).
    public var doseCount: Int { (dose1 == nil ? 0 : 1) + (dose2 == nil ? 0 : 1) + extraDoses.count }

    /// The night's regimen; a Dose 1 recorded before nights kept one was taken under the profile's in `settings`.
    public func regimen(or settings: DoseSettings) -> DoseRegimen { regimen ?? .recordedBeforeRegimens(settings) }

    /// Milligrams of oxybate the night's doses hold: each at the amount recorded with it, or, recorded before amounts
    /// were kept, at `regimen`'s amount for its place.
    public func takenMilligrams(regimen: DoseRegimen) -> Int {
        ([dose1, dose2].compactMap { $0 } + extraDoses).reduce(0) { $0 + Self.milligrams(of: $1, regimen: regimen) }
    }

    /// One dose's amount: the one recorded with it, or, recorded before amounts were kept, `regimen`'s for its place.
    public static func milligrams(of dose: NightEvent, regimen: DoseRegimen) -> Int {
        dose.metadata.amountMilligrams ?? regimen.milligrams(ofDose: dose.metadata.doseIndex ?? (dose.kind == .dose1 ? 1 : 2))
    }

    /// Whether a dose of the night was recorded as taken anyway, past what Tonight's take allows (D20).
    public var hasDoseTakenAnyway: Bool { extraDoses.contains(where: \.metadata.takenAnyway) }

    /// Whether the night went past its limits (D20): a dose recorded as taken anyway, more than one extra dose, or more
    /// than its maximum. Only the record-keeping commands can bring a night there.
    public func isPastMaximum(regimen: DoseRegimen) -> Bool {
        hasDoseTakenAnyway || extraDoses.count > 1 || takenMilligrams(regimen: regimen) > regimen.nightlyMaximumMilligrams
    }

    /// The latest snooze's end, if any snooze is recorded.
    public var snoozeUntil: Date? {
        snoozes.last.map { $0.metadata.snoozeUntil ?? $0.occurredAt.addingTimeInterval(DoseWindow.minutes(DoseWindow.snoozeMinutes)) }
    }

    /// Whether Dose 2 is neither taken nor skipped and, at `instant`, the night has not expired.
    public func dose2Pending(at instant: Date) -> Bool {
        guard let dose1, let window, dose2 == nil, skip == nil else { return false }
        return instant < window.expires(after: dose1.occurredAt)
    }

    /// When the person ended the night themself (its wake-up, else its check-in), if they did.
    public var endedAt: Date? { (wake ?? checkIn)?.occurredAt }

    /// Whether the person ended the night with Dose 2 still possible, before its sleep-through expiry: a night ended so
    /// did not run out, and never reads as slept through.
    public var endedBeforeExpiry: Bool {
        guard let endedAt, let dose1, let window, dose2 == nil else { return false }
        return endedAt < window.expires(after: dose1.occurredAt)
    }

    /// The skip reason recorded by the sleep-through expiry.
    public static let sleptThroughReason = "slept_through"

    static func isSleepThrough(_ event: NightEvent) -> Bool {
        event.source == .system && event.metadata.skipReason == sleptThroughReason
    }
}

/// The night's dose outcome (SPEC D1).
public enum NightOutcome: String, Sendable, Codable {
    /// A once-nightly night's one dose was taken (D19).
    case doseTaken = "dose_taken"
    case dose2Taken = "dose2_taken"
    case dose2Skipped = "dose2_skipped"
    case expired
}

/// The seven phases of a night (SPEC D1).
public enum NightPhase: String, Sendable, Codable, CaseIterable, Comparable {
    case noDose1 = "no_dose1"
    case beforeWindow = "before_window"
    case active
    case nearClose = "near_close"
    case closed
    case finalizing
    case completed

    /// Words for people.
    public var label: String {
        switch self {
        case .noDose1: "Dose 1 not taken"
        case .beforeWindow: "Waiting for the Dose 2 window"
        case .active: "Dose 2 window open"
        case .nearClose: "Dose 2 window closing soon"
        case .closed: "Dose 2 window closed"
        case .finalizing: "Awake — check-in pending"
        case .completed: "Night complete"
        }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

extension NightFacts {
    /// The phase at `instant`. Recorded events decide first (check-in, wake, Dose 2 or skip); then Dose 1
    /// and the clock; a once-nightly night is complete once its dose is taken. A night past the sleep-through expiry is complete even before its expiry is recorded.
    public func phase(at instant: Date) -> NightPhase {
        if checkIn != nil { return .completed }
        if wake != nil { return .finalizing }
        if dose2 != nil || skip != nil { return .completed }
        guard let dose1 else { return .noDose1 }
        // Once nightly, the night's one dose is its whole dose plan.
        guard let window else { return .completed }
        if instant >= window.expires(after: dose1.occurredAt) { return .completed }
        switch window.position(of: instant, dose1: dose1.occurredAt) {
        case .beforeWindow: return .beforeWindow
        case .active: return .active
        case .nearClose: return .nearClose
        case .closed: return .closed
        }
    }

    /// The outcome at `instant`: Dose 2 taken, skipped, expired, or nil while undecided.
    public func outcome(at instant: Date) -> NightOutcome? {
        if dose2 != nil { return .dose2Taken }
        if let skip { return NightFacts.isSleepThrough(skip) ? .expired : .dose2Skipped }
        if dose1 != nil, window == nil { return .doseTaken }
        if let dose1, let window {
            let expires = window.expires(after: dose1.occurredAt)
            // Ended by the person before its window ran out (D16's end_night): it never expires.
            if endedBeforeExpiry { return nil }
            if instant >= expires { return .expired }
        }
        return nil
    }

    /// The terminal state a night closing at `instant` gets (D12).
    public func terminalState(at instant: Date) -> TerminalState {
        switch outcome(at: instant) {
        case .dose2Taken, .doseTaken: .completed
        case .dose2Skipped: .skipped
        case .expired: .expired
        case nil: .aborted
        }
    }
}
