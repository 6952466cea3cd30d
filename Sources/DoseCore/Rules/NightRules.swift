public import Foundation

/// The one place that decides what a person may do in the night (SPEC §3.3). Every surface calls it.
public enum NightRules {
    /// What a person is told after a dose past the night's limits (D20): what not to do, then when to call for help.
    public static let helpWords = stopWords + " " + emergencyWords
    /// The first half of `helpWords`.
    public static let stopWords = "Do not take any more oxybate tonight, and do not stay alone: someone should be with you."
    /// The second half of `helpWords`: when to call for help.
    public static let emergencyWords =
        "If you are very hard to wake, confused, vomiting, or breathing slowly or not at all, call emergency services now (911 in the "
        + "US, 112 in Europe)."

    /// An occurrence time may be at most this far in the future (clock skew between devices).
    public static let futureTolerance: TimeInterval = 60

    /// Decides an action against the open session (nil when none is open; check-in may pass a closed one).
    /// Returns what to record, or the first failing guard's error. A refusal changes nothing.
    public static func decide(_ action: NightAction, session: NightSession?, context: NightContext) throws(DoseError) -> Decision {
        let at = action.occurredAt ?? context.now
        try refuseFuture(at, now: context.now)
        let note = try TextLimits.validated(action.note, field: "note", limit: TextLimits.note)
        if let session, session.isOpen, at < session.startedAt, SessionKey(for: at, in: context.timeZone) < session.date {
            throw .invalidInput(
                field: "at",
                problem:
                    "\(LocalClock.hourMinute(at, in: context.timeZone)) on \(SessionKey(for: at, in: context.timeZone)) belongs to an earlier night",
                allowed: "a time in tonight's session (\(session.date)); change earlier nights in history")
        }
        var builder = Builder(action: action, at: at, note: note, session: session, context: context)

        switch action.kind {
        case .dose1: try builder.dose1()
        case .dose2: try builder.dose2()
        case .skip(let reason): try builder.skip(reason: reason)
        case .snooze: try builder.snooze()
        case .undo: return try undo(session: session, context: context)
        case .log(let name): try builder.sleepEvent(try context.catalogue.resolve(name))
        case .wake: try builder.sleepEvent(try context.catalogue.resolve(SleepEventType.wakeFinal.rawValue))
        case .checkIn(let checkIn): try builder.checkIn(checkIn)
        case .takenAnyway(let amount): try builder.takenAnyway(amountMilligrams: amount)
        }
        return builder.decision()
    }

    /// Refuses an occurrence time more than a minute in the future (SPEC §3.3); every surface that takes a time uses it.
    public static func refuseFuture(_ instant: Date, now: Date) throws(DoseError) {
        guard instant <= now.addingTimeInterval(futureTolerance) else {
            throw .invalidInput(
                field: "at", problem: "\(ISO8601.string(instant)) is in the future", allowed: "a time no later than 1 minute from now")
        }
    }

    /// The most recent oxybate dose less than 8 hours from `instant` (either side: a back-dated Dose 1 may fall before
    /// one), or nil when a new Dose 1 at `instant` keeps D14's spacing.
    public static func nearestDose(_ doses: [RecordedDose], to instant: Date) -> RecordedDose? {
        doses.filter { abs(instant.timeIntervalSince($0.at)) < redoseSpacing && $0.kind.isOxybateDose }.max { $0.at < $1.at }
    }

    /// When `dose` stops counting for D14: a new Dose 1 is not refused for it from this instant on.
    public static func redoseSpacingEnds(after dose: RecordedDose) -> Date {
        dose.at.addingTimeInterval(redoseSpacing)
    }

    /// The doses a store loads for a Dose 1 at `instant`: those less than the redose spacing from it, either side (D14).
    public static func redoseSpan(around instant: Date) -> InstantSpan {
        InstantSpan(after: instant.addingTimeInterval(-redoseSpacing), before: instant.addingTimeInterval(redoseSpacing))
    }

