import DoseApp
import DoseCore
import DoseStore
import Foundation

/// Tonight as the page shows it (SPEC §5.4, D15): one primary action that never means Wake Up after Dose 2, the
/// outcome in words, the safe choice filled and the risky one outlined, refusals inline.
///
/// The page is laid out in places of fixed size, so that nothing moves when tonight changes and the second tap of a
/// double tap lands where the first did: the notices (what the last tap did, Undo, a refusal, a ringing alarm) at the
/// top, away from every other control; the status box (the ring, or the outcome in words); the times; the big button's
/// spot and the row under it; the grid; the bottom row. What varies in length (the alarm line, warnings) comes after the
/// last control.
struct TonightView {
    struct Ring {
        let start, end, now: String
        let text, caption, label: String
        let length, offset: String
        /// "", "near" from T+225, "final" from T+235: colour, a thicker ring and words, never colour alone.
        let level: String
        let urgency: String?
        let nearAt, finalAt: String?
    }

    struct Outcome {
        let mark: String
        let text: String
        var warning = false
    }

    /// A question the page asks in a dialog before a risky tap is sent: its words, the answers' labels, and the
    /// confirmation "yes" adds.
    struct Risk {
        let risk: String
        let confirm: String
        var yesLabel = "Take it anyway"
        var noLabel = "Cancel"
        var offerSkip = false
    }

    struct Button {
        let action: String
        let label: String
        var risk: Risk?
        /// Why it cannot be used now; the button is then shown disabled, with the reason.
        var unavailable: String?
        /// The big button of its spot (filled, full width).
        var big = false
    }

    struct Link {
        let href: String
        let label: String
    }

    /// A decision asked in the page itself (without script, or after the server refused), over the page at the top of the
    /// screen: the question, the risky answer outlined under it, the safe one filled below.
    struct Question {
        let text: String
        var safeLabel: String
        var safeHref: String?
        var safeAction: String?
        let riskyLabel: String
        let riskyAction: String
        let riskyConfirm: String
        /// The sleep event a `log` action names.
        var riskyEvent: String?
    }

    /// With no Dose 1 tonight and a dose of the last night under 8 hours ago: that night, instead of "Take Dose 1" (D17).
    struct Redose {
        let from: String
        let doses: String
        let href: String
    }

    /// One stretch of the night as the page shows it: the heading, what stands in the big button's spot, and the row
    /// under it. While Dose 2 is to take the page holds one for each Dose 2 period, so that offline it moves with the
    /// night from the periods alone (period.js); otherwise one.
    struct Variant {
        /// The period's kind, or "" for a night without Dose 2 to take.
        let kind: String
        let current: Bool
        var heading: String
        /// The heading from the 15-minute mark on, and when that is (the window's variant only).
        var nearHeading: String?
        var nearAt: String?
        /// The big button; whatever stands here is drawn big.
        var primary: Button? { didSet { primary?.big = true } }
        var primaryLink: Link?
        /// Words that stand in the spot when no button does, so nothing else moves into it.
        var spotText: String?
        /// The row under the spot: the outlined choices of this stretch (early or late, snooze, skip).
        var row: [Button] = []
    }

    /// What the last tap did, in the notices: its words, and Undo until `until` (none for a caregiver: Undo is the
    /// person's own).
    struct Done {
        let label: String
        let until: String?
    }

    struct GridItem {
        let event: String
        let label: String
        /// The grid's Wake Up is the page's one Wake Up and asks as it does (nil for every other event).
        var wakeUp: Wake?
    }

    /// The page's one Wake Up and the question it asks first, if any: D16 while Dose 2 is undecided, D15 within 2 hours of
    /// Dose 2 or a skip.
    struct Wake {
        var risk: Risk?
    }

