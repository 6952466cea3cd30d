public import DoseCore
public import DoseStore
import Foundation

// The response bodies of the API and the CLI's `--json` (SPEC §5.1, §4), one type each, described by the
// OpenAPI document's schemas of the same shape. Encoded by `JSONValue(response:)`: an absent optional is `null`.

/// The `status` object: tonight as every surface shows it.
public struct StatusResponse: Encodable, Sendable {
    var sessionID, sessionDate: String?
    var phase: String
    var outcome: String?
    var dose1At, dose2At: Date?
    var dose2Skipped: Bool
    var skippedAt: Date?
    var sleptThrough: Bool
    var outcomeText, skipReason: String?
    var extraDoseCount, snoozeCount, snoozesRemaining: Int
    var snoozeUntil: Date?
    var canSnooze: Bool
    var snoozeBlockedReason: String?
    var canSkip: Bool
    var skipBlockedReason: String?
    var primaryAction: String
    var windowOpensAt, nearCloseAt, windowClosesAt, targetAt, expiresAt: Date?
    var minutesSinceDose1, minutesRemaining, minutesUntilOpen: Int?
    var nextReminder: ReminderResponse?
    var dose2Periods: [PeriodResponse]
    var wakeAt, wakeAsksUntil: Date?
    var checkedIn: Bool
    var dose2Undecided: Bool
    var dose2Timing: String?
    var newDose1From: Date?
    var blockingNight: BlockingNight?
    var warnings: [String]
    var asOf: Date
    var timeZone: String
    var regimen: RegimenResponse

    /// The night whose dose holds a new Dose 1 back (D17).
    struct BlockingNight: Encodable, Sendable {
        var sessionID: String?
        var doses: [Dose]

        struct Dose: Encodable, Sendable {
            var type: String
            var at: Date
            var sessionID: String?
            enum CodingKeys: String, CodingKey { case type, at, sessionID = "session_id" }
        }

        enum CodingKeys: String, CodingKey { case sessionID = "session_id", doses }
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", sessionDate = "session_date", phase, outcome, dose1At = "dose1_at", dose2At = "dose2_at"
        case dose2Skipped = "dose2_skipped", skippedAt = "skipped_at", sleptThrough = "slept_through", outcomeText = "outcome_text"
        case skipReason = "skip_reason", extraDoseCount = "extra_dose_count", snoozeCount = "snooze_count"
        case snoozesRemaining = "snoozes_remaining", snoozeUntil = "snooze_until", canSnooze = "can_snooze"
        case snoozeBlockedReason = "snooze_blocked_reason", canSkip = "can_skip", skipBlockedReason = "skip_blocked_reason"
        case primaryAction = "primary_action", windowOpensAt = "window_opens_at", nearCloseAt = "near_close_at"
        case windowClosesAt = "window_closes_at", targetAt = "target_at", expiresAt = "expires_at"
        case minutesSinceDose1 = "minutes_since_dose1", minutesRemaining = "minutes_remaining", minutesUntilOpen = "minutes_until_open"
        case nextReminder = "next_reminder", dose2Periods = "dose2_periods", wakeAt = "wake_at", wakeAsksUntil = "wake_asks_until"
        case checkedIn = "checked_in"
        case dose2Undecided = "dose2_undecided", dose2Timing = "dose2_timing", newDose1From = "new_dose1_from", blockingNight = "blocking_night"
        case warnings, asOf = "as_of", timeZone = "time_zone", regimen
    }

