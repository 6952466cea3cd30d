public import Foundation

/// Id of a recorded event (a UUID string, supplied by the caller).
public struct EventID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The form a client may give its own event id in: 1–64 ASCII letters, digits, `-`, `_`, `.` or `:`, starting
    /// with a letter or digit (a UUID fits). No slash, space or markup, so an id is safe wherever it is shown or used.
    public static let clientForm = "1–64 letters, digits, '-', '_', '.' or ':', starting with a letter or digit, such as a UUID"

    /// A client-supplied id, if it has `clientForm`.
    public init?(clientSupplied text: String) {
        let allowed: (Unicode.Scalar) -> Bool = { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0)) }
        guard (1...64).contains(text.unicodeScalars.count), text.unicodeScalars.allSatisfy(allowed),
            let first = text.unicodeScalars.first, first.isASCII, CharacterSet.alphanumerics.contains(first)
        else { return nil }
        rawValue = text
    }
}

/// Id of a night (a UUID string, supplied by the caller).
public struct SessionID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// What an event records.
public enum EventKind: Hashable, Sendable {
    case dose1
    case dose2
    case extraDose
    case dose2Skipped
    case snooze
    case sleep(SleepEventType)
    case checkIn

    /// The wire name used in storage and the API (SPEC D6).
    public var wireName: String {
        switch self {
        case .dose1: "dose1"
        case .dose2: "dose2"
        case .extraDose: "extra_dose"
        case .dose2Skipped: "dose2_skipped"
        case .snooze: "snooze"
        case .sleep(let type): type.rawValue
        case .checkIn: "checkin"
        }
    }

    /// The kind of a stored wire name; every name that is not a dose or check-in is a sleep event.
    public init(wireName: String) {
        switch wireName {
        case "dose1": self = .dose1
        case "dose2": self = .dose2
        case "extra_dose": self = .extraDose
        case "dose2_skipped": self = .dose2Skipped
        case "snooze": self = .snooze
        case "checkin": self = .checkIn
        default: self = .sleep(SleepEventType(rawValue: wireName))
        }
    }

    /// Whether it is one of the dose events (stored in `dose_events`).
    public var isDoseEvent: Bool {
        switch self {
        case .dose1, .dose2, .extraDose, .dose2Skipped, .snooze: true
        case .sleep, .checkIn: false
        }
    }

    /// Whether it puts oxybate in the body: Dose 1, Dose 2 or an extra dose (D14 spaces these).
    public var isOxybateDose: Bool { self == .dose1 || self == .dose2 || self == .extraDose }

    /// Name for people.
    public var label: String {
        switch self {
        case .dose1: "Dose 1"
        case .dose2: "Dose 2"
        case .extraDose: "Extra dose"
        case .dose2Skipped: "Dose 2 skipped"
        case .snooze: "Snooze"
        case .sleep(let type): SleepEventCatalogue.standard.definition(of: type)?.label ?? type.rawValue
        case .checkIn: "Morning check-in"
        }
    }
}

/// Who or what recorded an event.
public enum EventSource: String, Sendable, Codable, CaseIterable {
    /// The person, through the CLI, web page or API.
    case user
    /// A hardware button (`dosetap press`).
    case button
    /// A `dosetap://` link.
    case link
    /// DoseTap itself (sleep-through expiry).
    case system
    /// An import.
    case imported

    /// Whether a person did it; only such events can be undone (D5).
    public var isPerson: Bool { self != .system && self != .imported }
}

/// Facts recorded with an event (`metadata` on the wire).
public struct EventMetadata: Hashable, Sendable, Codable {
    /// Dose 2 taken before the window opened (before the night's window opens).
    public var isEarly = false
    /// Dose 2 taken after the window closed (at or after the night's window closes).
    public var isLate = false
    /// 1 for Dose 1, 2 for Dose 2, 3+ for extra doses.
    public var doseIndex: Int?
    /// Why Dose 2 was skipped; `slept_through` for the automatic expiry.
    public var skipReason: String?
    /// The snooze count after this snooze.
    public var snoozeCount: Int?
    /// When the snoozed alarm rings again.
    public var snoozeUntil: Date?
    /// The confirmations the person gave.
    public var confirmations: [ConfirmKind] = []
    /// A dose's amount in mg, from the medication profile when it was taken; nil for doses recorded before the
    /// profile existed (the supply counts those at the profile's amount).
    public var amountMilligrams: Int?
    /// Who recorded it for the person, when not the person themself (SPEC §5.6).
    public var actedBy: String?
    /// On Dose 1: the regimen the night is taken under (D19). A Dose 1 without one was recorded before nights kept
    /// their regimen, all of them twice nightly.
    public var regimen: DoseRegimen?
    /// On an extra dose: recorded through the record-keeping commands as really taken, past what Tonight's take allows
    /// (D20), so the report flags it and the ladder is told.
    public var takenAnyway = false

