public import Foundation

/// What the record must be asked before the rules can decide an action: which doses and taps near it, and whether a
/// check-in's "same as usual" must be filled in. The rules say it, so a store of any kind loads exactly this and no
/// store has to know why.
public struct ActionFacts: Sendable, Equatable {
    /// Oxybate doses of any night strictly inside this span: the redose spacing either side of a Dose 1 (D14).
    public var dosesWithin: InstantSpan?
    /// Taps of one sleep-event type in any night within its cooldown of an instant (a double tap is one tap).
    public var sameEvents: SameEvents?
    /// A check-in's "same as usual" sleep environment, copied from the latest check-in before this instant.
    public var usualEnvironmentBefore: Date?

    /// Taps of `type` less than `seconds` from `instant`, either side.
    public struct SameEvents: Sendable, Equatable {
        public var type: SleepEventType
        public var seconds: TimeInterval
        public var instant: Date

        /// A query for taps of one type near an instant.
        public init(type: SleepEventType, seconds: TimeInterval, instant: Date) {
            self.type = type
            self.seconds = seconds
            self.instant = instant
        }
    }

    /// Facts to load; nothing by default.
    public init(dosesWithin: InstantSpan? = nil, sameEvents: SameEvents? = nil, usualEnvironmentBefore: Date? = nil) {
        self.dosesWithin = dosesWithin
        self.sameEvents = sameEvents
        self.usualEnvironmentBefore = usualEnvironmentBefore
    }
}

/// The instants strictly after `after` and strictly before `before`: what a store is asked for, so it needs no rule to
/// know how far to look.
public struct InstantSpan: Sendable, Equatable {
    public var after: Date
    public var before: Date

    /// A span of instants, both ends left out.
    public init(after: Date, before: Date) {
        self.after = after
        self.before = before
    }
}

extension NightRules {
    /// The facts `decide` needs for `action` beyond the night itself, at `now` under `settings`.
    public static func factsNeeded(
        for action: NightAction, now: Date, settings: DoseSettings, catalogue: SleepEventCatalogue = .standard
    ) -> ActionFacts {
        let at = action.occurredAt ?? now
        var facts = ActionFacts()
        switch action.kind {
        case .dose1:
            facts.dosesWithin = NightRules.redoseSpan(around: at)
        case .checkIn(let answers) where answers.environment?.sameAsUsual == true:
            facts.usualEnvironmentBefore = at
        default:
            break
        }
        let sleepType: String? =
            switch action.kind {
            case .log(let name): name
            case .wake: SleepEventType.wakeFinal.rawValue
            default: nil
            }
        if let sleepType, let definition = try? catalogue.resolve(sleepType) {
            let cooldown = TimeInterval(settings.cooldownSeconds(for: definition))
            if cooldown > 0 { facts.sameEvents = ActionFacts.SameEvents(type: definition.type, seconds: cooldown, instant: at) }
        }
        return facts
    }
}
