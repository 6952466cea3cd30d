public import DoseCore
import DoseStore
import Foundation

// The answers to night actions and to the record-keeping routes, shared by the API and the CLI's `--json`.

/// The answer to an action: the recorded event's fields at top level, what the action changed, and the new status.
public struct ActionResponse: Encodable, Sendable {
    var event: EventResponse?
    var occurredAt: Date?
    var undone: EventResponse?
    var snooze: Snooze?
    var checkIn: CheckInResponse?
    var closure: Closure?
    var warnings: [String]
    var status: StatusResponse
    /// SPEC §5.3's API additions: the event's instant as `timestamp`, and the window's open and close (null when none).
    var window: (opens: Date?, closes: Date?)?

    struct Snooze: Encodable, Sendable {
        var snoozeUntil: Date?
        var snoozesUsed, snoozesRemaining: Int

        enum CodingKeys: String, CodingKey {
            case snoozeUntil = "snooze_until", snoozesUsed = "snoozes_used", snoozesRemaining = "snoozes_remaining"
        }
    }

    struct Closure: Encodable, Sendable {
        var endedAt: Date
        var endReason, terminalState: String

        enum CodingKeys: String, CodingKey {
            case endedAt = "ended_at", endReason = "end_reason", terminalState = "terminal_state"
        }
    }

    enum CodingKeys: String, CodingKey {
        case undone, wellnessScore = "wellness_score", checkIn = "checkin", closure = "session_closed", warnings, status
        case timestamp, nextWindowOpens = "next_window_opens", nextWindowCloses = "next_window_closes"
    }

    /// The answer to an action as the CLI prints it; `withWindow()` adds the API's window fields.
    public init(_ outcome: ActionOutcome) {
        let decision = outcome.decision
        event = decision.event.map { EventResponse($0, session: decision.session) }
        occurredAt = decision.event?.occurredAt
        undone = decision.event == nil ? decision.removed.first.map { EventResponse($0, session: decision.session) } : nil
        if let recorded = decision.event, recorded.kind == .snooze {
            let used = recorded.metadata.snoozeCount ?? 0
            snooze = Snooze(
                snoozeUntil: recorded.metadata.snoozeUntil, snoozesUsed: used, snoozesRemaining: max(0, outcome.settings.maxSnoozes - used))
        }
        checkIn = decision.checkIn.map(CheckInResponse.init)
        closure = decision.closure.map { Closure(endedAt: $0.endedAt, endReason: $0.reason.rawValue, terminalState: $0.terminalState.rawValue) }
        warnings = decision.warnings
        status = StatusResponse(outcome.status)
    }

    /// The same answer with the API's `timestamp`, `next_window_opens` and `next_window_closes`.
    public func withWindow() -> ActionResponse {
        var response = self
        response.window = (status.windowOpensAt, status.windowClosesAt)
        return response
    }

    public func encode(to encoder: any Encoder) throws {
        try event?.encode(to: encoder)
        try snooze?.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let undone { try container.encode(undone, forKey: .undone) }
        if let checkIn {
            try container.encode(checkIn.checkIn.wellnessScore, forKey: .wellnessScore)
            try container.encode(checkIn, forKey: .checkIn)
        }
        if let closure { try container.encode(closure, forKey: .closure) }
        try container.encode(warnings, forKey: .warnings)
        try container.encode(status, forKey: .status)
        if let window {
            if let occurredAt { try container.encode(occurredAt, forKey: .timestamp) }
            try container.encodeIfPresent(window.opens, forKey: .nextWindowOpens)
            try container.encodeIfPresent(window.closes, forKey: .nextWindowCloses)
        }
    }
}

/// A replayed client event id: the event as first recorded, tonight's status, and `replayed: true`.
public struct ReplayedEventResponse: Encodable, Sendable {
    var event: EventResponse
    var status: StatusResponse

    enum CodingKeys: String, CodingKey { case status, replayed }

    /// The answer for an event already recorded under the client's id.
    public init(_ event: NightEvent, session: NightSession, status: NightStatus) {
        self.event = EventResponse(event, session: session)
        self.status = StatusResponse(status)
    }

    public func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(true, forKey: .replayed)
    }
}

/// A morning check-in: its answers under the check-in model's own keys (absent answers left out), with the derived
/// narcolepsy flag and wellness score.
public struct CheckInResponse: Encodable, Sendable {
    let checkIn: MorningCheckIn

    /// The response for a saved check-in.
    public init(_ checkIn: MorningCheckIn) { self.checkIn = checkIn }

    public func encode(to encoder: any Encoder) throws {
        var answers = JSONValue.encoding(checkIn)
        answers["has_narcolepsy_symptoms"] = .bool(checkIn.hasNarcolepsySymptoms)
        answers["wellness_score"] = .int(checkIn.wellnessScore)
        try answers.encode(to: encoder)
    }
}

/// A corrected or deleted event: the event before, after (null when deleted), and the doses whose flag changed.
public struct EventEditResponse: Encodable, Sendable {
    var before: EventResponse
    var after: EventResponse?
    var reflagged: [EventResponse]

    /// The response for a correction.
    public init(_ edit: EventEdit) {
        before = EventResponse(edit.before, session: edit.session)
        after = edit.after.map { EventResponse($0, session: edit.session) }
        reflagged = edit.reflagged.map { EventResponse($0, session: edit.session) }
    }
}
