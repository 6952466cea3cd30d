public import DoseCore
public import Foundation
import GRDB

/// What every call needs from outside: the clock, a zone override, the machine's zone, and fresh ids.
public struct StoreClock: Sendable {
    /// The current instant.
    public var now: Date
    /// `--tz`: the zone for this call instead of the `time_zone` setting.
    public var timeZoneOverride: TimeZone?
    /// The machine's zone, the default of the `time_zone` setting.
    public var machineTimeZoneID: String
    /// Makes a fresh unique id.
    public var makeID: @Sendable () -> String
    /// Where secrets' random bytes come from.
    public var random: RandomSource

    /// A clock.
    public init(
        now: Date, timeZoneOverride: TimeZone? = nil, machineTimeZoneID: String, makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        // Whole milliseconds, the precision instants are stored with, so what a call decides in memory is exactly
        // what a later read of the database gives back.
        self.now = ISO8601.wholeMilliseconds(now)
        self.timeZoneOverride = timeZoneOverride
        self.machineTimeZoneID = machineTimeZoneID
        self.makeID = makeID
        self.random = random
    }

    /// The zone this call works in: `--tz` when given, else the `time_zone` setting. Decided here, once.
    public func zone(_ settings: DoseSettings) -> TimeZone { timeZoneOverride ?? settings.timeZone }
}

/// Where random bytes come from: the system's cryptographic generator in the program, anything a test likes in a test.
/// Passed in from the edge like the clock, so nothing below it makes randomness of its own.
public struct RandomSource: Sendable {
    /// `count` random bytes.
    public var bytes: @Sendable (Int) -> [UInt8]