    /// The response for a derived status.
    public init(_ status: NightStatus) {
        (sessionID, sessionDate, phase, outcome) = (
            status.sessionID?.rawValue, status.sessionDate?.description, status.phase.rawValue, status.outcome?.rawValue
        )
        (dose1At, dose2At, dose2Skipped, skippedAt) = (status.dose1At, status.dose2At, status.dose2Skipped, status.skippedAt)
        (sleptThrough, skipReason, extraDoseCount) = (status.sleptThrough, status.skipReason, status.extraDoseCount)
        outcomeText = status.outcomeSentence(in: TimeZone(identifier: status.timeZoneID) ?? .gmt)
        (snoozeCount, snoozesRemaining, snoozeUntil) = (status.snoozeCount, status.snoozesRemaining, status.snoozeUntil)
        (canSnooze, snoozeBlockedReason, canSkip, skipBlockedReason) = (
            status.canSnooze, status.snoozeBlockedReason, status.canSkip, status.skipBlockedReason
        )
        primaryAction = status.primaryAction.rawValue
        (windowOpensAt, nearCloseAt, windowClosesAt) = (status.windowOpensAt, status.nearCloseAt, status.windowClosesAt)
        (targetAt, expiresAt, nextReminder) = (status.targetAt, status.expiresAt, status.nextReminder.map(ReminderResponse.init))
        dose2Periods = status.dose2Periods.map(PeriodResponse.init)
        (minutesSinceDose1, minutesRemaining, minutesUntilOpen) = (status.minutesSinceDose1, status.minutesRemaining, status.minutesUntilOpen)
        (wakeAt, wakeAsksUntil, checkedIn) = (status.wakeAt, status.wakeAsksUntil, status.checkedIn)
        (warnings, asOf, timeZone, regimen) = (status.warnings, status.asOf, status.timeZoneID, RegimenResponse(status.regimen))
        (dose2Undecided, newDose1From, dose2Timing) = (status.dose2Undecided, status.newDose1From, status.dose2Timing?.rawValue)
        blockingNight = status.blockingDose.map { blocking in
            BlockingNight(
                sessionID: blocking.night?.rawValue,
                doses: status.blockingNightDoses.map { BlockingNight.Dose(type: $0.kind.wireName, at: $0.at, sessionID: $0.night?.rawValue) })
        }
    }
}

/// A regimen as the API shows it: once or twice nightly, the product, each dose's amount, the target and the window
/// (D19), and the same in words.
public struct RegimenResponse: Encodable, Sendable {
    var kind, product, summary: String
    var dosesMg: [Int]
    var targetMinutes: Int?
    var window: Window?
    /// The first night of the titration step whose amounts these are; absent at the profile's amounts.
    var titrationStep: String?

    /// The window's edges in minutes after Dose 1.
    struct Window: Encodable, Sendable {
        var opens, nearClose, closes, expires: Int
        enum CodingKeys: String, CodingKey {
            case opens = "opens_after_minutes", nearClose = "near_close_after_minutes", closes = "closes_after_minutes"
            case expires = "expires_after_minutes"
        }
    }

    enum CodingKeys: String, CodingKey {
        case kind, product, summary, dosesMg = "doses_mg", targetMinutes = "target_minutes", window, titrationStep = "titration_step"
    }

    /// The response for a regimen.
    public init(_ regimen: DoseRegimen) {
        (kind, product, summary) = (regimen.kind.rawValue, regimen.product, RegimenWords.summary(regimen))
        (dosesMg, targetMinutes, titrationStep) = (regimen.dosesMilligrams, regimen.targetMinutes, regimen.titrationStep?.description)
        window = regimen.window.map {
            Window(
                opens: $0.opensAfterMinutes, nearClose: $0.nearCloseAfterMinutes, closes: $0.closesAfterMinutes, expires: $0.sleepThroughExpiryMinutes
            )
        }
    }
}

/// A stretch of the night with Dose 2 to take, and the confirmations a Dose 2 in it needs: what an offline device
/// compares its clock with (`from` inclusive, `until` exclusive; the last has none).
public struct PeriodResponse: Encodable, Sendable {
    var kind: String
    var from: Date
    var until: Date?
    var confirm: [String]

    /// The response for a period.
    public init(_ period: Dose2Period) {
        (kind, from, until, confirm) = (period.kind.rawValue, period.from, period.until, period.confirmations.map(\.rawValue))
    }
}

/// A planned reminder.
public struct ReminderResponse: Encodable, Sendable {
    var kind: String
    var fireAt: Date
    var message: String
    var rings: Bool
    var audience: String