    var frame: Frame
    let csrf: String
    let revision: String
    /// Where the page's taps and script calls go: the person's own, or a grantee's for them (`/people/{id}`).
    var actURL = "/ui/act"
    var apiBase = "/v1"
    var home = "/"
    /// A grantee's page for another person: whose night it is and what the grantee may do on it.
    var onBehalf: String?
    var isGrantee = false
    /// Whether the night's reminders ring on this page: the person's own, or a grantee with `alarms`.
    var rings = true
    /// The wall-clock instant of the tap that drew this page, sent back with every tap so the server holds the same rule
    /// the page does (D15); nil for a page opened or reloaded.
    let after: String?
    /// How much longer this page takes no tap but Undo, and no answer to its question, in milliseconds.
    let settleMs: Int
    let answerMs: Int
    /// Whether the page is still settling, and its question's answers still wait (stored: the templates read fields).
    let settling: Bool
    let answering: Bool
    var banner: String?
    var heading: String
    var ring: Ring?
    var outcome: Outcome?
    /// Words in the status box when it holds neither the ring nor an outcome.
    var statement: String?
    var times: String?
    var question: Question?
    var variants: [Variant] = []
    /// The server's clock when it drew the page: the phone counts the undo window and the ring on it.
    let now: String
    let alarms: String
    var done: Done?
    let warnings: [String]
    var grid: [GridItem]
    let dense: Bool
    /// The bottom row's Wake Up, when the grid does not hold the page's one.
    var bottomWake: Wake?
    var showPreSleep = false
    /// Check-in is offered once Dose 2 is settled and until the night's check-in is done; while Dose 2 is undecided a
    /// check-in would end the night (D16).
    var showCheckIn = true
    var redose: Redose?
    /// The night's Dose 2 periods, kept by the page for when the server cannot be reached (see period.js), and the
    /// zone the page shows times in.
    let periods: [Period]
    let zone: String
    /// Dose 2 is still to take: the page holds the screen awake and offers the nightstand layout.
    let nightOpen: Bool
    /// The low-supply card: shown when the nights left fall to the refill threshold, never while Dose 2 is pending.
    var lowSupply: String?

    struct Period {
        let kind, from, confirm: String
        let until: String?
    }

