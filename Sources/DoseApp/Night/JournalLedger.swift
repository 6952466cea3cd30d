public import DoseCore
public import DoseStore
public import Foundation

/// A saved pre-sleep log and the night it belongs to.
public struct SavedPreSleepLog: Sendable {
    public var id: String
    public var sessionID: SessionID
    public var sessionDate: SessionKey
    public var log: PreSleepLog
    public var completion: PreSleepCompletion
    /// True when saving it started tonight's session.
    public var startedSession: Bool
    /// True when it replaced an earlier log of the same night.
    public var replaced: Bool
}

/// The journal beside the night's events, each in one transaction of the night repository with the shape of an action:
/// load what the rule needs, DoseCore decides, save. The same code runs on either store.
extension NightLedger {
    /// Logs a batch of other medications atomically, after what time made due to the open night is applied: every entry
    /// is checked (catalogue, dose and unit, time, and the duplicate guard both ways) before any is kept.
    public func logMedications(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>, clock: StoreClock) throws -> [MedicationRecord] {
        try MedicationRules.checkBatchSize(inputs)
        return try repository.write { night in
            let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
            _ = try Self.settle(night, clock: clock)
            let span = MedicationRules.duplicateSpan(of: inputs, now: clock.now)
            let stored = try night.medicationTimes(of: Set(inputs.map(\.medicationID)), after: span.after, before: span.before, excluding: nil)
            var entries = try MedicationRules.plan(
                inputs, stored: stored, confirmations: confirmations, now: clock.now, timeZone: clock.zone(settings), makeID: clock.makeID)
            let nights = try night.nightIDs(dated: Set(entries.map(\.sessionDate)))
            for index in entries.indices { entries[index].sessionID = nights[entries[index].sessionDate] }
            try night.insertMedications(entries)
            return entries
        }
    }

    /// Medication entries of one date, or the latest `limit`, newest first.
    public func medications(on date: SessionKey?, limit: Int) throws -> [MedicationRecord] {
        try repository.read { night in try night.medications(on: date, limit: limit) }
    }

    /// One medication entry by id; `404_NOT_FOUND` when there is none.
    public func medication(_ id: String) throws -> MedicationRecord {
        try repository.read { night in try Self.medication(id, night) }
    }

    /// Corrects an entry's time, amount or note, checked again as a new entry is; audited.
    public func editMedication(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>, clock: StoreClock
    ) throws -> MedicationRecord {
        try repository.write { night in
            let before = try Self.medication(id, night)
            // Only a moved entry can come near another of its medication.
            var others: [Date] = []
            if let takenAt {
                let guardSpan = MedicationRules.duplicateGuard
                others =
                    try night.medicationTimes(
                        of: [before.medication.id], after: takenAt.addingTimeInterval(-guardSpan), before: takenAt.addingTimeInterval(guardSpan),
                        excluding: id)[before.medication.id] ?? []
            }
            var after = try MedicationRules.edit(
                before, takenAt: takenAt, amount: amount, unit: unit, note: note, others: others, confirmations: confirmations, now: clock.now)
            if takenAt != nil { after.sessionID = try night.nightIDs(dated: [after.sessionDate])[after.sessionDate] }
            try night.deleteMedication(id: id)
            try night.insertMedications([after])
            try night.audit(
                .editMedication, id: clock.makeID(), at: clock.now, night: before.sessionID, entity: id,
                details: MedicationRules.auditDetails(before).merging([
                    "new_taken_at": ISO8601.string(after.takenAt), "new_dose_mg": String(after.doseMg),
                ]) {
                    $1
                })
            return after
        }
    }

    /// Deletes an entry, keeping it in the audit log.
    public func deleteMedication(_ id: String, clock: StoreClock) throws -> MedicationRecord {
        try repository.write { night in
            let entry = try Self.medication(id, night)
            try night.deleteMedication(id: id)
            try night.audit(
                .deleteMedication, id: clock.makeID(), at: clock.now, night: entry.sessionID, entity: id, details: MedicationRules.auditDetails(entry)
            )
            return entry
        }
    }

    private static func medication(_ id: String, _ night: any NightTransaction) throws -> MedicationRecord {
        guard let entry = try night.medication(id: id) else { throw DoseError.notFound(what: "A medication entry with id \(id)") }
        return entry
    }

