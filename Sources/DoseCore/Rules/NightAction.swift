public import Foundation

/// Something a person asks DoseTap to do in the night (SPEC §3.3).
public struct NightAction: Sendable {
    /// The kinds of action.
    public enum Kind: Sendable {
        case dose1
        case dose2
        case skip(reason: String?)
        case snooze
        case undo
        /// A sleep event by any accepted spelling of its name.
        case log(event: String)
        /// The final wake-up (`wake_final`).
        case wake
        case checkIn(MorningCheckIn)
        /// Record-keeping, never Tonight's take: an oxybate dose the person really took past what Tonight allows (D20),
        /// recorded as an extra dose marked taken anyway; its amount defaults to the night's last dose's.
        case takenAnyway(amountMilligrams: Int?)
    }

    /// What to do.
    public var kind: Kind
    /// When it happened, if earlier than now (a forgotten log); the rules are judged at that time.
    public var occurredAt: Date?
    /// The person's note (at most 500 characters).
    public var note: String?
    /// The situations the person confirmed.
    public var confirmations: Set<ConfirmKind>
    /// Who is asking.
    public var source: EventSource
    /// The surface the action came through, when known (the ledger sets it from where the request arrived).
    public var surface: AlarmSurface?
    /// Who acted for the person when it was not the person themself (a grantee with `log`, SPEC §5.6): their address,
    /// kept on each dose event the action records.
    public var actor: String?

    /// Whether it came through a surface a person uses half asleep: Tonight, a notification action, a button press or a
    /// `dosetap://` link. Those never record a Dose 1 within 8 hours of a dose (D17).
    public var isHalfAsleep: Bool {
        source == .button || source == .link || (surface.map { [.page, .push, .link, .button].contains($0) } ?? false)
    }

    /// An action.
    public init(
        _ kind: Kind, at occurredAt: Date? = nil, note: String? = nil, confirmations: Set<ConfirmKind> = [], source: EventSource = .user,
        surface: AlarmSurface? = nil
    ) {
        self.kind = kind
        self.surface = surface
        self.occurredAt = occurredAt
        self.note = note
        self.confirmations = confirmations
        self.source = source
    }
}

/// What the rules are judged against: the clock, the zone and settings, and a source of new ids.
public struct NightContext: Sendable {
    /// The current instant.
    public var now: Date
    /// The person's settings.
    public var settings: DoseSettings
    /// The zone in use now (the setting, or a one-call override).
    public var timeZone: TimeZone
    /// Sleep-event types, custom ones included.
    public var catalogue: SleepEventCatalogue
    /// Makes a fresh unique id (a UUID string in production, a counter in tests).
    public var makeID: @Sendable () -> String
    /// Oxybate doses of any night near the action's time (the store passes those within 8 hours of it), for D14.
    public var nearbyDoses: [RecordedDose]
    /// For a sleep event: when events of its type were logged in any night within its cooldown of the action's time
    /// (the store passes them), so a double tap across a check-in that closed the night is still one tap.
    public var nearbySameEvents: [Date] = []

    /// A context; the zone defaults to the settings' zone.
    public init(
        now: Date, settings: DoseSettings, timeZone: TimeZone? = nil,
        catalogue: SleepEventCatalogue = .standard, nearbyDoses: [RecordedDose] = [], makeID: @escaping @Sendable () -> String
    ) {
        self.nearbyDoses = nearbyDoses
        self.now = now
        self.settings = settings
        self.timeZone = timeZone ?? settings.timeZone
        self.catalogue = catalogue
        self.makeID = makeID
    }
}

/// How a session was closed.
public struct SessionClosure: Sendable, Hashable {
    /// When it closed.
    public var endedAt: Date
    /// Why.
    public var reason: EndReason
    /// The night's dose outcome.
    public var terminalState: TerminalState

    /// A closure.
    public init(endedAt: Date, reason: EndReason, terminalState: TerminalState) {
        self.endedAt = endedAt
        self.reason = reason
        self.terminalState = terminalState
    }
}