    /// Tonight's view from the status. Long by design: it sets each of the view's fields once, in the order the page
    /// shows them; the parts that are rules of their own (the times line, the period variants, the ring, Wake Up) are
    /// functions. `drawnAfter` is the wall-clock instant of the tap this page answers, and `wallNow` the wall clock now.
    init(
        _ snapshot: StatusSnapshot, csrf: String, now: Date, wallNow: Date, drawnAfter: Date? = nil, done: (label: String, until: Date?)? = nil,
        outages: [ServerOutage] = [], banner: String? = nil, question: Question? = nil, givenBy: String? = nil
    ) {
        let status = snapshot.status
        let zone = snapshot.timeZone
        func clock(_ date: Date?) -> String { WebPages.clock(date, zone) }
        frame = Frame("Tonight", current: "/")
        self.now = ISO8601.string(now)
        self.csrf = csrf
        revision = String(snapshot.revision)
        let elapsed = TapGuard.elapsed(since: drawnAfter, now: wallNow)
        after = elapsed == nil ? nil : drawnAfter.map(ISO8601.string)
        settleMs = TapGuard.remainingMilliseconds(.control, drawnAfter: drawnAfter, now: wallNow)
        answerMs = TapGuard.remainingMilliseconds(.answer, drawnAfter: drawnAfter, now: wallNow)
        settling = settleMs > 0
        answering = answerMs > 0
        self.banner = banner
        self.question = question
        heading = status.phase.label
        ring = Self.ring(status, zone: zone, now: now)
        self.zone = zone.identifier
        nightOpen = !status.dose2Periods.isEmpty
        periods = status.dose2Periods.map {
            Period(
                kind: $0.kind.rawValue, from: ISO8601.string($0.from), confirm: $0.confirmations.map(\.rawValue).joined(separator: ","),
                until: $0.until.map(ISO8601.string))
        }
        if let text = status.outcomeSentence(in: zone, givenBy: givenBy) {
            // D18: a tick only for a Dose 2 inside the window; early and late are warnings, never a success.
            let timing = status.dose2Timing ?? .undecided
            outcome = Outcome(mark: timing.mark, text: text, warning: timing.isWarning)
            // The heading says how Dose 2 went until the morning's check-in closes the night; a night is not "complete"
            // at 01:20 because Dose 2 was taken.
            if status.phase == .completed, !status.checkedIn { heading = Self.heading(timing) }
        } else if status.phase == .noDose1, status.regimen.window == nil {
            heading = "Tonight's dose not taken yet"
        }
        if status.dose2Timing == .endedWithoutDose2 { heading = DoseTiming.endedWithoutDose2.label }
        if status.pastNightlyMaximum != nil, !status.checkedIn { heading = "Past tonight's maximum" }
        times = Self.times(status, zone: zone)
        let pendingDose2 =
            status.dose1At != nil && status.regimen.window != nil && status.dose2At == nil && !status.dose2Skipped && status.phase < .finalizing
        if pendingDose2, let dose1 = status.dose1At {
            variants = Self.periodVariants(status, dose1: dose1, zone: zone, now: now, heading: heading)
        } else if status.primaryAction == .waitForNewNight, let from = status.newDose1From {
            // D17: last night's doses stand where Take Dose 1 would be; the link to correct them sits below, apart.
            let doses = status.blockingNightDoses.map { "\($0.kind.label) \(clock($0.at))" }.joined(separator: " · ")
            redose = Redose(from: clock(from), doses: doses, href: "/details?night=\(status.blockingDose?.night?.rawValue ?? "")")
            heading = "A new Dose 1 is possible from \(clock(from))"
            times = nil
            var variant = Variant(kind: "", current: true, heading: heading)
            variant.spotText = "Last night: \(doses)."
            variants = [variant]
        } else {
            var variant = Variant(kind: "", current: true, heading: heading)
            switch status.primaryAction {
            case .takeDose1:
                variant.primary = Button(action: "dose1", label: status.regimen.window == nil ? "Take tonight's dose" : "Take Dose 1")
            case .checkIn: variant.primaryLink = Link(href: "/checkin", label: "Morning check-in")
            case .none: variant.spotText = Self.nextStep(status)
            case .waitForNewNight, .waitForWindow, .takeDose2, .takeDose2Late: break
            }
            variants = [variant]
        }
        if ring == nil, outcome == nil {
            statement = status.dose1At == nil && redose == nil ? times : nil
            if statement != nil { times = nil }
        }
        showCheckIn = !status.dose2Undecided && !status.checkedIn && status.dose1At != nil
        alarms = Self.alarmLine(status, settings: snapshot.settings, zone: zone)
        if let done, done.until.map({ $0 > now }) ?? true {
            self.done = Done(label: done.label, until: done.until.map(ISO8601.string))
        }
        // Near the close the ring's own words say it; the same sentence twice would say nothing more.
        let ringSays = ring?.urgency != nil
        var warnings =
            status.warnings.filter { !(ringSays && $0.hasPrefix("Less than 15 minutes")) }
            + (WebPages.outageText(outages, zone: zone).map { [$0] } ?? [])
        // With Dose 2 still to take and no ring (the window closed, or ran out), the first warning is what matters now: it
        // stands in the status box, where the countdown was.
        if ring == nil, outcome == nil, statement == nil, redose == nil, !variants.filter(\.current).allSatisfy({ $0.kind.isEmpty }),
            !warnings.isEmpty
        {
            statement = "⚠ " + warnings.removeFirst()
        }
        // D20: past the night's limits, the status box says what the night holds and when to call for help, in place of how
        // Dose 2 went; the big spot says the rest (`nextStep`), so the warning below would only repeat them.
        if let past = status.pastNightlyMaximum, !status.checkedIn {
            outcome = nil
            statement = "⚠ \(past) \(NightRules.emergencyWords)"
            warnings.removeAll { $0.hasPrefix(past) }
        }
        self.warnings = warnings
        let quick = snapshot.settings.quickLog.compactMap { try? SleepEventCatalogue.standard.resolve($0) }
        let asking = Self.wake(status, zone: zone)
        grid = quick.map { GridItem(event: $0.type.rawValue, label: $0.label, wakeUp: $0.type == .wakeFinal ? asking : nil) }
        dense = quick.count > 8
        // Wake Up once on a page: the grid's when the person put it there; else the bottom row's, and that only once Dose 2
        // is settled (taken, skipped or expired): before that, a stray tap on it would end tonight's doses.
        let settled = status.dose2At != nil || status.dose2Skipped || status.dose2Timing == .oneDose
        if !quick.contains(where: { $0.type == .wakeFinal }), settled, status.phase != .finalizing, status.wakeAt == nil, !status.checkedIn {
            bottomWake = asking
        }
        showPreSleep = status.dose1At == nil
    }