    /// The start of the span whose doses may still hold a new Dose 1 back at `now` (D17): the redose spacing before it.
    public static func redoseLookback(before now: Date) -> Date {
        now.addingTimeInterval(-redoseSpacing)
    }

    private static var redoseSpacing: TimeInterval { DoseWindow.minutes(DoseWindow.redoseSpacingMinutes) }

    /// The refusal of an action on Dose 2 (`action`, in words) when the night has none: its Dose 1 was taken under a
    /// once-nightly regimen, or, before Dose 1, the regimen in the settings is once nightly (D19).
    public static func noDose2Refusal(_ facts: NightFacts, action: String, settings: DoseSettings) -> DoseError? {
        if facts.dose1 == nil {
            return settings.regimenKind == .onceNightly ? .notInRegimen(action: action, regimen: settings.regimen) : nil
        }
        guard facts.window == nil else { return nil }
        return .notInRegimen(action: action, regimen: facts.regimen ?? settings.regimen)
    }

    /// Whether a snooze would be allowed at `instant`, and if not, the refusal.
    public static func snoozeRefusal(_ facts: NightFacts, at instant: Date, settings: DoseSettings) -> DoseError? {
        if let refusal = noDose2Refusal(facts, action: "Snoozing Dose 2", settings: settings) { return refusal }
        guard facts.dose1 != nil else { return .dose1Required }
        guard settings.allowSnoozing else { return .snoozeUnavailable(.disabledInSettings) }
        switch facts.phase(at: instant) {
        case .active: break
        case .noDose1, .beforeWindow: return .snoozeUnavailable(.tooEarly)
        case .nearClose: return .snoozeUnavailable(.nearClose)
        case .closed: return .snoozeUnavailable(.windowClosed)
        case .finalizing: return .snoozeUnavailable(.finalizing)
        case .completed: return .snoozeUnavailable(.nightComplete)
        }
        guard facts.snoozes.count < settings.maxSnoozes else { return .snoozeLimit(maximum: settings.maxSnoozes) }
        return nil
    }

    /// Whether a skip would be allowed, and if not, the refusal.
    public static func skipRefusal(_ facts: NightFacts, timeZone: TimeZone, settings: DoseSettings) -> DoseError? {
        if let refusal = noDose2Refusal(facts, action: "Skipping Dose 2", settings: settings) { return refusal }
        guard facts.dose1 != nil else { return .dose1Required }
        if let dose2 = facts.dose2 {
            return .alreadyTaken(dose: "Dose 2", at: dose2.occurredAt, localTime: LocalClock.hourMinute(dose2.occurredAt, in: timeZone), confirm: nil)
        }
        if let skip = facts.skip {
            return .alreadySkipped(at: skip.occurredAt, localTime: LocalClock.hourMinute(skip.occurredAt, in: timeZone))
        }
        return nil
    }

    /// Undo (D5): removes the person's most recent undoable event if it was recorded within the undo window.
    static func undo(session: NightSession?, context: NightContext) throws(DoseError) -> Decision {
        guard let session, let target = lastUndoable(in: session.events) else { throw .nothingToUndo }
        let age = context.now.timeIntervalSince(target.recordedAt)
        // Compared in whole milliseconds, the precision events are stored with, so 5.000 s is inside a 5 s window.
        guard (age * 1000).rounded() <= Double(context.settings.undoWindowSeconds * 1000) else {
            throw .undoExpired(windowSeconds: context.settings.undoWindowSeconds, secondsAgo: age)
        }
        return Decision(
            session: session.removing(target.id), startedSession: false, recorded: [], removed: [target],
            closure: nil, checkIn: nil, warnings: [])
    }

    /// The person's most recently recorded dose, skip, snooze or sleep event.
    static func lastUndoable(in events: [NightEvent]) -> NightEvent? {
        events.filter { $0.source.isPerson && $0.kind != .checkIn }
            .max { ($0.recordedAt, $0.occurredAt, $0.id.rawValue) < ($1.recordedAt, $1.occurredAt, $1.id.rawValue) }
    }
}

