public import DoseCore
public import DoseStore
import Foundation

/// The JSON objects every surface shares (SPEC §5.1, §4): status, events, errors, nights.
public enum Wire {
    static func time(_ date: Date?) -> JSONValue { .text(date.map(ISO8601.string)) }

    /// The `status` object.
    public static func status(_ status: NightStatus) -> JSONValue {
        JSONValue(response: StatusResponse(status))
    }

    /// A planned reminder.
    public static func reminder(_ reminder: Reminder) -> JSONValue {
        JSONValue(response: ReminderResponse(reminder))
    }

    /// One recorded event.
    public static func event(_ event: NightEvent, session: NightSession) -> JSONValue {
        JSONValue(response: EventResponse(event, session: session))
    }

    /// The answer to an action: the recorded event at top level, the new status under `status`.
    public static func action(_ outcome: ActionOutcome) -> JSONValue {
        let decision = outcome.decision
        var body: JSONValue = decision.event.map { event(_: $0, session: decision.session) } ?? [:]
        if decision.event == nil, let undone = decision.removed.first {
            body["undone"] = event(undone, session: decision.session)
        }
        if let recorded = decision.event, recorded.kind == .snooze {
            body["snooze_until"] = time(recorded.metadata.snoozeUntil)
            body["snoozes_used"] = .int(recorded.metadata.snoozeCount ?? 0)
            body["snoozes_remaining"] = .int(max(0, outcome.settings.maxSnoozes - (recorded.metadata.snoozeCount ?? 0)))
        }
        if let checkIn = decision.checkIn {
            body["wellness_score"] = .int(checkIn.wellnessScore)
            body["checkin"] = Wire.checkIn(checkIn)
        }
        if let closure = decision.closure {
            body["session_closed"] = [
                "ended_at": time(closure.endedAt), "end_reason": .string(closure.reason.rawValue),
                "terminal_state": .string(closure.terminalState.rawValue),
            ]
        }
        body["warnings"] = .strings(decision.warnings)
        body["status"] = status(outcome.status)
        return body
    }

    /// The check-in's answers, by their stored names, with the derived flag and score.
    public static func checkIn(_ checkIn: MorningCheckIn) -> JSONValue {
        var body = JSONValue.encoding(checkIn)
        body["has_narcolepsy_symptoms"] = .bool(checkIn.hasNarcolepsySymptoms)
        body["wellness_score"] = .int(checkIn.wellnessScore)
        return body
    }

    /// `{"error": {code, message, confirm?, retry_after?, details?}}` (SPEC §4).
    public static func error(_ error: DoseError) -> JSONValue {
        JSONValue(response: ErrorResponse(error))
    }

    /// One night of history.
    public static func night(_ record: NightRecord) -> JSONValue {
        JSONValue(response: NightResponse(record))
    }

    /// A page of history.
    public static func history(_ page: HistoryPage) -> JSONValue {
        JSONValue(response: HistoryResponse(page))
    }

    /// Settings as an object of text values.
    public static func settings(_ settings: DoseSettings) -> JSONValue {
        .object(Dictionary(settings.listing().map { ($0.key, JSONValue.string($0.value)) }, uniquingKeysWith: { $1 }))
    }
}