    /// The heading once tonight's doses are settled and before the check-in: how they went, in D18's words.
    static func heading(_ timing: DoseTiming) -> String {
        switch timing {
        case .onTarget, .inWindow: "Dose 2 taken"
        case .early: "Dose 2 taken early"
        case .late: "Dose 2 taken late"
        case .skipped: "Dose 2 skipped"
        case .sleptThrough: "Slept through"
        case .endedWithoutDose2: DoseTiming.endedWithoutDose2.label
        // Once nightly the one dose is the night's whole plan: said as such, not as a night already over.
        case .oneDose: "Tonight's dose taken"
        case .undecided: NightPhase.completed.label
        }
    }

    /// What stands in the big button's spot once tonight's doses are settled: the next step in words, never a button.
    static func nextStep(_ status: NightStatus) -> String {
        if status.checkedIn { return "Tonight is done. Good morning." }
        if status.phase == .finalizing { return "Check in when you are ready." }
        // D20: after a dose past the night's limits, sleep is not the advice.
        if status.pastNightlyMaximum != nil { return "No more oxybate tonight. Do not stay alone." }
        return "Nothing to take now. Sleep well."
    }

    /// The page's Wake Up and its question (D15, D16): the same words the server would answer a bare wake-up with.
    static func wake(_ status: NightStatus, zone: TimeZone) -> Wake {
        if status.dose2Undecided, let dose1 = status.dose1At, let window = status.regimen.window {
            let error = DoseError.dose2Pending(
                ending: "Logging wake-up", window: PendingDose2(dose1: dose1, window: window, at: status.asOf, zone: zone))
            return Wake(
                risk: Risk(
                    risk: error.message { _ in nil }, confirm: ConfirmKind.endNight.rawValue, yesLabel: "End the night", noLabel: "Keep the night"))
        }
        if let question = status.earlyWakeQuestion(in: zone) {
            return Wake(risk: Risk(risk: question, confirm: "early_wake", yesLabel: "Yes, I'm up", noLabel: "Keep sleeping"))
        }
        return Wake(risk: nil)
    }

    /// Tonight as `grantee` sees it for the person who shares with them: every tap under the same rules, sent to the
    /// grantee's address for them, with only what their grants open. Undo is the person's own (a caregiver's undo could
    /// remove a dose the person recorded, and a dose that looks untaken invites a second one); so are check-in,
    /// pre-sleep, other medications and corrections.
    mutating func show(to grantee: SharedAccess, switcher: [Frame.Tab], zoneNote: String? = nil) {
        let canLog = grantee.grants.contains(.log)
        actURL = grantee.pageBase + "/ui/act"
        apiBase = grantee.apiBase
        home = grantee.pageBase + "/"
        isGrantee = true
        rings = grantee.grants.contains(.alarms)
        frame = Frame.forGrantee(
            "\(grantee.ownerName)'s night", base: grantee.pageBase, current: "/", grants: Set(grantee.grants), switcher: switcher)
        onBehalf =
            canLog
            ? "Logging for \(grantee.ownerName). Each tap is recorded with your name."
            : "Viewing \(grantee.ownerName)'s night. Their share does not let you log."
        frame.note = zoneNote
        // A question's safe choice goes back to their Tonight, not the grantee's own.
        if question?.safeHref == "/" { question?.safeHref = home }
        done = done.map { Done(label: $0.label, until: nil) }
        showCheckIn = false
        showPreSleep = false
        lowSupply = nil
        redose = redose.map { Redose(from: $0.from, doses: $0.doses, href: grantee.pageBase + $0.href) }
        variants = variants.map { variant in
            var variant = variant
            if variant.primaryLink != nil {
                variant.primaryLink = nil
                variant.spotText = "Their morning check-in is theirs to answer."
            }
            if !canLog {
                variant.primary = nil
                variant.row = []
            }
            return variant
        }
        if !canLog {
            question = nil
            bottomWake = nil
            grid = []
        }
    }

