public import DoseCore
public import DoseStore
public import Foundation

/// The result of an action: what was recorded and the night's status afterwards.
public struct ActionOutcome: Sendable {
    /// What DoseCore decided (recorded and removed events, warnings, closure).
    public var decision: Decision
    /// Sessions closed by the passage of time before the action.
    public var closedBefore: [SessionClosure]
    /// The status after the action.
    public var status: NightStatus
    /// The settings in force.
    public var settings: DoseSettings
    /// The zone in use.
    public var timeZone: TimeZone
    /// The response stored under the request's idempotency key, if one was given.
    public var storedResponse: StoredResponse?
}

/// An API request made with an `Idempotency-Key`: who sent it, the key, a hash of the request, and how to render
/// the response to store.
public struct IdempotentRequest: Sendable {
    public var device: String
    public var key: String
    public var requestHash: String
    public var render: @Sendable (ActionOutcome) -> (Int, String)

    public init(device: String, key: String, requestHash: String, render: @escaping @Sendable (ActionOutcome) -> (Int, String)) {
        self.device = device
        self.key = key
        self.requestHash = requestHash
        self.render = render
    }
}

/// Thrown by `perform` when its idempotency key already has a stored answer (a concurrent request with the same key
/// committed first). Nothing was written; the caller answers with the stored response, or a mismatch if the requests
/// differ.
public struct AlreadyAnswered: ActionReplay, Sendable {
    /// What the first request was answered.
    public var response: StoredResponse
}

/// Thrown by `perform` when the client's event id is already recorded (a concurrent replay committed first). Nothing
/// was written.
public struct EventAlreadyRecorded: ActionReplay, Sendable {
    /// The id the client sent.
    public var id: EventID
}

/// Tonight as a surface shows it, read after the lifecycle has been evaluated.
public struct StatusSnapshot: Sendable {
    /// The derived status.
    public var status: NightStatus
    /// The open session (nil: the night to come).
    public var session: NightSession?
    /// The settings in force.
    public var settings: DoseSettings
    /// The zone in use.
    public var timeZone: TimeZone

    /// Changes whenever tonight's record or the settings change (within one process), so open pages know to refresh.
    public var revision: Int { NightLedger.revision(session: session, settings: settings) }
}

/// Night actions and status, each in one transaction of the night repository: load what the rules ask for → apply
/// what time made due → DoseCore decides → save → derive the status. The stored events stay the single source of
/// truth (D13); the repository only loads and saves.
public struct NightLedger: Sendable {
    /// The night tables of the store.
    public let repository: any NightRepository

    /// The ledger of a store's night tables.
    public init(repository: any NightRepository) { self.repository = repository }

    /// Performs an action. A refusal throws its `DoseError` and leaves the store exactly as it was. Actions of one
    /// person that arrive together commit together (`GroupCommit`), each as if it had run alone, in arrival order.
    ///
    /// - Parameters:
    ///   - eventID: a client's id for the recorded event (the API's `id`), so a replay is recognised.
    ///   - idempotency: the request's idempotency key; its response is stored in the same transaction as the action,
    ///     so a crash can never keep one without the other.
    ///   - surface: where the action came from: it answers the night's ringing alarms from there (nil records no
    ///     answer, for imports and tools).
    public func perform(
        _ action: NightAction, clock: StoreClock, eventID: EventID? = nil, idempotency: IdempotentRequest? = nil, surface: AlarmSurface? = nil
    ) throws -> ActionOutcome {
        // Actions that arrive while another commits share its transaction, each in a savepoint: one commit answers all.
        try repository.writeTogether { night in
            if let idempotency, let stored = try night.storedResponse(device: idempotency.device, key: idempotency.key) {
                // The same key arrived twice at once and the other request committed first: its answer is the answer.
                // Checked inside the write transaction, which the store serialises, so two requests can never both act.
                throw AlreadyAnswered(response: stored)
            }
            if let eventID, try night.isRecorded(eventID) {
                // A concurrent request with the same client event id committed first.
                throw EventAlreadyRecorded(id: eventID)
            }
            var action = action
            if action.surface == nil { action.surface = surface }
            var outcome = try Self.perform(action, clock: clock, eventID: eventID, night)
            let session = outcome.decision.session
            if let surface, action.source.isPerson, try Self.alarmsRinging(night: session.id, at: clock.now, night) {
                // A person's action answers the alarms that rang since the last answer, from where it came.
                try night.insertAlarmAnswer(
                    id: clock.makeID(), night: session.id, at: clock.now, surface: surface, eventID: outcome.decision.recorded.last?.id)
            }
            if let idempotency {
                let (status, body) = idempotency.render(outcome)
                let response = StoredResponse(requestHash: idempotency.requestHash, status: status, body: body)
                try night.storeResponse(response, device: idempotency.device, key: idempotency.key, at: clock.now)
                outcome.storedResponse = response
            }
            // An action either leaves its night open or there is no open night (it closed it, or it went to a closed one).
            night.keepOpenNight(session.isOpen ? session : nil)
            return outcome
        }
    }

