public import DoseCore
public import DoseStore
public import Foundation

/// Tonight's use cases: act, read the status, and settle what time has made due. The CLI's night commands, the web
/// page, the action links and the API all come through here.
public struct NightService: Sendable {
    let app: UseCases

    /// Performs an action; a refusal throws its `DoseError` and changes nothing. `eventID` is a client's id for the
    /// recorded event; `idempotency` stores the response in the same transaction as the action. The action answers
    /// the night's ringing alarms, recorded as answered from `surface`.
    public func perform(
        _ action: NightAction, from surface: AlarmSurface, eventID: EventID? = nil, idempotency: IdempotentRequest? = nil
    ) throws -> ActionOutcome {
        try app.store.ledger.perform(action, clock: app.clock, eventID: eventID, idempotency: idempotency, surface: surface)
    }

    /// Tonight's status, after the lifecycle has been applied.
    public func status() throws -> StatusSnapshot {
        try app.store.ledger.status(clock: app.clock)
    }

    /// Tonight's status and the server outages during it (what Details and `GET /v1/night` show).
    public func tonight() throws -> (snapshot: StatusSnapshot, outages: [ServerOutage]) {
        let snapshot = try status()
        guard let night = snapshot.session else { return (snapshot, []) }
        let runs = try app.store.serverRuns.runs(startedAfter: night.startedAt)
        return (snapshot, ServerUptime.outages(of: runs, during: night, now: app.clock.now))
    }

    /// Applies what time has made due (expiry, close).
    public func settle() throws {
        try app.store.ledger.settle(clock: app.clock)
    }
}

/// The record of past nights: history, one date's nights, corrections, check-in edits and pre-sleep logs.
public struct RecordService: Sendable {
    let app: UseCases

    /// One page of history.
    public func history(_ query: HistoryQuery) throws -> HistoryPage {
        let query = try query.validated()
        try app.night.settle()
        return try app.store.historyPage(query)
    }

    /// The nights of one date (usually one; several after a nap or an early close).
    public func nights(on date: SessionKey) throws -> [NightRecord] {
        try app.night.settle()
        return try app.store.nights(on: date)
    }

    /// One night by its id.
    public func night(id: SessionID) throws -> NightRecord {
        try app.night.settle()
        guard let record = try app.store.night(id: id) else {
            throw DoseError.notFound(what: "A night with the id '\(id)'")
        }
        return record
    }

    /// The nights a person names by id or by date (YYYY-MM-DD): by id exactly one, by date every night of it.
    public func nights(named text: String) throws -> [NightRecord] {
        if let date = SessionKey(parsing: text) {
            let nights = try nights(on: date)
            guard !nights.isEmpty else { throw DoseError.notFound(what: "A night dated \(date)") }
            return nights
        }
        let idCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-".unicodeScalars)
        guard (1...64).contains(text.unicodeScalars.count), text.unicodeScalars.allSatisfy(idCharacters.contains) else {
            throw DoseError.invalidInput(
                field: "night", problem: "'\(text.prefix(64))' is neither a date nor a night's id",
                allowed: "a date YYYY-MM-DD or a night's id (session_id)")
        }
        return [try night(id: SessionID(rawValue: text))]
    }

    /// Clear Old's nights: every night dated more than `days` days before tonight's date.
    public func olderThan(days: Int) throws -> NightSelection {
        .before(SessionKey(for: app.clock.now, in: try app.settings.zone()).adding(days: -days))
    }

    /// What deleting `selection` would remove (nights, events, dates), removing nothing.
    public func deletionPreview(_ selection: NightSelection) throws -> NightDeletionSummary {
        let refusing = try deletionRefusals()
        try app.night.settle()
        return try app.store.ledger.repository.read { try NightDeletion.chosen(selection, refusing: refusing, in: $0).summary }
    }

    /// Deletes the selected ended nights and every trace of them, audited by date and `surface` (`cli`, `api`, `web`).
    public func deleteNights(_ selection: NightSelection, surface: String) throws -> NightDeletionSummary {
        let refusing = try deletionRefusals()
        try app.night.settle()
        let summary = try app.store.ledger.repository.write {
            try NightDeletion.delete(selection, surface: surface, refusing: refusing, clock: app.clock, in: $0)
        }
        // A file keeps deleted bytes in its free pages and WAL until rewritten; PostgreSQL's own vacuum reclaims its pages.
        try app.store.sqliteFile?.scrubFiles()
        return summary
    }

    /// DoseCore's refusals of a deletion as of now: tonight's night, and a night whose dose still holds back a new
    /// Dose 1 (D14), in the person's zone.
    private func deletionRefusals() throws -> NightDeletionCheck {
        let (now, zone) = (app.clock.now, try app.settings.zone())
        return { nights in try NightRules.refuseDeletion(of: nights, now: now, timeZone: zone) }
    }

    /// Moves a recorded event or changes its note; the night's rules are checked again.
    public func editEvent(_ id: EventID, occurredAt: Date?, note: String??) throws -> EventEdit {
        try app.night.settle()
        return try app.store.ledger.editEvent(id, occurredAt: occurredAt, note: note, clock: app.clock)
    }

    /// Deletes a recorded event, audited.
    public func deleteEvent(_ id: EventID) throws -> EventEdit {
        try app.night.settle()
        return try app.store.ledger.deleteEvent(id, clock: app.clock)
    }

    /// Replaces the check-in of a date's night.
    public func editCheckIn(on date: SessionKey, answers: MorningCheckIn) throws -> MorningCheckIn {
        try app.store.ledger.editCheckIn(on: date, answers: answers, clock: app.clock)
    }

    /// Saves a pre-sleep log (now, or at `occurredAt`).
    public func savePreSleep(_ log: PreSleepLog, at occurredAt: Date?, note: String?) throws -> SavedPreSleepLog {
        try app.store.ledger.savePreSleep(log, at: occurredAt, note: note, clock: app.clock)
    }

    /// Whether a check-in may answer "same as usual" for the sleep environment.
    public func hasUsualSleepEnvironment() throws -> Bool {
        try app.store.ledger.hasUsualSleepEnvironment()
    }

    /// A recorded event and its night, by id (a replayed API request finds what it recorded).
    public func recordedEvent(_ id: EventID) throws -> (event: NightEvent, session: NightSession)? {
        try app.store.ledger.recordedEvent(id)
    }
}

/// Other medications (SPEC §3.7): log a batch, list, correct and delete.
public struct MedicationService: Sendable {
    let app: UseCases

    /// Logs a batch atomically; a probable duplicate needs its confirmation.
    public func log(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>) throws -> [MedicationRecord] {
        try app.store.ledger.logMedications(inputs, confirmations: confirmations, clock: app.clock)
    }

    /// Entries of one date, or the latest `limit`, newest first.
    public func list(on date: SessionKey? = nil, limit: Int = 100) throws -> [MedicationRecord] {
        try app.store.ledger.medications(on: date, limit: limit)
    }

    /// One entry by id.
    public func find(_ id: String) throws -> MedicationRecord {
        try app.store.ledger.medication(id)
    }

    /// Changes an entry's amount, time or note, audited.
    public func edit(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>
    ) throws -> MedicationRecord {
        try app.store.ledger.editMedication(
            id, takenAt: takenAt, amount: amount, unit: unit, note: note, confirmations: confirmations, clock: app.clock)
    }

    /// Deletes an entry, audited.
    public func delete(_ id: String) throws -> MedicationRecord {
        try app.store.ledger.deleteMedication(id, clock: app.clock)
    }
}
