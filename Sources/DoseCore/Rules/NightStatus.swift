public import Foundation

/// The one next step the person should take.
public enum PrimaryAction: String, Sendable, Codable {
    case takeDose1 = "take_dose1"
    case waitForWindow = "wait_for_window"
    case takeDose2 = "take_dose2"
    /// Dose 2 after the window closed: possible only with the `late` confirmation.
    case takeDose2Late = "take_dose2_late"
    /// No Dose 1 yet, but a dose of the last night was under 8 hours ago: a new Dose 1 must wait (D14, D17).
    case waitForNewNight = "wait_for_new_night"
    case checkIn = "check_in"
    /// Nothing to do now: after Dose 2 or a skip the next step is sleep, never Wake Up (D15).
    case none
}

/// Everything a surface shows about tonight, derived from the events at one instant (SPEC §5.1 `status`).
public struct NightStatus: Sendable, Hashable {
    public var sessionID: SessionID?
    public var sessionDate: SessionKey?
    public var phase: NightPhase
    public var outcome: NightOutcome?
    public var dose1At: Date?
    public var dose2At: Date?
    /// Who gave Dose 2 for the person (a grantee with `log`, by address or id), when it was not the person themself.
    public var dose2ActedBy: String?
    public var dose2Skipped: Bool
    /// When Dose 2 was skipped, or marked slept-through by the expiry.
    public var skippedAt: Date?
    /// The skip was DoseTap's sleep-through expiry, not the person's choice.
    public var sleptThrough: Bool
    public var skipReason: String?
    public var extraDoseCount: Int
    public var snoozeCount: Int
    public var snoozesRemaining: Int
    public var snoozeUntil: Date?
    public var canSnooze: Bool
    /// Why snoozing is not possible, when it is not.
    public var snoozeBlockedReason: String?
    public var canSkip: Bool
    /// Why skipping is not possible, when it is not.
    public var skipBlockedReason: String?
    public var primaryAction: PrimaryAction
    public var windowOpensAt: Date?
    public var nearCloseAt: Date?
    public var windowClosesAt: Date?
    public var targetAt: Date?
    public var expiresAt: Date?
    /// Whole minutes since Dose 1, truncated.
    public var minutesSinceDose1: Int?
    /// Whole minutes until the window closes, truncated, 0 once closed; nil when Dose 2 is no longer pending.
    public var minutesRemaining: Int?
    /// Whole minutes until the window opens, rounded up, while before the window.
    public var minutesUntilOpen: Int?
    public var nextReminder: Reminder?
    public var wakeAt: Date?
    /// Until this instant (2 h after Dose 2 or a skip) interactive surfaces ask before logging wake-up (D15).
    public var wakeAsksUntil: Date?
    public var checkedIn: Bool
    /// How Dose 2 went, in the vocabulary of D18 (nil without Dose 1; `undecided` while it is).
    public var dose2Timing: DoseTiming?
    /// Dose 1 is taken, Dose 2 neither taken, skipped nor expired, and the night has not ended: a check-in or wake-up now
    /// ends it only with `end_night` (D16).
    public var dose2Undecided = false
    /// What the night holds when it went past its limits (D20), nil within them: Tonight says it with the words to get
    /// help, never to sleep well.
    public var pastNightlyMaximum: String?
    /// With no Dose 1 tonight: the last oxybate dose of another night less than 8 hours ago, which a new Dose 1 must wait
    /// for (D14), and every dose of its night, oldest first, so Tonight can show that night instead of "Take Dose 1" (D17).
    public var blockingDose: RecordedDose?
    public var blockingNightDoses: [RecordedDose] = []
    /// When a new Dose 1 becomes possible, while `blockingDose` holds it back.
    public var newDose1From: Date?
    public var warnings: [String]
    /// The instant the status describes.
    public var asOf: Date
    /// The zone the person's clock times are in.
    public var timeZoneID: String
    /// The regimen tonight follows: its Dose 1's once taken, until then the settings' (D19).
    public var regimen: DoseRegimen