    enum CodingKeys: String, CodingKey {
        case kind, fireAt = "fire_at", message, rings, audience
    }

    /// The response for a reminder of the plan.
    public init(_ reminder: Reminder) {
        kind = reminder.kind.rawValue
        fireAt = reminder.fireAt
        message = reminder.kind.message
        rings = reminder.kind.rings
        audience = reminder.kind.audience.rawValue
    }
}

/// One recorded event.
public struct EventResponse: Encodable, Sendable {
    var id, type, label: String
    var occurredAt, recordedAt: Date
    var sessionID, sessionDate, source: String
    var note: String?
    var timeZone: String
    var utcOffsetMinutes: Int
    var metadata: Metadata

    enum CodingKeys: String, CodingKey {
        case id, type, label, occurredAt = "occurred_at", recordedAt = "recorded_at", sessionID = "session_id"
        case sessionDate = "session_date", source, note, timeZone = "time_zone", utcOffsetMinutes = "utc_offset_minutes", metadata
    }

    /// What the rules recorded about a dose event; a key a kind of event does not have is left out.
    struct Metadata: OmitsAbsentKeys, Sendable {
        var isEarly, isLate: Bool
        var doseIndex: Int?
        var reason: String?
        var count: Int?
        var snoozeUntil: Date?
        var confirmed: [String]?
        var amountMilligrams: Int?
        /// Who recorded it for the person (a grantee with `log`), when not the person themself.
        var actedBy: String?

        enum CodingKeys: String, CodingKey {
            case isEarly = "is_early", isLate = "is_late", doseIndex = "dose_index", reason, count, snoozeUntil = "snooze_until", confirmed
            case amountMilligrams = "amount_mg", actedBy = "acted_by"
        }
    }

    /// The response for an event of a night.
    public init(_ event: NightEvent, session: NightSession) {
        id = event.id.rawValue
        type = event.kind.wireName
        label = event.kind.label
        occurredAt = event.occurredAt
        recordedAt = event.recordedAt
        sessionID = session.id.rawValue
        sessionDate = session.date.description
        source = event.source.rawValue
        note = event.note
        timeZone = event.timeZoneID
        utcOffsetMinutes = event.utcOffsetMinutes
        metadata = Metadata(
            isEarly: event.metadata.isEarly, isLate: event.metadata.isLate, doseIndex: event.metadata.doseIndex, reason: event.metadata.skipReason,
            count: event.metadata.snoozeCount, snoozeUntil: event.metadata.snoozeUntil,
            confirmed: event.metadata.confirmations.isEmpty ? nil : event.metadata.confirmations.map(\.rawValue),
            amountMilligrams: event.metadata.amountMilligrams, actedBy: event.metadata.actedBy)
    }
}

/// `{"error": {code, message, confirm?, retry_after?, details?}}` (SPEC §4).
public struct ErrorResponse: Encodable, Sendable {
    var error: Body

    struct Body: OmitsAbsentKeys, Sendable {
        var code, message: String
        var confirm: String?
        var retryAfter: Int?
        var details: [String: String]?

        enum CodingKeys: String, CodingKey {
            case code, message, confirm, retryAfter = "retry_after", details
        }
    }

    /// The response for a refusal.
    public init(_ error: DoseError) {
        self.error = Body(
            code: error.code.wire, message: error.message(confirmation: { "confirm '\($0.rawValue)'" }, takenAnyway: "`POST /v1/events/took-anyway`"),
            confirm: error.confirm?.rawValue, retryAfter: error.retryAfterSeconds,
            details: error.details.isEmpty ? nil : error.details)
    }
}