/// Builds one decision: checks guards in order against the session's facts and collects what to record.
private struct Builder {
    let action: NightAction
    let at: Date
    let note: String?
    let context: NightContext
    let facts: NightFacts
    var session: NightSession
    var startedSession: Bool
    var recorded: [NightEvent] = []
    var removed: [NightEvent] = []
    var closure: SessionClosure?
    var checkIn: MorningCheckIn?
    var warnings: [String] = []

    init(action: NightAction, at: Date, note: String?, session: NightSession?, context: NightContext) {
        self.action = action
        self.at = at
        self.note = note
        self.context = context
        if let session {
            self.session = session
            self.startedSession = false
        } else {
            // The first action that needs a session starts one, keyed by its own occurrence time (SPEC §3.2).
            self.session = NightSession(id: SessionID(rawValue: context.makeID()), date: SessionKey(for: at, in: context.timeZone), startedAt: at)
            self.startedSession = true
        }
        self.facts = self.session.facts
    }

    private var zone: TimeZone { context.timeZone }
    private func local(_ date: Date) -> String { LocalClock.hourMinute(date, in: zone) }

    /// Refuses when wake-up (or check-in) came before this moment: the night's doses are over.
    private func refuseIfFinalizing() throws(DoseError) {
        if let end = facts.checkIn ?? facts.wake, end.occurredAt <= at {
            throw .sessionFinalizing(wokeAt: end.occurredAt, localTime: local(end.occurredAt))
        }
    }

    /// D16: ending the night (wake-up, check-in) while Dose 2 is undecided needs `end_night`; returns the confirmations
    /// to record with the event. A night whose wake-up is already logged has ended its doses before.
    private mutating func refuseIfEndingUndecided(_ ending: String) throws(DoseError) -> [ConfirmKind] {
        guard let dose1 = facts.dose1, let window = facts.window, facts.wake == nil, facts.dose2Pending(at: at) else { return [] }
        guard action.confirmations.contains(.endNight) else {
            throw .dose2Pending(ending: ending, window: PendingDose2(dose1: dose1.occurredAt, window: window, at: at, zone: zone))
        }
        warnings.append("The night ended with Dose 2 neither taken nor skipped; its alarms are cancelled.")
        return [.endNight]
    }

    /// D20: the refusal of a dose of `milligrams` (an `extra` one when the night has had its extra already), or of one
    /// that would take the night past its maximum; nil when it fits.
    private func maximumRefusal(adding milligrams: Int, regimen: DoseRegimen, extra: Bool) -> DoseError? {
        let taken = facts.takenMilligrams(regimen: regimen)
        let maximum = regimen.nightlyMaximumMilligrams
        if extra, let extra = facts.extraDoses.first {
            return .nightlyMaximum(
                NightlyMaximum(
                    reason: .secondExtra, takenMilligrams: taken, doseMilligrams: milligrams, maximumMilligrams: maximum,
                    extraLocalTime: local(extra.occurredAt)))
        }
        guard taken + milligrams > maximum else { return nil }
        return .nightlyMaximum(NightlyMaximum(reason: .pastMaximum, takenMilligrams: taken, doseMilligrams: milligrams, maximumMilligrams: maximum))
    }

    private func refuseIfBeforeDose1(_ dose1: NightEvent, doing what: String) throws(DoseError) {
        guard at >= dose1.occurredAt else {
            throw .invalidInput(
                field: "at", problem: "\(what) at \(local(at)) would be before Dose 1 (\(local(dose1.occurredAt)))",
                allowed: "a time after Dose 1")
        }
    }