    /// Empty metadata.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case isEarly = "is_early", isLate = "is_late", doseIndex = "dose_index", skipReason = "reason"
        case snoozeCount = "count", snoozeUntil = "snooze_until", confirmations = "confirmed"
        case amountMilligrams = "amount_mg", actedBy = "acted_by", regimen, takenAnyway = "taken_anyway"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isEarly = try container.decodeIfPresent(Bool.self, forKey: .isEarly) ?? false
        isLate = try container.decodeIfPresent(Bool.self, forKey: .isLate) ?? false
        doseIndex = try container.decodeIfPresent(Int.self, forKey: .doseIndex)
        skipReason = try container.decodeIfPresent(String.self, forKey: .skipReason)
        snoozeCount = try container.decodeIfPresent(Int.self, forKey: .snoozeCount)
        snoozeUntil = try container.decodeIfPresent(String.self, forKey: .snoozeUntil).flatMap(ISO8601.parse)
        confirmations = try container.decodeIfPresent([ConfirmKind].self, forKey: .confirmations) ?? []
        amountMilligrams = try container.decodeIfPresent(Int.self, forKey: .amountMilligrams)
        actedBy = try container.decodeIfPresent(String.self, forKey: .actedBy)
        regimen = try container.decodeIfPresent(DoseRegimen.self, forKey: .regimen)
        takenAnyway = try container.decodeIfPresent(Bool.self, forKey: .takenAnyway) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isEarly, forKey: .isEarly)
        try container.encode(isLate, forKey: .isLate)
        try container.encodeIfPresent(doseIndex, forKey: .doseIndex)
        try container.encodeIfPresent(skipReason, forKey: .skipReason)
        try container.encodeIfPresent(snoozeCount, forKey: .snoozeCount)
        try container.encodeIfPresent(snoozeUntil.map(ISO8601.string), forKey: .snoozeUntil)
        if !confirmations.isEmpty { try container.encode(confirmations, forKey: .confirmations) }
        try container.encodeIfPresent(amountMilligrams, forKey: .amountMilligrams)
        try container.encodeIfPresent(actedBy, forKey: .actedBy)
        try container.encodeIfPresent(regimen, forKey: .regimen)
        if takenAnyway { try container.encode(takenAnyway, forKey: .takenAnyway) }
    }
}

/// One thing that happened in a night. The stored events are the single source of truth (D13).
public struct NightEvent: Hashable, Sendable, Identifiable {
    /// Its id.
    public var id: EventID
    /// What happened.
    public var kind: EventKind
    /// When it happened.
    public var occurredAt: Date
    /// When DoseTap recorded it.
    public var recordedAt: Date
    /// The zone in use when it happened.
    public var timeZoneID: String
    /// UTC offset in minutes at `occurredAt` in that zone.
    public var utcOffsetMinutes: Int
    /// Who recorded it.
    public var source: EventSource
    /// The person's note.
    public var note: String?
    /// Dose flags, skip reason, snooze count.
    public var metadata: EventMetadata

    /// An event; the offset is derived from the zone at the instant.
    public init(
        id: EventID, kind: EventKind, occurredAt: Date, recordedAt: Date, timeZone: TimeZone,
        source: EventSource = .user, note: String? = nil, metadata: EventMetadata = EventMetadata()
    ) {
        self.init(
            id: id, kind: kind, occurredAt: occurredAt, recordedAt: recordedAt, timeZoneID: timeZone.identifier,
            utcOffsetMinutes: LocalClock.offsetMinutes(timeZone, at: occurredAt), source: source, note: note, metadata: metadata)
    }