    /// The line of tonight's times: Dose 1 with the window and target while Dose 2 is to come, else Dose 1 and the wake.
    static func times(_ status: NightStatus, zone: TimeZone) -> String {
        func clock(_ date: Date?) -> String { WebPages.clock(date, zone) }
        guard let dose1 = status.dose1At else {
            // Tonight's amounts are the titration step's of tonight when there is one, so they are said, with the step.
            let step = RegimenWords.step(status.regimen)
            guard let window = status.regimen.window else {
                return "Take tonight's dose at bedtime: \(RegimenWords.grams(status.regimen.milligrams(ofDose: 1))), "
                    + "\(RegimenWords.kind(status.regimen.kind))\(step)."
            }
            return "Take Dose 1 (\(RegimenWords.grams(status.regimen.milligrams(ofDose: 1)))) at bedtime; Dose 2 "
                + "(\(RegimenWords.grams(status.regimen.milligrams(ofDose: 2)))) follows \(RegimenWords.hours(window)) later\(step)."
        }
        guard status.regimen.window != nil else { return "Tonight's dose \(clock(dose1))" + (status.wakeAt.map { " · woke \(clock($0))" } ?? "") }
        return status.dose2At == nil && !status.dose2Skipped && status.dose2Undecided
            ? "Dose 1 \(clock(dose1)) · window \(clock(status.windowOpensAt))–\(clock(status.windowClosesAt)) · target \(clock(status.targetAt))"
            : "Dose 1 \(clock(dose1))" + (status.wakeAt.map { " · woke \(clock($0))" } ?? "")
    }

    /// One variant per Dose 2 period, so the page can move to the next without the server; the one drawn now says what
    /// the status says now (near the close, for one).
    static func periodVariants(_ status: NightStatus, dose1: Date, zone: TimeZone, now: Date, heading: String) -> [Variant] {
        guard let window = status.regimen.window else { return [] }
        let current = Dose2Period.period(at: now, in: status.dose2Periods)?.kind
        let snooze =
            status.canSnooze
            ? Button(action: "snooze", label: "Snooze 10 min")
            : Button(action: "snooze", label: "Snooze off", unavailable: status.snoozeBlockedReason)
        return status.dose2Periods.map { period in
            var variant = variant(period.kind, dose1: dose1, window: window, zone: zone, current: period.kind == current, snooze: snooze)
            if variant.current { variant.heading = heading }
            return variant
        }
    }

    /// The page for one Dose 2 period (D15, D18, SPEC §5.4): before the window the countdown and the opening time are the
    /// focus and an early dose is only an outlined choice that asks; in the window the big button takes Dose 2; after it
    /// Skip is the big button and a late dose is outlined and asks. Skip keeps its place under the spot while it is a
    /// choice of the row, so the window's opening moves nothing.
    static func variant(_ kind: Dose2Period.Kind, dose1: Date, window: DoseWindow, zone: TimeZone, current: Bool, snooze: Button) -> Variant {
        func clock(_ date: Date) -> String { WebPages.clock(date, zone) }
        let (opens, closes, expires) = (window.opens(after: dose1), window.closes(after: dose1), window.expires(after: dose1))
        let lateRisk = "The Dose 2 window closed at \(clock(closes)). Taking Dose 2 this late can leave you drowsy into the day."
        let skip = Button(action: "skip", label: "Skip Dose 2")
        switch kind {
        case .beforeWindow:
            var variant = Variant(kind: kind.rawValue, current: current, heading: NightPhase.beforeWindow.label)
            variant.spotText = "Dose 2 opens at \(clock(opens))"
            variant.row = [
                Button(
                    action: "dose2", label: "Take Dose 2 early…",
                    risk: Risk(
                        risk: "Dose 2's window opens at \(clock(opens)). Taking Dose 2 before then is unsafe; wait for the window.", confirm: "early")
                ),
                skip,
            ]
            return variant
        case .window:
            var variant = Variant(kind: kind.rawValue, current: current, heading: NightPhase.active.label)
            variant.nearHeading = NightPhase.nearClose.label
            variant.nearAt = ISO8601.string(window.nearClose(after: dose1))
            variant.primary = Button(action: "dose2", label: "Take Dose 2")
            variant.row = [snooze, skip]
            return variant
        case .afterWindow:
            // The window has closed: skipping is the safe choice, so it is the filled button; a late dose is outlined and asks.
            var variant = Variant(kind: kind.rawValue, current: current, heading: NightPhase.closed.label)
            variant.primary = skip
            variant.row = [Button(action: "dose2", label: "Take Dose 2 late…", risk: Risk(risk: lateRisk, confirm: "late", offerSkip: true))]
            return variant
        case .expired:
            var variant = Variant(kind: kind.rawValue, current: current, heading: "Slept through")
            variant.spotText = "Dose 2 counts as slept through since \(clock(expires)): the window ran out."
            variant.row = [
                Button(
                    action: "dose2", label: "Take Dose 2 late…",
                    risk: Risk(risk: "Tonight's window ran out at \(clock(expires)) and Dose 2 counts as slept through. " + lateRisk, confirm: "late")
                )
            ]
            return variant
        }
    }