    mutating func dose1() throws(DoseError) {
        if let dose1 = facts.dose1 {
            throw .alreadyTaken(dose: "Dose 1", at: dose1.occurredAt, localTime: local(dose1.occurredAt), confirm: nil)
        }
        var metadata = EventMetadata()
        metadata.doseIndex = 1
        // The night keeps the regimen of its Dose 1 (D19), with the titration step of its date: a later change of
        // settings is for later nights.
        let regimen = context.settings.regimen(on: session.date)
        metadata.regimen = regimen
        metadata.amountMilligrams = regimen.milligrams(ofDose: 1)
        if let near = NightRules.nearestDose(context.nearbyDoses, to: at) {
            // D14: about the medicine in the body, not the session, so no closed night resets it.
            let minutes = Int((at.timeIntervalSince(near.at) / 60).rounded(.towardZero))
            // D17: a half-asleep surface never records it, whatever it sends; only the CLI and the API, which correct
            // records, may confirm a new night.
            guard action.confirmations.contains(.newNight), !action.isHalfAsleep else {
                let allowed = NightRules.redoseSpacingEnds(after: near)
                throw .recentDose(
                    dose: near.kind.label, at: near.at, localTime: local(near.at), minutesApart: minutes,
                    allowedFrom: allowed, allowedLocalTime: local(allowed), confirmable: !action.isHalfAsleep, night: near.night)
            }
            metadata.confirmations = [.newNight]
            warnings.append(
                "New night recorded \(DurationText.words(minutes: abs(minutes))) from the last oxybate dose (\(near.kind.label) at "
                    + "\(local(near.at))). "
                    + "Take only what your prescriber told you to.")
        }
        try refuseIfFinalizing()
        record(.dose1, metadata: metadata)
    }

    mutating func dose2() throws(DoseError) {
        if let refusal = NightRules.noDose2Refusal(facts, action: "Dose 2", settings: context.settings) { throw refusal }
        guard let dose1 = facts.dose1, let window = facts.window else { throw .dose1Required }
        // Dose 2's amount is the night's, fixed with its Dose 1; a night from before regimens takes the profile's.
        let regimen = facts.regimen(or: context.settings)
        let dose2Amount = regimen.milligrams(ofDose: 2)
        try refuseIfBeforeDose1(dose1, doing: "Dose 2")
        try refuseIfFinalizing()
        let confirmed = action.confirmations
        if let dose2 = facts.dose2 {
            let extraAmount = regimen.milligrams(ofDose: facts.doseCount + 1)
            // D20: an extra is the person's own decision, once a night and within the night's maximum; only then is it offered.
            let limit = maximumRefusal(adding: extraAmount, regimen: regimen, extra: true)
            guard confirmed.contains(.extra) else {
                let offered: ConfirmKind? = action.actor == nil && limit == nil ? .extra : nil
                throw .alreadyTaken(dose: "Dose 2", at: dose2.occurredAt, localTime: local(dose2.occurredAt), confirm: offered)
            }
            guard action.actor == nil else {
                throw .notShared(
                    why: "an extra dose is the person's own decision to confirm, never a caregiver's; Dose 2 was taken at \(local(dose2.occurredAt))")
            }
            if let limit { throw limit }
            var metadata = EventMetadata()
            metadata.doseIndex = facts.doseCount + 1
            metadata.amountMilligrams = extraAmount
            metadata.confirmations = [.extra]
            warnings.append(
                "Extra dose recorded: this is dose \(facts.doseCount + 1) tonight, \(RegimenWords.grams(facts.takenMilligrams(regimen: regimen) + extraAmount)) "
                    + "in all. Do not take any more oxybate tonight; if you feel unwell, call your doctor or emergency services.")
            record(.extraDose, metadata: metadata)
            return
        }
        if let limit = maximumRefusal(adding: dose2Amount, regimen: regimen, extra: false) { throw limit }
        var given: [ConfirmKind] = []
        // A sleep-through expiry stamped after this dose's time was a guess made without it; the real dose replaces it.
        let supersededExpiry = facts.skip.flatMap { NightFacts.isSleepThrough($0) && $0.occurredAt > at ? $0 : nil }
        if let skip = facts.skip, supersededExpiry == nil {
            guard confirmed.contains(.afterSkip) else {
                throw .dose2Skipped(at: skip.occurredAt, localTime: local(skip.occurredAt), sleptThrough: NightFacts.isSleepThrough(skip))
            }
            given.append(.afterSkip)
        }
        var metadata = EventMetadata()
        metadata.doseIndex = 2
        metadata.amountMilligrams = dose2Amount
        switch window.position(of: at, dose1: dose1.occurredAt) {
        case .beforeWindow:
            let opens = window.opens(after: dose1.occurredAt)
            guard confirmed.contains(.early) else {
                let minutes = max(1, Int((opens.timeIntervalSince(at) / 60).rounded(.up)))
                throw .windowNotOpen(minutesUntilOpen: minutes, opensAt: opens, localTime: local(opens))
            }
            given.append(.early)
        case .closed:
            let closes = window.closes(after: dose1.occurredAt)
            guard confirmed.contains(.late) else {
                throw .windowExceeded(closedAt: closes, localTime: local(closes), minutesLate: DoseWindow.wholeMinutes(from: closes, to: at))
            }
            given.append(.late)
        case .active, .nearClose:
            break
        }
        metadata.classifyDose2(at: at, dose1: dose1.occurredAt, window: window)
        metadata.confirmations = given
        if let supersededExpiry { removed.append(supersededExpiry) }
        record(.dose2, metadata: metadata)
    }