/// The result of an allowed action: what to record, remove and close, all in one transaction.
public struct Decision: Sendable {
    /// The session as it stands after the action.
    public var session: NightSession
    /// True when the action started this session.
    public var startedSession: Bool
    /// Events to insert.
    public var recorded: [NightEvent]
    /// Events to delete (undo; a sleep-through expiry superseded by a real Dose 2).
    public var removed: [NightEvent]
    /// Set when the action closes the session (check-in).
    public var closure: SessionClosure?
    /// The validated check-in, for a check-in action.
    public var checkIn: MorningCheckIn?
    /// Things the person must be told (an extra dose, a wake-up with Dose 2 pending).
    public var warnings: [String]

    /// The main event the action recorded (nil for undo).
    public var event: NightEvent? { recorded.last }
}

/// Limits on free text (SPEC §3.1).
///
/// Text is measured in Unicode code points, the unit SQLite's `length()` counts, so a limit means the same in Swift
/// and in the schema's CHECK constraints. (Swift's `count` counts grapheme clusters: "e\u{301}" is one of those but
/// two code points, and a family emoji is one but seven.)
public enum TextLimits {
    /// Notes.
    public static let note = 500
    /// Other free text (skip reasons, check-in text fields).
    public static let otherText = 1000

    /// The length of a text in the unit every limit uses: Unicode code points.
    public static func length(_ text: some StringProtocol) -> Int { text.unicodeScalars.count }

    /// Trims the text and refuses it when too long or holding control characters; empty becomes nil.
    public static func validated(_ text: String?, field: String, limit: Int) throws(DoseError) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let length = Self.length(trimmed)
        guard length <= limit else {
            throw .invalidInput(
                field: field, problem: "it is \(length) characters long (counted as Unicode code points: an accent or an emoji can count as several)",
                allowed: "at most \(limit) characters")
        }
        let forbidden = trimmed.unicodeScalars.contains {
            $0.properties.generalCategory == .control && !["\n", "\r", "\t"].contains($0)
        }
        guard !forbidden else {
            throw .invalidInput(field: field, problem: "it contains control characters", allowed: "printable text, tabs and new lines")
        }
        return trimmed
    }

    /// The longest prefix of whole characters that fits the limit, for imports that keep what they can of a long text.
    public static func truncated(_ text: String, limit: Int) -> String {
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].unicodeScalars.count
            guard kept + size <= limit else { break }
            kept += size
            end = text.index(after: index)
        }
        return String(text[..<end])
    }
}

/// Numbers written for people and files without ever trapping: whole values without a fraction, others as Swift
/// prints them. (`String(Int(value))` traps for values beyond Int's range, which outside input can reach.)
public enum NumberText {
    /// A number as a person types it: decimal digits and a point (a leading minus when `signed`), finite. `1e300`,
    /// `0x10`, `nan` and `inf` are not amounts anyone means.
    public static func plainDecimal(_ text: String, signed: Bool = false) -> Double? {
        let digits = signed && text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }), let value = Double(text), value.isFinite else {
            return nil
        }
        return value
    }

    /// `4500`, `2.5`, `1e+20`.
    public static func plain(_ value: Double) -> String {
        if let whole = Int(exactly: value) { return String(whole) }
        return String(value)
    }

    /// `value` rounded to a tenth: how a wearable's minutes and rates are shown and sent.
    public static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// `value` to a tenth as text, without a trailing `.0` (`420`, `14.6`).
    public static func tenths(_ value: Double) -> String { plain(tenth(value)) }
}

/// An oxybate dose already recorded in some night: what it was and when it was taken.
public struct RecordedDose: Sendable, Hashable {
    /// `dose1`, `dose2` or `extra_dose`.
    public var kind: EventKind
    /// When it was taken.
    public var at: Date
    /// The night it belongs to, when the store knows it (so a refusal can link to that night).
    public var night: SessionID?

    /// A recorded dose.
    public init(kind: EventKind, at: Date, night: SessionID? = nil) {
        self.kind = kind
        self.at = at
        self.night = night
    }
}
