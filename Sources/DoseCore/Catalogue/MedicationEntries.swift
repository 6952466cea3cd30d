public import Foundation

/// One medication entry to log.
public struct MedicationInput: Sendable {
    public var medicationID: String
    public var amount: Double
    public var unit: DoseUnit
    public var takenAt: Date?
    public var note: String?

    public init(medicationID: String, amount: Double, unit: DoseUnit = .mg, takenAt: Date? = nil, note: String? = nil) {
        self.medicationID = medicationID
        self.amount = amount
        self.unit = unit
        self.takenAt = takenAt
        self.note = note
    }
}

/// A logged medication entry (SPEC §3.7).
public struct MedicationRecord: Sendable, Hashable {
    public var id: String
    public var medication: Medication
    public var doseMg: Double
    public var amount: Double
    public var unit: DoseUnit
    public var takenAt: Date
    public var recordedAt: Date
    public var timeZoneID: String
    public var utcOffsetMinutes: Int
    public var sessionDate: SessionKey
    /// The night it was taken in, when one is recorded with its date.
    public var sessionID: SessionID?
    public var note: String?
    /// Logged although another entry of the medication was within the duplicate guard, and confirmed.
    public var confirmedDuplicate: Bool
    /// Entries logged together share it.
    public var batchID: String

    /// An entry from every field.
    public init(
        id: String, medication: Medication, doseMg: Double, amount: Double, unit: DoseUnit, takenAt: Date, recordedAt: Date,
        timeZoneID: String, utcOffsetMinutes: Int, sessionDate: SessionKey, sessionID: SessionID?, note: String?, confirmedDuplicate: Bool,
        batchID: String
    ) {
        self.id = id
        self.medication = medication
        self.doseMg = doseMg
        self.amount = amount
        self.unit = unit
        self.takenAt = takenAt
        self.recordedAt = recordedAt
        self.timeZoneID = timeZoneID
        self.utcOffsetMinutes = utcOffsetMinutes
        self.sessionDate = sessionDate
        self.sessionID = sessionID
        self.note = note
        self.confirmedDuplicate = confirmedDuplicate
        self.batchID = batchID
    }
}

/// The rules of logging and correcting other medications: a batch is checked whole before any entry is kept.
public enum MedicationRules {
    /// Medication entries logged in one batch, at most.
    public static let batchLimit = 20

    /// The duplicate guard as an interval: stored entries strictly closer than this to a new one are duplicates.
    public static let duplicateGuard = TimeInterval(MedicationCatalogue.duplicateGuardMinutes * 60)

    /// Refuses an empty batch or one over the limit, before anything is read.
    public static func checkBatchSize(_ inputs: [MedicationInput]) throws(DoseError) {
        guard !inputs.isEmpty else { throw .invalidInput(field: "medication", problem: "no entry given", allowed: "one or more entries") }
        guard inputs.count <= batchLimit else {
            throw .invalidInput(field: "medication", problem: "\(inputs.count) entries", allowed: "at most \(batchLimit) in one batch")
        }
    }

    /// The span around a batch in which a stored entry can be a duplicate of one of its entries: what to load for
    /// `plan` (entries taken strictly inside it).
    public static func duplicateSpan(of inputs: [MedicationInput], now: Date) -> (after: Date, before: Date) {
        let times = inputs.map { $0.takenAt ?? now }
        return ((times.min() ?? now).addingTimeInterval(-duplicateGuard), (times.max() ?? now).addingTimeInterval(duplicateGuard))
    }

    /// Decides a batch: each entry's medication, dose and unit, time (never in the future), note, and the duplicate
    /// guard both ways against `stored` (times of stored entries by medication id, at least those in `duplicateSpan`)
    /// and the batch itself. The entries come without their night (`sessionID`), which the store finds by date.
    ///
    /// - Parameters:
    ///   - makeID: a new id for each entry, called in entry order after the batch's own id.
    public static func plan(
        _ inputs: [MedicationInput], stored: [String: [Date]], confirmations: Set<ConfirmKind>, now: Date, timeZone zone: TimeZone,
        makeID: () -> String
    ) throws(DoseError) -> [MedicationRecord] {
        try checkBatchSize(inputs)
        let batch = makeID()
        var records: [MedicationRecord] = []
        for input in inputs {
            let medication = try MedicationCatalogue.medication(id: input.medicationID)
            let milligrams = try MedicationCatalogue.validatedMilligrams(input.amount, unit: input.unit, for: medication)
            let takenAt = input.takenAt ?? now
            try NightRules.refuseFuture(takenAt, now: now)
            let earlier =
                (stored[medication.id] ?? []).filter { abs($0.timeIntervalSince(takenAt)) < duplicateGuard }
                + records.filter { $0.medication.id == medication.id }.map(\.takenAt)
            try MedicationCatalogue.checkDuplicate(medication, at: takenAt, existing: earlier, confirmations: confirmations, timeZone: zone)
            let isDuplicate = earlier.contains { abs($0.timeIntervalSince(takenAt)) < duplicateGuard }
            records.append(
                MedicationRecord(
                    id: makeID(), medication: medication, doseMg: milligrams, amount: input.amount, unit: input.unit, takenAt: takenAt,
                    recordedAt: now, timeZoneID: zone.identifier, utcOffsetMinutes: LocalClock.offsetMinutes(zone, at: takenAt),
                    sessionDate: SessionKey(for: takenAt, in: zone), sessionID: nil,
                    note: try TextLimits.validated(input.note, field: "note", limit: TextLimits.note), confirmedDuplicate: isDuplicate,
                    batchID: batch))
        }
        return records
    }

    /// Decides a correction of `entry`: a new amount or unit is checked as a dose, a new note against its limit, and a
    /// new time (never in the future) against the duplicate guard with `others` (the times of the medication's other
    /// entries near it), in the entry's own zone. A moved entry gets its new date; its night is the store's to find.
    public static func edit(
        _ entry: MedicationRecord, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, others: [Date],
        confirmations: Set<ConfirmKind>, now: Date
    ) throws(DoseError) -> MedicationRecord {
        var after = entry
        let zone = TimeZone(identifier: entry.timeZoneID) ?? TimeZone(secondsFromGMT: 0)!
        if let amount { after.amount = amount }
        if let unit { after.unit = unit }
        after.doseMg = try MedicationCatalogue.validatedMilligrams(after.amount, unit: after.unit, for: entry.medication)
        if let note { after.note = try TextLimits.validated(note, field: "note", limit: TextLimits.note) }
        if let takenAt {
            try NightRules.refuseFuture(takenAt, now: now)
            try MedicationCatalogue.checkDuplicate(entry.medication, at: takenAt, existing: others, confirmations: confirmations, timeZone: zone)
            after.takenAt = takenAt
            after.utcOffsetMinutes = LocalClock.offsetMinutes(zone, at: takenAt)
            after.sessionDate = SessionKey(for: takenAt, in: zone)
        }
        return after
    }

    /// What the audit log keeps of an entry that is corrected or deleted.
    public static func auditDetails(_ entry: MedicationRecord) -> [String: String] {
        var details = [
            "medication_id": entry.medication.id, "dose_mg": String(entry.doseMg), "taken_at": ISO8601.string(entry.takenAt),
            "dose_unit": entry.unit.rawValue, "dose_amount": String(entry.amount),
        ]
        if let note = entry.note { details["notes"] = note }
        return details
    }
}