    /// D20's record-keeping: the truth of a dose taken past the night's limits, never refused for being past them. Twice
    /// nightly it follows Dose 2 (a Dose 2 not yet recorded is recorded as one, with its confirmation); it comes from the
    /// person on a surface they use awake, and tells them to get help.
    mutating func takenAnyway(amountMilligrams: Int?) throws(DoseError) {
        guard let dose1 = facts.dose1 else { throw .dose1Required }
        guard action.actor == nil else {
            throw .notShared(why: "a dose taken past tonight's limits is recorded by the person themself, never by a caregiver")
        }
        guard !action.isHalfAsleep else {
            throw .invalidInput(
                field: "surface", problem: "a dose taken anyway is a record, not a tap", allowed: "`dosetap event took-anyway` or the API")
        }
        // Once nightly, any second dose is past the night's one; twice nightly, Dose 2 comes first.
        guard facts.dose2 != nil || facts.window == nil else {
            throw .invalidInput(
                field: "dose", problem: "Dose 2 is not recorded tonight, so this dose is Dose 2",
                allowed: "`dosetap dose2` (with `--confirm early` or `late` outside the window)")
        }
        try refuseIfBeforeDose1(dose1, doing: "A dose")
        let regimen = facts.regimen(or: context.settings)
        let amount = amountMilligrams ?? regimen.milligrams(ofDose: facts.doseCount + 1)
        let range = DoseSettings.doseAmountRange
        guard range.contains(amount) else {
            throw .invalidInput(
                field: "amount_mg", problem: "\(amount) mg is not an amount of one dose", allowed: "\(range.lowerBound)–\(range.upperBound) mg")
        }
        var metadata = EventMetadata()
        metadata.doseIndex = facts.doseCount + 1
        metadata.amountMilligrams = amount
        metadata.takenAnyway = true
        let total = facts.takenMilligrams(regimen: regimen) + amount
        let maximum = regimen.nightlyMaximumMilligrams
        warnings.append(
            "Recorded as taken anyway: tonight holds \(RegimenWords.grams(total)) of oxybate in \(facts.doseCount + 1) doses"
                + (total > maximum ? ", more than the \(RegimenWords.grams(maximum)) a night may hold" : "") + ". " + NightRules.helpWords)
        record(.extraDose, metadata: metadata)
    }

    mutating func skip(reason: String?) throws(DoseError) {
        if let refusal = NightRules.skipRefusal(facts, timeZone: zone, settings: context.settings) { throw refusal }
        if let dose1 = facts.dose1 { try refuseIfBeforeDose1(dose1, doing: "A skip") }
        var metadata = EventMetadata()
        metadata.skipReason = try TextLimits.validated(reason, field: "reason", limit: TextLimits.otherText)
        record(.dose2Skipped, metadata: metadata)
    }

    mutating func snooze() throws(DoseError) {
        if let refusal = NightRules.snoozeRefusal(facts, at: at, settings: context.settings) { throw refusal }
        var metadata = EventMetadata()
        metadata.snoozeCount = facts.snoozes.count + 1
        metadata.snoozeUntil = at.addingTimeInterval(DoseWindow.minutes(DoseWindow.snoozeMinutes))
        record(.snooze, metadata: metadata)
    }