    /// An event as stored: zone id and offset as they were recorded, whatever the zone rules say today.
    public init(
        id: EventID, kind: EventKind, occurredAt: Date, recordedAt: Date, timeZoneID: String, utcOffsetMinutes: Int,
        source: EventSource, note: String?, metadata: EventMetadata = EventMetadata()
    ) {
        self.id = id
        self.kind = kind
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.timeZoneID = timeZoneID
        self.utcOffsetMinutes = utcOffsetMinutes
        self.source = source
        self.note = note
        self.metadata = metadata
    }
}

/// Why a night was closed (D12).
public enum EndReason: String, Sendable, Codable, CaseIterable {
    case checkin
    case missedCheckinCutoff = "missed_checkin_cutoff"
    case prepRollover = "prep_rollover"
}

/// A closed night's dose outcome (D12).
public enum TerminalState: String, Sendable, Codable, CaseIterable {
    /// Dose 2 taken.
    case completed
    /// Dose 2 skipped by the person.
    case skipped
    /// Slept through the window.
    case expired
    /// Closed while Dose 2 was still possible, or with no dose at all.
    case aborted
}

/// One night: its identity and its events, oldest first, and the facts read off them (kept as events are added).
public struct NightSession: Hashable, Sendable {
    /// Its id.
    public var id: SessionID
    /// The session key (`yyyy-MM-dd`) fixed when it started.
    public var date: SessionKey
    /// The occurrence time of its first action.
    public var startedAt: Date
    /// The facts of its events, which hold the events themselves in order.
    public private(set) var facts: NightFacts
    /// When it closed, if it has.
    public var endedAt: Date?
    /// Why it closed.
    public var endReason: EndReason?

    /// Its events, oldest first. Setting them reads the facts again.
    public var events: [NightEvent] {
        get { facts.events }
        set { facts = NightFacts(newValue) }
    }

    /// A session; events are kept sorted by occurrence.
    public init(id: SessionID, date: SessionKey, startedAt: Date, events: [NightEvent] = [], endedAt: Date? = nil, endReason: EndReason? = nil) {
        self.id = id
        self.date = date
        self.startedAt = startedAt
        self.facts = NightFacts(events)
        self.endedAt = endedAt
        self.endReason = endReason
    }

    /// Whether it is still open.
    public var isOpen: Bool { endedAt == nil }

    /// The session with an event added in chronological place: folded into the facts when it is the newest, as it
    /// usually is, so a long night is not read again.
    public func adding(_ event: NightEvent) -> NightSession {
        var copy = self
        copy.facts.fold(event)
        return copy
    }

    /// The session without the event of that id.
    public func removing(_ id: EventID) -> NightSession {
        var copy = self
        copy.events = events.filter { $0.id != id }
        return copy
    }

    public static func == (a: NightSession, b: NightSession) -> Bool {
        a.id == b.id && a.date == b.date && a.startedAt == b.startedAt && a.events == b.events && a.endedAt == b.endedAt
            && a.endReason == b.endReason
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(date)
        hasher.combine(startedAt)
        hasher.combine(events)
        hasher.combine(endedAt)
        hasher.combine(endReason)
    }

    /// Oldest first; ties by recording time, then id, so the order is total.
    public static func chronological(_ a: NightEvent, _ b: NightEvent) -> Bool {
        if a.occurredAt != b.occurredAt { return a.occurredAt < b.occurredAt }
        if a.recordedAt != b.recordedAt { return a.recordedAt < b.recordedAt }
        return a.id.rawValue < b.id.rawValue
    }
}

extension NightEvent {
    /// Its name for people (D18): the sleep-through expiry is "Slept through", never worded as a skip or a dose, and a
    /// Dose 2 outside the window says so.
    public var label: String {
        if kind == .dose2Skipped, NightFacts.isSleepThrough(self) { return "Slept through (window ran out)" }
        if kind == .dose2, metadata.isEarly { return "Dose 2 — early (before the window)" }
        if kind == .dose2, metadata.isLate { return "Dose 2 — late (after the window)" }
        return kind.label
    }
}