    /// Alarms on or off and the next one, always visible; after a snooze, the new alarm time and the snoozes left.
    static func alarmLine(_ status: NightStatus, settings: DoseSettings, zone: TimeZone) -> String {
        guard settings.remindersEnabled else { return "Alarms off (Settings → Reminders)." }
        var parts: [String] = []
        if let until = status.snoozeUntil { parts.append("Snoozed: alarm at \(WebPages.clock(until, zone))") }
        if let next = status.nextReminder, status.snoozeUntil == nil || next.fireAt != status.snoozeUntil {
            let message = next.kind.message.hasSuffix(".") ? String(next.kind.message.dropLast()) : next.kind.message
            parts.append("Next alarm \(WebPages.clock(next.fireAt, zone)): \(message)")
        }
        if status.canSnooze || status.snoozeUntil != nil {
            parts.append("\(status.snoozesRemaining) \(status.snoozesRemaining == 1 ? "snooze" : "snoozes") left")
        }
        if parts.isEmpty {
            parts.append(
                status.regimen.window == nil
                    ? "Alarms on; once nightly there is no Dose 2 alarm"
                    : status.dose1At == nil ? "Alarms on; they are planned when you take Dose 1" : "Alarms on; none left tonight")
        }
        return parts.joined(separator: " · ") + "."
    }

    /// The countdown ring: to the window's opening, then to its closing. Without script it shows the minutes left.
    static func ring(_ status: NightStatus, zone: TimeZone, now: Date) -> Ring? {
        let (start, end, caption): (Date?, Date?, String) =
            switch status.phase {
            case .beforeWindow: (status.dose1At, status.windowOpensAt, "until Dose 2 opens")
            case .active, .nearClose: (status.windowOpensAt, status.windowClosesAt, "left to take Dose 2")
            default: (nil, nil, "")
            }
        guard let start, let end, let closes = status.windowClosesAt else { return nil }
        let length = 2 * Double.pi * 80
        let left = max(0, end.timeIntervalSince(now))
        let done = min(1, max(0, 1 - left / end.timeIntervalSince(start)))
        let text = String(format: "%d:%02d", Int(left) / 3600, Int(left) / 60 % 60)
        let final = closes.addingTimeInterval(-5 * 60)
        let level: String
        let urgency: String?
        if status.phase == .nearClose, now >= final {
            (level, urgency) = ("final", "Under 5 minutes left: take Dose 2 now or skip it.")
        } else if status.phase == .nearClose {
            (level, urgency) = ("near", "Under 15 minutes left: snooze is off.")
        } else {
            (level, urgency) = ("", nil)
        }
        let pending = status.phase == .active || status.phase == .nearClose
        return Ring(
            start: ISO8601.string(start), end: ISO8601.string(end), now: ISO8601.string(now), text: text, caption: caption,
            label: "\(text) \(caption)", length: String(format: "%.1f", length), offset: String(format: "%.1f", length * done),
            level: level, urgency: urgency,
            nearAt: pending ? status.nearCloseAt.map(ISO8601.string) : nil, finalAt: pending ? ISO8601.string(final) : nil)
    }

    /// The in-page question for a refusal that a confirmation can lift.
    static func question(for error: DoseError, action: String, event: String? = nil) -> Question? {
        guard let confirm = error.confirm else { return nil }
        let risky: String =
            switch confirm {
            case .newNight: "Start a new night anyway"
            case .extra: "Record an extra dose"
            case .endNight: "End the night"
            default: "Take it anyway"
            }
        // On a page the choice is a button, not a word to type: the message leaves its "confirm 'late'" out.
        var question = Question(
            text: error.message { _ in nil },
            safeLabel: "Cancel", safeHref: "/", riskyLabel: risky, riskyAction: action, riskyConfirm: confirm.rawValue)
        if confirm == .late {
            question.safeLabel = "Skip Dose 2"
            question.safeHref = nil
            question.safeAction = "skip"
        }
        if confirm == .endNight {
            question.safeLabel = "Keep the night"
            question.riskyEvent = event
        }
        return question
    }
}