    /// A source from a function.
    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) { self.bytes = bytes }

    /// The system's generator (`SystemRandomNumberGenerator`: the kernel's CSPRNG).
    public static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` random bytes as lowercase hex.
    public func hex(_ count: Int) -> String { bytes(count).hexString }
}

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
public struct AlreadyAnswered: Error, Sendable {
    /// What the first request was answered.
    public var response: StoredResponse
}

/// Thrown by `perform` when the client's event id is already recorded (a concurrent replay committed first). Nothing
/// was written.
public struct EventAlreadyRecorded: Error, Sendable {
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

/// Night actions and status, each in one write transaction: load → lifecycle → DoseCore decides → record →
/// rebuild derived rows. The stored events stay the single source of truth (D13).
public struct NightLedger: Sendable {
    /// The database.
    public let database: AppDatabase

    /// Performs an action. A refusal throws its `DoseError` and leaves the database exactly as it was.
    ///
    /// - Parameters:
    ///   - eventID: a client's id for the recorded event (the API's `id`), so a replay is recognised.
    ///   - idempotency: the request's idempotency key; its response is stored in the same transaction as the action,
    ///     so a crash can never keep one without the other.
    /// `surface` is where the action came from: it answers the night's ringing alarms from there (nil records no answer,
    /// for imports and tools).
    public func perform(
        _ action: NightAction, clock: StoreClock, eventID: EventID? = nil, idempotency: IdempotentRequest? = nil, surface: AlarmSurface? = nil
    ) throws -> ActionOutcome {
        let cache = database.openNight
        let (outcome, key) = try database.write { db in
            if let idempotency, let stored = try IdempotencyRecord.find(device: idempotency.device, key: idempotency.key, db) {
                // The same key arrived twice at once and the other request committed first: its answer is the answer.
                // Checked inside the write transaction, which SQLite serialises, so two requests can never both act.
                throw AlreadyAnswered(response: stored)
            }
            if let eventID, try NightRecords.sessionID(ofEvent: eventID, db) != nil {
                // A concurrent request with the same client event id committed first.
                throw EventAlreadyRecorded(id: eventID)
            }
            var action = action
            if action.surface == nil { action.surface = surface }
            var outcome = try Self.perform(action, clock: clock, eventID: eventID, cache: cache, db)
            if let surface, action.source.isPerson {
                try AlarmStore.acknowledgeAction(
                    session: outcome.decision.session.id, eventID: outcome.decision.recorded.last?.id, surface: surface, clock: clock, db)
            }
            if let idempotency {
                let (status, body) = idempotency.render(outcome)
                let response = StoredResponse(requestHash: idempotency.requestHash, status: status, body: body)
                try IdempotencyRecord(deviceID: idempotency.device, key: idempotency.key, response: response, at: clock.now).insert(db)
                outcome.storedResponse = response
            }
            return (outcome, try OpenNightCache.key(db))
        }
        // Only now, after the commit: a rolled-back action must never be remembered.
        // An action either leaves its night open or there is no open night (it closed it, or it went to a closed one).
        cache.remember(outcome.decision.session.isOpen ? outcome.decision.session : nil, at: key)
        return outcome
    }

    static func perform(_ action: NightAction, clock: StoreClock, eventID: EventID?, cache: OpenNightCache, _ db: Database) throws -> ActionOutcome {
        let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        var context = NightContext(now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        let (open, closed) = try Self.evaluateLifecycle(db, settings: settings, zone: zone, clock: clock, cache: cache)
        var action = action
        action.occurredAt = action.occurredAt.map(ISO8601.wholeMilliseconds)
        if case .dose1 = action.kind { context.nearbyDoses = try NightRecords.doses(near: action.occurredAt ?? clock.now, db) }
        let sleepType: String? =
            switch action.kind {
            case .log(let name): name
            case .wake: SleepEventType.wakeFinal.rawValue
            default: nil
            }
        if let sleepType, let definition = try? context.catalogue.resolve(sleepType) {
            let cooldown = TimeInterval(settings.cooldownSeconds(for: definition))
            if cooldown > 0 {
                context.nearbySameEvents = try NightRecords.sleepEvents(definition.type, within: cooldown, of: action.occurredAt ?? clock.now, db)
            }
        }
        if case .checkIn(let answers) = action.kind {
            action.kind = .checkIn(try NightJournal.resolvingSameAsUsual(answers, before: ISO8601.string(action.occurredAt ?? clock.now), db))
        }
        let target = try Self.target(of: action, open: open, context: context, db)
        var decision = try NightRules.decide(action, session: target, context: context)
        if let eventID, let index = decision.recorded.indices.last {
            let generated = decision.recorded[index].id
            decision.recorded[index].id = eventID
            if let position = decision.session.events.firstIndex(where: { $0.id == generated }) { decision.session.events[position].id = eventID }
        }
        try Self.record(decision, action: action, settings: settings, clock: clock, db)
        let after = decision.session.isOpen ? decision.session : nil
        let status = try derive(after, clock: clock, settings: settings, zone: zone, db)
        return ActionOutcome(decision: decision, closedBefore: closed, status: status, settings: settings, timeZone: zone)
    }

    /// Tonight's status. Evaluating the lifecycle may record a sleep-through expiry or close a night; almost always
    /// nothing is due, and then the answer comes from a reader, so status requests run side by side.
    public func status(clock: StoreClock) throws -> StatusSnapshot {
        if let unchanged = try database.read({ db in try Self.snapshot(db, clock: clock, settling: false) }) { return unchanged }
        return try database.write { db in try Self.snapshot(db, clock: clock, settling: true)! }
    }

    /// Tonight as of `clock`. Settling writes what the lifecycle made due; without it, nil means something is due.
    static func snapshot(_ db: Database, clock: StoreClock, settling: Bool) throws -> StatusSnapshot? {
        let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        let open: NightSession?
        if settling {
            open = try evaluateLifecycle(db, settings: settings, zone: zone, clock: clock).0
        } else {
            open = try NightRecords.openSession(db)
            if let open, !SessionLifecycle.evaluate(open, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID).isEmpty { return nil }
        }
        return StatusSnapshot(status: try derive(open, clock: clock, settings: settings, zone: zone, db), session: open, settings: settings, timeZone: zone)
    }

    /// Tonight's status with what it depends on outside the night: the answers to its alarms and, before a Dose 1, the
    /// doses of a night that may still hold a new one back (D14, D17).
    static func derive(_ open: NightSession?, clock: StoreClock, settings: DoseSettings, zone: TimeZone, _ db: Database) throws -> NightStatus {
        let hasDose1 = open.map { NightFacts($0.events).dose1 != nil } ?? false
        return NightStatus.derive(
            session: open, at: clock.now, settings: settings, timeZone: zone, acknowledgedAt: try AlarmStore.answers(to: open, settings: settings, db),
            recentDoses: hasDose1 ? [] : try NightRecords.dosesOfNights(before: clock.now, db))
    }

    /// Applies what time has made due (expiry, close) before a read of history or an export, so a night past
    /// its cutoff never shows as open.
    public func settle(clock: StoreClock) throws {
        try database.write { db in
            let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
            _ = try Self.evaluateLifecycle(db, settings: settings, zone: clock.zone(settings), clock: clock)
        }
    }

    /// Applies what time has made due to the open night (SPEC D3, §3.2); returns it if still open.
    static func evaluateLifecycle(
        _ db: Database, settings: DoseSettings, zone: TimeZone, clock: StoreClock,
        cache: OpenNightCache? = nil
    ) throws -> (NightSession?, [SessionClosure]) {
        let loaded = if let cache { try cache.openSession(db) } else { try NightRecords.openSession(db) }
        guard let open = loaded else { return (nil, []) }
        let update = SessionLifecycle.evaluate(open, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        guard !update.isEmpty else { return (open, []) }
        if let expiry = update.expiry {
            try NightRecords.insert(expiry, session: open.id, checkIn: nil, catalogue: .standard, db)
        }
        let session = SessionLifecycle.apply(update, to: open)
        try NightRecords.refreshSession(session, closure: update.closure, db)
        return (session.isOpen ? session : nil, update.closure.map { [$0] } ?? [])
    }

    /// The night an action applies to. A check-in with no open night goes to the latest night without one that
    /// closed within the last day; any other action dated inside an already closed night is refused rather than
    /// silently starting a second night with the same date.
    static func target(of action: NightAction, open: NightSession?, context: NightContext, _ db: Database) throws -> NightSession? {
        if let open { return open }
        let at = action.occurredAt ?? context.now
        if case .checkIn = action.kind {
            // DoseCore decides among the nights that closed within its window; the query only narrows the read.
            let since = ISO8601.string(context.now.addingTimeInterval(-CheckInAttachment.window))
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.*, EXISTS (SELECT 1 FROM morning_checkins c WHERE c.session_id = s.id) AS checked_in
                    FROM sleep_sessions s WHERE ended_at >= ? ORDER BY ended_at DESC
                    """, arguments: [since])
            let sessions = try NightRecords.sessions(from: rows, db)
            let closed = zip(sessions, rows).map { (session: $0, checkedIn: $1["checked_in"] as Bool) }
            return CheckInAttachment.night(among: closed, now: context.now)
        }
        if let row = try Row.fetchOne(
            db, sql: "SELECT session_date, ended_at FROM sleep_sessions WHERE ended_at > ? ORDER BY ended_at DESC LIMIT 1",
            arguments: [ISO8601.string(at)])
        {
            let date: String = row["session_date"]
            throw DoseError.invalidInput(
                field: "at", problem: "\(ISO8601.string(at)) falls inside the night of \(date), which is already closed",
                allowed: "a time after that night ended (\(row["ended_at"] as String)); earlier nights are changed in history")
        }
        return nil
    }

    /// Writes a decision: the new night, its events, removals (with their audit entries), and the derived columns.
    static func record(_ decision: Decision, action: NightAction, settings: DoseSettings, clock: StoreClock, _ db: Database) throws {
        let session = decision.session
        if decision.startedSession {
            try NightRecords.insertSession(session, timeZone: clock.zone(settings), db)
        }
        for event in decision.removed {
            try NightRecords.delete(event, db)
            let kind: AuditAction = if case .undo = action.kind { .undo } else { .superseded }
            try NightRecords.audit(
                kind, id: clock.makeID(), at: clock.now, session: session.id, entity: event.id.rawValue,
                details: NightRecords.auditDetails(of: event), db)
        }
        for event in decision.recorded {
            try NightRecords.insert(event, session: session.id, checkIn: decision.checkIn, catalogue: .standard, db)
        }
        try NightRecords.refreshSession(session, closure: decision.closure, db)
    }
}