    /// The status of `session` (nil: the night to come) at `instant`, in the zone in use now. `acknowledgedAt` are the
    /// night's explicit answers to its alarms ("I'm up"), which the next reminder depends on. `recentDoses` are the
    /// doses of other nights with one less than 8 hours before `instant` (the store passes them), for D14 and D17.
    public static func derive(
        session: NightSession?, at instant: Date, settings: DoseSettings, timeZone: TimeZone, acknowledgedAt: [Date] = [],
        recentDoses: [RecordedDose] = []
    ) -> NightStatus {
        let facts = session?.facts ?? NightFacts([])
        let phase = facts.phase(at: instant)
        let dose1 = facts.dose1?.occurredAt
        let snoozeRefusal = NightRules.snoozeRefusal(facts, at: instant, settings: settings)
        let skipRefusal = NightRules.skipRefusal(facts, timeZone: timeZone, settings: settings)
        let window = facts.window
        // The window's instants: only while a Dose 1 has opened one.
        let windowDose1 = window == nil ? nil : dose1
        let windowEdge = { (edge: (DoseWindow) -> (Date) -> Date) in windowDose1.flatMap { at in window.map { edge($0)(at) } } }
        let pending = facts.dose2Pending(at: instant) && facts.wake == nil && facts.checkIn == nil

        var status = NightStatus(
            sessionID: session?.id, sessionDate: session?.date, phase: phase, outcome: facts.outcome(at: instant),
            dose1At: dose1, dose2At: facts.dose2?.occurredAt, dose2Skipped: facts.skip != nil,
            skippedAt: facts.skip?.occurredAt, sleptThrough: facts.sleptThrough, skipReason: facts.skip?.metadata.skipReason,
            extraDoseCount: facts.extraDoses.count,
            snoozeCount: facts.snoozes.count, snoozesRemaining: max(0, settings.maxSnoozes - facts.snoozes.count),
            snoozeUntil: pending ? facts.snoozeUntil : nil,
            canSnooze: snoozeRefusal == nil, snoozeBlockedReason: snoozeRefusal?.message,
            canSkip: skipRefusal == nil, skipBlockedReason: skipRefusal?.message,
            primaryAction: primaryAction(phase: phase, facts: facts),
            windowOpensAt: windowEdge(DoseWindow.opens), nearCloseAt: windowEdge(DoseWindow.nearClose),
            windowClosesAt: windowEdge(DoseWindow.closes),
            targetAt: windowDose1.map { $0.addingTimeInterval(TimeInterval(settings.targetIntervalMinutes * 60)) },
            expiresAt: windowEdge(DoseWindow.expires),
            minutesSinceDose1: dose1.map { DoseWindow.wholeMinutes(from: $0, to: instant) },
            minutesRemaining: nil, minutesUntilOpen: nil,
            nextReminder: ReminderPlan.next(for: session, settings: settings, after: instant, acknowledgedAt: acknowledgedAt),
            wakeAt: facts.wake?.occurredAt,
            wakeAsksUntil: wakeAsksUntil(facts: facts, at: instant), checkedIn: facts.checkIn != nil, warnings: [],
            asOf: instant, timeZoneID: timeZone.identifier,
            regimen: facts.regimen
                ?? (dose1 == nil
                    ? settings.regimen(on: session.flatMap { $0.isOpen ? $0.date : nil } ?? SessionKey(for: instant, in: timeZone))
                    : .recordedBeforeRegimens(settings)))

        status.dose2Undecided = pending
        if facts.dose1 != nil, facts.isPastMaximum(regimen: status.regimen) {
            status.pastNightlyMaximum =
                "The night holds \(RegimenWords.grams(facts.takenMilligrams(regimen: status.regimen))) of oxybate in \(facts.doseCount) doses; "
                + "the most a night may hold is \(RegimenWords.grams(status.regimen.nightlyMaximumMilligrams))."
        }
        status.dose2ActedBy = facts.dose2?.metadata.actedBy
        status.dose2Timing = DoseTiming.of(facts, targetMinutes: settings.targetIntervalMinutes, closed: !(session?.isOpen ?? true))
        // Past the expiry before it is recorded the night has slept through already, as the outcome says.
        if status.dose2Timing == .undecided, status.outcome == .expired { status.dose2Timing = .sleptThrough }
        if pending, let dose1, let window {
            status.minutesRemaining = max(0, DoseWindow.wholeMinutes(from: instant, to: window.closes(after: dose1)))
            if phase == .beforeWindow {
                let seconds = window.opens(after: dose1).timeIntervalSince(instant)
                status.minutesUntilOpen = max(1, Int((seconds / 60).rounded(.up)))
            }
        }
        if facts.dose1 == nil, let near = NightRules.nearestDose(recentDoses.filter { $0.at <= instant }, to: instant) {
            status.blockingDose = near
            status.blockingNightDoses = recentDoses.filter { $0.night == near.night }.sorted { $0.at < $1.at }
            status.newDose1From = NightRules.redoseSpacingEnds(after: near)
            status.primaryAction = .waitForNewNight
        }
        status.warnings = warnings(
            facts: facts, phase: phase, pending: pending, pastLimits: status.pastNightlyMaximum != nil, session: session, instant: instant,
            timeZone: timeZone)
        // D20: what the night holds, and the words to get help, first among the night's warnings.
        if let past = status.pastNightlyMaximum { status.warnings.insert(past + " " + NightRules.helpWords, at: 0) }
        return status
    }