/// One night of history.
public struct NightResponse: Encodable, Sendable {
    var sessionID, sessionDate: String
    var startedAt: Date
    var endedAt: Date?
    var endReason, terminalState: String?
    var dose1At, dose2At: Date?
    var dose2Skipped: Bool
    var intervalMinutes: Int?
    var snoozeCount, extraDoseCount: Int
    var events: [EventResponse]
    var naps: [Nap]
    var checkin: CheckInResponse?
    var presleep: JSONValue?
    var medications: [Medication]
    var sleep: SleepResponse?
    /// The regimen the night's Dose 1 was taken under; nil without Dose 1 (D19).
    var regimen: RegimenResponse?
    /// How Dose 2 went (D18), judged by the night's own regimen and target, whatever the settings say now.
    var dose2Timing: String?

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", sessionDate = "session_date", startedAt = "started_at", endedAt = "ended_at", endReason = "end_reason"
        case terminalState = "terminal_state", dose1At = "dose1_at", dose2At = "dose2_at", dose2Skipped = "dose2_skipped"
        case intervalMinutes = "interval_minutes", snoozeCount = "snooze_count", extraDoseCount = "extra_dose_count", events, naps, checkin
        case presleep, medications, sleep, regimen, dose2Timing = "dose2_timing"
    }

    struct Nap: Encodable, Sendable {
        var start: Date
        var end: Date?
    }

    struct Medication: Encodable, Sendable {
        var id, medicationID, doseMg: String
        var takenAt: Date
        var notes: String?

        enum CodingKeys: String, CodingKey {
            case id, medicationID = "medication_id", doseMg = "dose_mg", takenAt = "taken_at", notes
        }
    }

    /// The response for a night of the record.
    public init(_ record: NightRecord) {
        let session = record.session
        let facts = session.facts
        sessionID = session.id.rawValue
        sessionDate = session.date.description
        startedAt = session.startedAt
        endedAt = session.endedAt
        endReason = session.endReason?.rawValue
        terminalState = record.terminalState?.rawValue
        dose1At = facts.dose1?.occurredAt
        dose2At = facts.dose2?.occurredAt
        dose2Skipped = facts.skip != nil
        intervalMinutes = record.intervalMinutes
        snoozeCount = facts.snoozes.count
        extraDoseCount = facts.extraDoses.count
        events = record.shownEvents.map { EventResponse($0, session: session) }
        naps = record.naps.map { Nap(start: $0.start, end: $0.end) }
        checkin = record.checkIn.map(CheckInResponse.init)
        presleep = record.preSleep.map { log in
            var body = JSONValue.encoding(log)
            body["completion_state"] = .string(log.completion.rawValue)
            return body
        }
        medications = record.medications.map {
            Medication(id: $0.id, medicationID: $0.medicationID, doseMg: $0.doseMg, takenAt: $0.takenAt, notes: $0.note)
        }
        sleep = record.sleep.map { SleepResponse($0, vitals: !$0.heartRate.isEmpty || $0.meanHRV != nil) }
        regimen = facts.regimen.map(RegimenResponse.init)
        // A night from before nights kept their target is judged against the default one.
        dose2Timing = DoseTiming.of(facts, targetMinutes: DoseSettings(timeZoneID: "UTC").targetIntervalMinutes, closed: !session.isOpen)?.rawValue
    }
}

/// A night's wearable sleep, minutes as numbers (to a tenth).
public struct SleepResponse: Encodable, Sendable {
    var periodStart, periodEnd: Date
    var sleepOnset, finalWake: Date?
    var minutesAsleep, wasoMinutes: Double
    var wakeCount: Int?
    var stageMinutes: [String: Double]
    var stageAtDose2: String?
    var minutesFromDeepToDose2: Double?
    var sources: [String]
    var hasTimeline: Bool
    var recovery: Recovery?
    var vitals: Vitals?

    /// A band's morning readings (WHOOP's recovery).
    struct Recovery: Encodable, Sendable {
        var recoveryPercent, sleepPerformancePercent, sleepEfficiencyPercent, restingHeartRate, hrvMs, respiratoryRate, oxygenSaturationPercent,
            skinTempCelsius: Double?

        enum CodingKeys: String, CodingKey {
            case recoveryPercent = "recovery_percent", sleepPerformancePercent = "sleep_performance_percent"
            case sleepEfficiencyPercent = "sleep_efficiency_percent", restingHeartRate = "resting_heart_rate", hrvMs = "hrv_ms"
            case respiratoryRate = "respiratory_rate", oxygenSaturationPercent = "oxygen_saturation_percent", skinTempCelsius = "skin_temp_celsius"
        }
    }

