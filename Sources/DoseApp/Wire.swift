public import DoseCore
public import DoseStore
import Foundation

/// The JSON objects every surface shares (SPEC §5.1, §4): status, events, errors, nights.
public enum Wire {
    static func time(_ date: Date?) -> JSONValue { .text(date.map(ISO8601.string)) }

    /// The `status` object.
    public static func status(_ status: NightStatus) -> JSONValue {
        [
            "session_id": .text(status.sessionID?.rawValue), "session_date": .text(status.sessionDate?.description),
            "phase": .string(status.phase.rawValue), "outcome": .text(status.outcome?.rawValue),
            "dose1_at": time(status.dose1At), "dose2_at": time(status.dose2At), "dose2_skipped": .bool(status.dose2Skipped),
            "skipped_at": time(status.skippedAt), "slept_through": .bool(status.sleptThrough),
            "outcome_text": .text(status.outcomeSentence(in: TimeZone(identifier: status.timeZoneID) ?? .gmt)),
            "skip_reason": .text(status.skipReason), "extra_dose_count": .int(status.extraDoseCount),
            "snooze_count": .int(status.snoozeCount), "snoozes_remaining": .int(status.snoozesRemaining),
            "snooze_until": time(status.snoozeUntil), "can_snooze": .bool(status.canSnooze),
            "snooze_blocked_reason": .text(status.snoozeBlockedReason), "can_skip": .bool(status.canSkip),
            "skip_blocked_reason": .text(status.skipBlockedReason), "primary_action": .string(status.primaryAction.rawValue),
            "window_opens_at": time(status.windowOpensAt), "near_close_at": time(status.nearCloseAt),
            "window_closes_at": time(status.windowClosesAt), "target_at": time(status.targetAt), "expires_at": time(status.expiresAt),
            "minutes_since_dose1": .number(status.minutesSinceDose1), "minutes_remaining": .number(status.minutesRemaining),
            "minutes_until_open": .number(status.minutesUntilOpen),
            "next_reminder": status.nextReminder.map(reminder) ?? .null,
            "wake_at": time(status.wakeAt), "wake_asks_until": time(status.wakeAsksUntil), "checked_in": .bool(status.checkedIn),
            "warnings": .strings(status.warnings),
            "as_of": time(status.asOf), "time_zone": .string(status.timeZoneID),
        ]
    }

    /// A planned reminder.
    public static func reminder(_ reminder: Reminder) -> JSONValue {
        [
            "kind": .string(reminder.kind.rawValue), "fire_at": time(reminder.fireAt), "message": .string(reminder.kind.message),
            "rings": .bool(reminder.kind.rings),
        ]
    }

    /// One recorded event.
    public static func event(_ event: NightEvent, session: NightSession) -> JSONValue {
        var metadata: JSONValue = ["is_early": .bool(event.metadata.isEarly), "is_late": .bool(event.metadata.isLate)]
        if let index = event.metadata.doseIndex { metadata["dose_index"] = .int(index) }
        if let reason = event.metadata.skipReason { metadata["reason"] = .string(reason) }
        if let count = event.metadata.snoozeCount { metadata["count"] = .int(count) }
        if let until = event.metadata.snoozeUntil { metadata["snooze_until"] = time(until) }
        if !event.metadata.confirmations.isEmpty { metadata["confirmed"] = .array(event.metadata.confirmations.map { .string($0.rawValue) }) }
        return [
            "id": .string(event.id.rawValue), "type": .string(event.kind.wireName), "label": .string(event.kind.label),
            "occurred_at": time(event.occurredAt), "recorded_at": time(event.recordedAt), "session_id": .string(session.id.rawValue),
            "session_date": .string(session.date.description), "source": .string(event.source.rawValue), "note": .text(event.note),
            "time_zone": .string(event.timeZoneID), "utc_offset_minutes": .int(event.utcOffsetMinutes), "metadata": metadata,
        ]
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
        var body: JSONValue = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        if let confirm = error.confirm { body["confirm"] = .string(confirm.rawValue) }
        if let retry = error.retryAfterSeconds { body["retry_after"] = .int(retry) }
        if !error.details.isEmpty { body["details"] = .object(error.details.mapValues(JSONValue.string)) }
        return ["error": body]
    }

    /// One night of history.
    public static func night(_ record: NightRecord) -> JSONValue {
        let session = record.session
        let facts = NightFacts(session.events)
        return [
            "session_id": .string(session.id.rawValue), "session_date": .string(session.date.description),
            "started_at": time(session.startedAt), "ended_at": time(session.endedAt), "end_reason": .text(session.endReason?.rawValue),
            "terminal_state": .text(record.terminalState?.rawValue), "dose1_at": time(facts.dose1?.occurredAt),
            "dose2_at": time(facts.dose2?.occurredAt), "dose2_skipped": .bool(facts.skip != nil),
            "interval_minutes": .number(record.intervalMinutes), "snooze_count": .int(facts.snoozes.count),
            "extra_dose_count": .int(facts.extraDoses.count),
            "events": .array(record.shownEvents.map { event($0, session: session) }),
            "naps": .array(record.naps.map { ["start": time($0.start), "end": time($0.end)] }),
            "checkin": record.checkIn.map(checkIn) ?? .null,
            "presleep": record.preSleep.map { log -> JSONValue in
                var body = JSONValue.encoding(log)
                body["completion_state"] = .string(log.completion.rawValue)
                return body
            } ?? .null,
            "medications": .array(
                record.medications.map { entry in
                    [
                        "id": .string(entry.id), "medication_id": .string(entry.medicationID), "dose_mg": .string(entry.doseMg),
                        "taken_at": time(entry.takenAt), "notes": .text(entry.note),
                    ]
                }),
        ]
    }

    /// A page of history.
    public static func history(_ page: HistoryPage) -> JSONValue {
        [
            "page": .int(page.page), "page_count": .int(page.pageCount), "total_nights": .int(page.totalNights),
            "groups": .array(page.groups.map { ["label": .string($0.label), "nights": .array($0.nights.map(night))] }),
        ]
    }

    /// Settings as an object of text values.
    public static func settings(_ settings: DoseSettings) -> JSONValue {
        .object(Dictionary(settings.listing().map { ($0.key, JSONValue.string($0.value)) }, uniquingKeysWith: { $1 }))
    }
}