    mutating func sleepEvent(_ definition: SleepEventDefinition) throws(DoseError) {
        let type = definition.type
        let cooldown = TimeInterval(context.settings.cooldownSeconds(for: definition))
        if cooldown > 0 {
            let kind = EventKind.sleep(type)
            let at = self.at
            // By event time, across nights: the same tap must not count twice because a night closed between them.
            let times = facts.events.lazy.filter { $0.kind == kind }.map(\.occurredAt) + context.nearbySameEvents
            let apart = times.map { abs($0.timeIntervalSince(at)) }.min()
            if let apart, apart < cooldown {
                throw .rateLimited(event: definition.label, retryAfterSeconds: max(1, Int((cooldown - apart).rounded(.up))))
            }
        }
        if type == .napStart || type == .napEnd { try checkNapSequence(adding: type) }
        var metadata = EventMetadata()
        if type == .wakeFinal { metadata.confirmations = try refuseIfEndingUndecided("Logging wake-up") }
        record(.sleep(type), metadata: metadata)
    }

    /// Naps must alternate start, end, start, … in time order, with at most the last one open (D7).
    private func checkNapSequence(adding type: SleepEventType) throws(DoseError) {
        var naps = facts.events.filter { $0.kind == .sleep(.napStart) || $0.kind == .sleep(.napEnd) }
            .map { (at: $0.occurredAt, start: $0.kind == .sleep(.napStart)) }
        naps.append((at: at, start: type == .napStart))
        naps.sort { $0.at < $1.at }
        for (index, nap) in naps.enumerated() where nap.start != index.isMultiple(of: 2) {
            if type == .napStart {
                throw .napState(problem: "A nap is already open. Log Nap End before starting another nap.")
            }
            throw .napState(problem: "There is no open nap to end. Log Nap Start first.")
        }
    }

    mutating func checkIn(_ input: MorningCheckIn) throws(DoseError) {
        if let existing = facts.checkIn {
            throw .alreadyTaken(dose: "The morning check-in", at: existing.occurredAt, localTime: local(existing.occurredAt), confirm: nil)
        }
        guard !startedSession else { throw .notFound(what: "A night to check in for") }
        // The answers first: bad input is refused as such whatever the night; then whether it may end the night (D16).
        checkIn = try input.validated()
        var metadata = EventMetadata()
        if session.isOpen { metadata.confirmations = try refuseIfEndingUndecided("Saving the check-in") }
        record(.checkIn, metadata: metadata)
        if session.isOpen {
            let facts = session.facts
            closure = SessionClosure(endedAt: at, reason: .checkin, terminalState: facts.terminalState(at: at))
        }
    }

    private mutating func record(_ kind: EventKind, metadata: EventMetadata) {
        for old in removed { session = session.removing(old.id) }
        let event = NightEvent(
            id: EventID(rawValue: context.makeID()), kind: kind, occurredAt: at, recordedAt: nextRecordingInstant(),
            timeZone: zone, source: action.source, note: note, metadata: metadata)
        session = session.adding(event)
        recorded.append(event)
    }

    /// Now, or one millisecond (the stored precision) after the night's latest recording if that is not earlier:
    /// recording order must be strict, or "undo the last thing I did" would pick between two actions of the same
    /// millisecond by their random ids.
    private func nextRecordingInstant() -> Date {
        guard let latest = session.events.map(\.recordedAt).max() else { return context.now }
        return max(context.now, ISO8601.wholeMilliseconds(latest.addingTimeInterval(0.001)))
    }

    func decision() -> Decision {
        var session = self.session
        if let closure {
            session.endedAt = closure.endedAt
            session.endReason = closure.reason
        }
        return Decision(
            session: session, startedSession: startedSession, recorded: recorded, removed: removed,
            closure: closure, checkIn: checkIn, warnings: warnings)
    }
}