    private static func primaryAction(phase: NightPhase, facts: NightFacts) -> PrimaryAction {
        switch phase {
        case .noDose1: .takeDose1
        case .beforeWindow: .waitForWindow
        case .active, .nearClose: .takeDose2
        case .closed: .takeDose2Late
        case .finalizing: .checkIn
        case .completed: .none
        }
    }

    /// How long after Dose 2 or a skip a wake-up needs a second "yes" on interactive surfaces (D15).
    public static let wakeConfirmationMinutes = 120

    private static func wakeAsksUntil(facts: NightFacts, at instant: Date) -> Date? {
        // Once nightly, the night's one dose settles it.
        let onlyDose = facts.window == nil ? facts.dose1 : nil
        guard facts.wake == nil, facts.checkIn == nil, let settled = facts.dose2 ?? facts.skip ?? onlyDose else { return nil }
        let until = settled.occurredAt.addingTimeInterval(DoseWindow.minutes(wakeConfirmationMinutes))
        return instant < until ? until : nil
    }

    private static func warnings(
        facts: NightFacts, phase: NightPhase, pending: Bool, pastLimits: Bool, session: NightSession?,
        instant: Date, timeZone: TimeZone
    ) -> [String] {
        var warnings: [String] = []
        if let dose1 = facts.dose1, session?.isOpen ?? false,
            let shift = TimeZoneShift.warning(dose1: dose1, now: instant, timeZone: timeZone)
        {
            warnings.append(shift)
        }
        if pending, phase == .nearClose { warnings.append("Less than 15 minutes left to take Dose 2. Snooze is off.") }
        if pending, phase == .closed {
            warnings.append("The Dose 2 window has closed. A late Dose 2 needs confirmation; skipping is the safer choice.")
        }
        // Past the night's limits its own warning says more (`pastNightlyMaximum`).
        if !facts.extraDoses.isEmpty, !pastLimits {
            warnings.append("\(facts.extraDoses.count) extra \(facts.extraDoses.count == 1 ? "dose" : "doses") recorded tonight. Do not take more.")
        }
        if let dose2 = facts.dose2, dose2.metadata.isEarly { warnings.append("Dose 2 was taken early tonight.") }
        return warnings
    }
}

extension NightStatus {
    /// Tonight's outcome in words, for the screen that must answer "did I take it?" at 3 a.m. (SPEC §5.4); `givenBy`
    /// names who gave Dose 2 when someone did for the person ("Dose 2 given by Bob at 01:20").
    public func outcomeSentence(in zone: TimeZone, givenBy: String? = nil) -> String? {
        func clock(_ date: Date) -> String { LocalClock.hourMinute(date, in: zone) }
        if dose2Timing == .oneDose, let dose1At {
            return "Tonight's dose taken at \(clock(dose1At)) — \(RegimenWords.kind(regimen.kind)), no Dose 2"
        }
        if let dose2At, let dose1At {
            let timing = dose2Timing.map { ": \($0.words)" } ?? ""
            let how = givenBy.map { "given by \($0)" } ?? "taken"
            return "Dose 2 \(how) at \(clock(dose2At)) — \(DoseWindow.wholeMinutes(from: dose1At, to: dose2At)) min after Dose 1\(timing)"
        }
        if let skippedAt {
            if sleptThrough, let windowClosesAt {
                return "Slept through: Dose 2 not taken — the window closed at \(clock(windowClosesAt))"
            }
            return "Dose 2 skipped at \(clock(skippedAt))"
        }
        if dose2Timing == .endedWithoutDose2 {
            return "Ended without Dose 2: the night was ended" + (wakeAt.map { " at \(clock($0))" } ?? "") + " before Dose 2 was taken or skipped"
        }
        return nil
    }

    /// The question to ask before logging wake-up this soon after Dose 2 or a skip, or nil when none is needed (D15).
    public func earlyWakeQuestion(in zone: TimeZone) -> String? {
        guard let until = wakeAsksUntil, asOf < until else { return nil }
        let settled = dose2At ?? skippedAt ?? dose1At ?? asOf
        let what = dose2At != nil ? "Dose 2 was taken" : skippedAt != nil ? "Dose 2 was skipped" : "Tonight's dose was taken"
        let minutes = DoseWindow.wholeMinutes(from: settled, to: asOf)
        return "\(what) at \(LocalClock.hourMinute(settled, in: zone)), \(DurationText.words(minutes: minutes)) ago. "
            + "Are you up for the day? Logging wake-up ends tonight's session."
    }
}