    /// Saves tonight's pre-sleep log (D11): it joins the open night or starts one; saving again replaces it, audited.
    public func savePreSleep(_ log: PreSleepLog, at occurredAt: Date?, note: String?, clock: StoreClock) throws -> SavedPreSleepLog {
        let log = try log.validated()
        let note = try TextLimits.validated(note, field: "note", limit: TextLimits.note)
        return try repository.write { night in
            let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            let at = occurredAt ?? clock.now
            try NightRules.refuseFuture(at, now: clock.now)
            var session = try Self.placingPreSleep(at: occurredAt, clock: clock)(night)
            let started = session == nil
            if session == nil {
                let new = NightSession(id: SessionID(rawValue: clock.makeID()), date: SessionKey(for: at, in: zone), startedAt: at)
                try night.insertNight(new, timeZone: zone)
                session = new
            }
            guard let session else { throw DoseError.notFound(what: "A night") }
            let previous = try night.preSleepLog(night: session.id)
            if let previous {
                try night.deletePreSleepLog(id: previous.id)
                try night.audit(
                    .replacePreSleep, id: clock.makeID(), at: clock.now, night: session.id, entity: previous.id,
                    details: ["answers_json": previous.answersJSON, "completion_state": previous.completion])
            }
            let id = clock.makeID()
            try night.insertPreSleepLog(
                PreSleepEntry(id: id, night: session.id, occurredAt: at, recordedAt: clock.now, timeZone: zone, note: note, log: log))
            return SavedPreSleepLog(
                id: id, sessionID: session.id, sessionDate: session.date, log: log, completion: log.completion, startedSession: started,
                replaced: previous != nil)
        }
    }

    /// Replaces the latest check-in of a date's nights; "same as usual" takes the environment of the check-in before it.
    public func editCheckIn(on date: SessionKey, answers: MorningCheckIn, clock: StoreClock) throws -> MorningCheckIn {
        let answers = try answers.validated()
        return try repository.write { night in
            guard let stored = try night.latestCheckIn(ofNightDated: date) else {
                throw DoseError.notFound(what: "A check-in for the night of \(date)")
            }
            let resolved =
                answers.environment?.sameAsUsual == true
                ? try answers.resolvingSameAsUsual(with: try night.usualSleepEnvironment(before: stored.occurredAt)) : answers
            try night.rewriteCheckIn(stored.id, answers: resolved)
            try night.audit(
                .editCheckIn, id: clock.makeID(), at: clock.now, night: stored.night, entity: stored.id.rawValue,
                details: ["before": try AuditDetails.json(stored.answers), "after": try AuditDetails.json(resolved)])
            return resolved
        }
    }

    /// Whether a check-in may answer "same as usual" for the sleep environment.
    public func hasUsualSleepEnvironment() throws -> Bool {
        try repository.read { night in try night.hasSleepEnvironment() }
    }

    /// A recorded event and its night, by id (a replayed API request finds what it recorded).
    public func recordedEvent(_ id: EventID) throws -> (event: NightEvent, session: NightSession)? {
        try repository.read { night in
            guard let session = try night.night(holding: id), let event = session.events.first(where: { $0.id == id }) else { return nil }
            return (event, session)
        }
    }

    /// "I'm up" from `surface`: answers the open night's alarms that rang since the last answer (DoseCore decides which
    /// from the log), and records the answer, which also ends a wake alarm's re-fire.
    public func acknowledgeAlarms(from surface: AlarmSurface, clock: StoreClock) throws -> (night: SessionID?, answered: [LoggedReminder]) {
        try repository.write { night in
            guard let open = try night.openNight() else { return (nil, []) }
            let log = try night.alarmLog(night: open.id)
            let answered = LoggedReminder.unanswered(log.reminders, lastAnswer: log.lastAnswer, at: clock.now)
            try night.insertAlarmAnswer(id: clock.makeID(), night: open.id, at: clock.now, surface: surface, eventID: nil)
            night.keepOpenNight(open)
            return (open.id, answered)
        }
    }

    /// A night's alarm log: what rang, where each attempt went, and who answered.
    public func alarmLog(night: SessionID) throws -> NightAlarmLog {
        try repository.read { records in try records.alarmRecords(night: night) }
    }

    /// The attempts of the latest test alarm.
    public func lastTestDeliveries() throws -> [AlarmDeliveryRecord] {
        try repository.read { records in try records.lastTestDeliveries() }
    }
}