    /// Means over the sleep of the vitals measured during it (a night's own answer only).
    struct Vitals: Encodable, Sendable {
        var heartRateSamples: Int
        var meanHeartRate, meanHRVSDNNMs, meanRespiratoryRate, meanOxygenSaturationPercent: Double?

        enum CodingKeys: String, CodingKey {
            case heartRateSamples = "heart_rate_samples", meanHeartRate = "mean_heart_rate", meanHRVSDNNMs = "mean_hrv_sdnn_ms"
            case meanRespiratoryRate = "mean_respiratory_rate", meanOxygenSaturationPercent = "mean_oxygen_saturation_percent"
        }
    }

    enum CodingKeys: String, CodingKey {
        case periodStart = "period_start", periodEnd = "period_end", sleepOnset = "sleep_onset", finalWake = "final_wake"
        case minutesAsleep = "minutes_asleep", wasoMinutes = "waso_minutes", wakeCount = "wake_count", stageMinutes = "stage_minutes"
        case stageAtDose2 = "stage_at_dose2", minutesFromDeepToDose2 = "minutes_from_deep_to_dose2", sources, hasTimeline = "has_timeline"
        case recovery, vitals
    }

    /// The response for a night's sleep; `vitals` adds the means of what was measured during it.
    public init(_ sleep: NightSleep, vitals includeVitals: Bool = false) {
        let figures = sleep.figures
        (periodStart, periodEnd, sleepOnset, finalWake) = (figures.periodStart, figures.periodEnd, figures.sleepOnset, figures.finalWake)
        (minutesAsleep, wasoMinutes, wakeCount) = (NumberText.tenth(figures.minutesAsleep), NumberText.tenth(figures.wasoMinutes), figures.wakeCount)
        stageMinutes = Dictionary(uniqueKeysWithValues: figures.stageMinutes.map { ($0.key.rawValue, NumberText.tenth($0.value)) })
        stageAtDose2 = figures.stageAtDose2?.rawValue
        minutesFromDeepToDose2 = figures.minutesFromDeepToDose2.map(NumberText.tenth)
        sources = figures.sources
        hasTimeline = figures.hasTimeline
        recovery = figures.recovery.map { r in
            Recovery(
                recoveryPercent: r.recoveryPercent, sleepPerformancePercent: r.sleepPerformancePercent,
                sleepEfficiencyPercent: r.sleepEfficiencyPercent,
                restingHeartRate: r.restingHeartRate, hrvMs: r.hrvMilliseconds, respiratoryRate: r.respiratoryRate,
                oxygenSaturationPercent: r.oxygenSaturationPercent, skinTempCelsius: r.skinTemperatureCelsius)
        }
        if includeVitals {
            let rates = sleep.heartRate.map(\.beatsPerMinute)
            vitals = Vitals(
                heartRateSamples: rates.count, meanHeartRate: rates.isEmpty ? nil : NumberText.tenth(rates.reduce(0, +) / Double(rates.count)),
                meanHRVSDNNMs: sleep.meanHRV.map(NumberText.tenth), meanRespiratoryRate: sleep.meanRespiratoryRate.map(NumberText.tenth),
                meanOxygenSaturationPercent: sleep.meanOxygenSaturation.map { NumberText.tenth($0 * 100) })
        }
    }
}

/// A page of history.
public struct HistoryResponse: Encodable, Sendable {
    var page, pageCount, totalNights: Int
    var groups: [Group]

    enum CodingKeys: String, CodingKey {
        case page, pageCount = "page_count", totalNights = "total_nights", groups
    }

    struct Group: Encodable, Sendable {
        var label: String
        var nights: [NightResponse]
    }

    /// The response for a page of history.
    public init(_ page: HistoryPage) {
        self.page = page.page
        pageCount = page.pageCount
        totalNights = page.totalNights
        groups = page.groups.map { Group(label: $0.label, nights: $0.nights.map(NightResponse.init)) }
    }
}