    /// Whether the night's alarms rang since they were last answered (DoseCore decides from the log).
    static func alarmsRinging(night id: SessionID, at now: Date, _ night: any NightTransaction) throws -> Bool {
        let log = try night.alarmLog(night: id)
        return !LoggedReminder.unanswered(log.reminders, lastAnswer: log.lastAnswer, at: now).isEmpty
    }

    static func perform(_ action: NightAction, clock: StoreClock, eventID: EventID?, _ night: any NightTransaction) throws -> ActionOutcome {
        let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        var context = NightContext(now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        let (open, closed) = try Self.applyLifecycle(night, settings: settings, zone: zone, clock: clock)
        var action = action
        action.occurredAt = action.occurredAt.map(ISO8601.wholeMilliseconds)
        let facts = NightRules.factsNeeded(for: action, now: clock.now, settings: settings, catalogue: context.catalogue)
        if let span = facts.dosesWithin { context.nearbyDoses = try night.doses(within: span) }
        if let same = facts.sameEvents { context.nearbySameEvents = try night.sleepEvents(same.type, within: same.seconds, of: same.instant) }
        if let before = facts.usualEnvironmentBefore, case .checkIn(let answers) = action.kind {
            action.kind = .checkIn(try answers.resolvingSameAsUsual(with: try night.usualSleepEnvironment(before: before)))
        }
        let target = try Self.target(of: action, open: open, context: context, night)
        var decision = try NightRules.decide(action, session: target, context: context)
        if let actor = action.actor {
            for index in decision.recorded.indices { decision.recorded[index].metadata.actedBy = actor }
            for index in decision.session.events.indices where decision.recorded.contains(where: { $0.id == decision.session.events[index].id }) {
                decision.session.events[index].metadata.actedBy = actor
            }
        }
        if let eventID, let index = decision.recorded.indices.last {
            let generated = decision.recorded[index].id
            decision.recorded[index].id = eventID
            if let position = decision.session.events.firstIndex(where: { $0.id == generated }) { decision.session.events[position].id = eventID }
        }
        try Self.record(decision, action: action, settings: settings, clock: clock, night)
        let after = decision.session.isOpen ? decision.session : nil
        let status = try derive(after, clock: clock, settings: settings, zone: zone, night)
        return ActionOutcome(decision: decision, closedBefore: closed, status: status, settings: settings, timeZone: zone)
    }

    /// Tonight's status. Applying the lifecycle may record a sleep-through expiry or close a night; almost always
    /// nothing is due, and then the answer comes from a read, so status requests run side by side.
    public func status(clock: StoreClock) throws -> StatusSnapshot {
        if let unchanged = try repository.read({ night in try Self.snapshot(night, clock: clock, settling: false) }) { return unchanged }
        return try repository.write { night in try Self.snapshot(night, clock: clock, settling: true)! }
    }

    /// Tonight as of `clock`. Settling writes what the lifecycle made due; without it, nil means something is due.
    static func snapshot(_ night: any NightTransaction, clock: StoreClock, settling: Bool) throws -> StatusSnapshot? {
        let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        let open: NightSession?
        if settling {
            open = try applyLifecycle(night, settings: settings, zone: zone, clock: clock).open
        } else {
            open = try night.openNight()
            if let open, !SessionLifecycle.evaluate(open, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID).isEmpty {
                return nil
            }
        }
        return StatusSnapshot(
            status: try derive(open, clock: clock, settings: settings, zone: zone, night), session: open, settings: settings, timeZone: zone)
    }

    /// Tonight's status with what it depends on outside the night: the answers to its alarms and, before a Dose 1, the
    /// doses of a night that may still hold a new one back (D14, D17).
    static func derive(_ open: NightSession?, clock: StoreClock, settings: DoseSettings, zone: TimeZone, _ night: any NightTransaction) throws
        -> NightStatus
    {
        let hasDose1 = open.map { $0.facts.dose1 != nil } ?? false
        // Only a re-fire depends on the answers, so with re-fire off (the default) nothing is read.
        let answers = if let open, settings.wakeAlarmRefireMinutes > 0 { try night.alarmAnswers(night: open.id) } else { [Date]() }
        return NightStatus.derive(
            session: open, at: clock.now, settings: settings, timeZone: zone, acknowledgedAt: answers,
            recentDoses: hasDose1 ? [] : try night.dosesOfNights(withDoseAfter: NightRules.redoseLookback(before: clock.now), through: clock.now))
    }

    /// Applies what time has made due (expiry, close) before a read of history or an export, so a night past
    /// its cutoff never shows as open.
    public func settle(clock: StoreClock) throws {
        try repository.write { night in _ = try Self.settle(night, clock: clock) }
    }

    /// Applies what time has made due to the open night inside a transaction another store runs (a medication, an
    /// import, a pre-sleep log); what the store's own work needs.
    public static func settling(clock: StoreClock) -> NightSettling {
        { night in try settle(night, clock: clock) }
    }

    /// Settles, then the night a pre-sleep log at `at` joins: the open one, or nil for a new one; refused inside a
    /// night that has already closed (what `in_bed` would meet).
    public static func placingPreSleep(at occurredAt: Date?, clock: StoreClock) -> NightSettling {
        { night in
            let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            let open = try applyLifecycle(night, settings: settings, zone: zone, clock: clock).open
            let context = NightContext(now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
            return try target(of: NightAction(.log(event: "in_bed"), at: occurredAt), open: open, context: context, night)
        }
    }

    static func settle(_ night: any NightTransaction, clock: StoreClock) throws -> NightSession? {
        let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
        return try applyLifecycle(night, settings: settings, zone: clock.zone(settings), clock: clock).open
    }

    /// Applies what time has made due to the open night (SPEC D3, §3.2); returns it if still open.
    static func applyLifecycle(
        _ night: any NightTransaction, settings: DoseSettings, zone: TimeZone, clock: StoreClock
    ) throws -> (open: NightSession?, closed: [SessionClosure]) {
        guard let open = try night.openNight() else { return (nil, []) }
        let update = SessionLifecycle.evaluate(open, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        guard !update.isEmpty else { return (open, []) }
        if let expiry = update.expiry { try night.insert(expiry, night: open.id, checkIn: nil) }
        let session = SessionLifecycle.apply(update, to: open)
        try night.saveNight(session, closure: update.closure)
        return (session.isOpen ? session : nil, update.closure.map { [$0] } ?? [])
    }

    /// The night an action applies to. A check-in with no open night goes to the latest night without one that
    /// closed within the last day; any other action dated inside an already closed night is refused rather than
    /// silently starting a second night with the same date.
    static func target(of action: NightAction, open: NightSession?, context: NightContext, _ night: any NightTransaction) throws -> NightSession? {
        if let open { return open }
        let at = action.occurredAt ?? context.now
        if case .checkIn = action.kind {
            // DoseCore decides among the nights that closed within its window; the query only narrows the read.
            let closed = try night.nightsEnded(since: context.now.addingTimeInterval(-CheckInAttachment.window))
            return CheckInAttachment.night(among: closed.map { (session: $0.night, checkedIn: $0.checkedIn) }, now: context.now)
        }
        if let closed = try night.latestNightEnded(after: at) {
            throw DoseError.invalidInput(
                field: "at", problem: "\(ISO8601.string(at)) falls inside the night of \(closed.date), which is already closed",
                allowed: "a time after that night ended (\(ISO8601.string(closed.endedAt))); earlier nights are changed in history")
        }
        if case .log = action.kind {
            // A sleep event after the night's check-in (a bathroom trip at 06:30) belongs to that night: a night of its own
            // would be a second night of the same date without Dose 1.
            let date = SessionKey(for: at, in: context.timeZone)
            let ended = try night.nightsEnded(since: at.addingTimeInterval(-Self.sameDateLookback)).map(\.night)
            if let same = ended.first(where: { $0.date == date && $0.startedAt <= at }) { return same }
        }
        return nil
    }

    /// How far back a sleep event looks for the closed night of its own date: a session key spans at most a day.
    static let sameDateLookback: TimeInterval = 24 * 3600

    /// Writes a decision: the new night, its events, removals (with their audit entries), and the derived columns.
    static func record(_ decision: Decision, action: NightAction, settings: DoseSettings, clock: StoreClock, _ night: any NightTransaction) throws {
        let session = decision.session
        if decision.startedSession { try night.insertNight(session, timeZone: clock.zone(settings)) }
        let change: EventChange = if case .undo = action.kind { .undo } else { .superseded }
        for event in decision.removed {
            try night.delete(event)
            try night.audit(change, of: event, night: session.id, auditID: clock.makeID(), at: clock.now)
        }
        for event in decision.recorded { try night.insert(event, night: session.id, checkIn: decision.checkIn) }
        // D20: a dose taken past the night's limits is kept, and so is the fact that it was, in the audit log.
        // The night's facts are derived only when there is one, so every other action's path stays as it was.
        let takenAnyway = decision.recorded.filter(\.metadata.takenAnyway)
        if !takenAnyway.isEmpty {
            let facts = session.facts
            let regimen = facts.regimen(or: settings)
            let change = EventChange.takenAnyway(
                nightMilligrams: facts.takenMilligrams(regimen: regimen), maximumMilligrams: regimen.nightlyMaximumMilligrams)
            for event in takenAnyway { try night.audit(change, of: event, night: session.id, auditID: clock.makeID(), at: clock.now) }
        }
        try night.saveNight(session, closure: decision.closure)
    }

    /// A hash of tonight's record and the settings; equal values mean nothing a page shows has changed.
    static func revision(session: NightSession?, settings: DoseSettings) -> Int {
        var hasher = Hasher()
        hasher.combine(session)
        hasher.combine(settings)
        return hasher.finalize()
    }
}

extension AppDatabase {
    /// Night actions, status, settling and due reminders over this database: the alarm clock's hot path.
    public var ledger: NightLedger { NightLedger(repository: nights) }
}
