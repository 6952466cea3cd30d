public import DoseCore
public import Foundation
public import GRDB

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

/// A stored medication entry.
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
    public var sessionID: SessionID?
    public var note: String?
    public var confirmedDuplicate: Bool
    public var batchID: String
}

extension MedicationRecord: FetchableRecord, PersistableRecord {
    /// The table of medication entries.
    public static let databaseTableName = "medication_events"

    /// The columns of `medication_events`.
    public enum Columns: String, ColumnExpression {
        case id
        case sessionID = "session_id"
        case sessionDate = "session_date"
        case medicationID = "medication_id"
        case doseMg = "dose_mg"
        case amount = "dose_amount"
        case unit = "dose_unit"
        case formulation
        case takenAt = "taken_at"
        case recordedAt = "recorded_at"
        case utcOffsetMinutes = "utc_offset_minutes"
        case timeZone = "time_zone"
        case source
        case note = "notes"
        case confirmedDuplicate = "confirmed_duplicate"
        case batchID = "batch_id"
    }

    /// An entry from its row; a medication the catalogue no longer knows is refused as an invalid file.
    public init(row: Row) throws {
        self.init(
            id: row[Columns.id], medication: try MedicationCatalogue.medication(id: row[Columns.medicationID]), doseMg: row[Columns.doseMg],
            amount: row[Columns.amount], unit: DoseUnit(rawValue: row[Columns.unit]) ?? .mg, takenAt: NightRecords.instant(row[Columns.takenAt]),
            recordedAt: NightRecords.instant(row[Columns.recordedAt]), timeZoneID: row[Columns.timeZone],
            utcOffsetMinutes: row[Columns.utcOffsetMinutes],
            sessionDate: SessionKey(parsing: row[Columns.sessionDate]) ?? SessionKey(year: 1970, month: 1, day: 1)!,
            sessionID: (row[Columns.sessionID] as String?).map(SessionID.init(rawValue:)), note: row[Columns.note],
            confirmedDuplicate: row[Columns.confirmedDuplicate], batchID: row[Columns.batchID])
    }

    /// The entry's row; entries are only ever logged by the person (`source` user).
    public func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.sessionID] = sessionID?.rawValue
        container[Columns.sessionDate] = sessionDate.description
        container[Columns.medicationID] = medication.id
        container[Columns.doseMg] = doseMg
        container[Columns.amount] = amount
        container[Columns.unit] = unit.rawValue
        container[Columns.formulation] = medication.formulation.rawValue
        container[Columns.takenAt] = ISO8601.string(takenAt)
        container[Columns.recordedAt] = ISO8601.string(recordedAt)
        container[Columns.utcOffsetMinutes] = utcOffsetMinutes
        container[Columns.timeZone] = timeZoneID
        container[Columns.source] = "user"
        container[Columns.note] = note
        container[Columns.confirmedDuplicate] = confirmedDuplicate
        container[Columns.batchID] = batchID
    }
}

/// Other medications taken (SPEC §3.7): logged in batches, listed, corrected and deleted, each change audited.
public struct MedicationLog: Sendable {
    let database: AppDatabase

    /// Medication entries logged in one batch, at most.
    public static let batchLimit = 20

    /// Logs one or several medications as one atomic batch: every entry is checked (catalogue, dose and unit, the
    /// 5-minute duplicate guard against stored entries and the batch itself) before any is written.
    public func log(
        _ inputs: [MedicationInput], confirmations: Set<ConfirmKind>, clock: StoreClock, settling: NightSettling
    ) throws -> [MedicationRecord] {
        guard !inputs.isEmpty else { throw DoseError.invalidInput(field: "medication", problem: "no entry given", allowed: "one or more entries") }
        guard inputs.count <= Self.batchLimit else {
            throw DoseError.invalidInput(field: "medication", problem: "\(inputs.count) entries", allowed: "at most \(Self.batchLimit) in one batch")
        }
        return try database.write { db in
            let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            _ = try settling(SQLiteNightTransaction(db: db, cache: nil))
            let batch = clock.makeID()
            var records: [MedicationRecord] = []
            for input in inputs {
                let medication = try MedicationCatalogue.medication(id: input.medicationID)
                let milligrams = try MedicationCatalogue.validatedMilligrams(input.amount, unit: input.unit, for: medication)
                let takenAt = input.takenAt ?? clock.now
                try NightRules.refuseFuture(takenAt, now: clock.now)
                let window = ISO8601.string(takenAt.addingTimeInterval(-Double(MedicationCatalogue.duplicateGuardMinutes * 60)))
                let windowEnd = ISO8601.string(takenAt.addingTimeInterval(Double(MedicationCatalogue.duplicateGuardMinutes * 60)))
                let stored = try String.fetchAll(
                    db, sql: "SELECT taken_at FROM medication_events WHERE medication_id = ? AND taken_at > ? AND taken_at < ?",
                    arguments: [medication.id, window, windowEnd]
                ).map(NightRecords.instant)
                let earlier = stored + records.filter { $0.medication.id == medication.id }.map(\.takenAt)
                try MedicationCatalogue.checkDuplicate(medication, at: takenAt, existing: earlier, confirmations: confirmations, timeZone: zone)
                let isDuplicate = earlier.contains { abs($0.timeIntervalSince(takenAt)) < Double(MedicationCatalogue.duplicateGuardMinutes * 60) }
                let key = SessionKey(for: takenAt, in: zone)
                let sessionID = try String.fetchOne(
                    db, sql: "SELECT id FROM sleep_sessions WHERE session_date = ? ORDER BY started_at DESC LIMIT 1",
                    arguments: [key.description]
                ).map(SessionID.init(rawValue:))
                records.append(
                    MedicationRecord(
                        id: clock.makeID(), medication: medication, doseMg: milligrams, amount: input.amount, unit: input.unit, takenAt: takenAt,
                        recordedAt: clock.now, timeZoneID: zone.identifier, utcOffsetMinutes: LocalClock.offsetMinutes(zone, at: takenAt),
                        sessionDate: key, sessionID: sessionID, note: try TextLimits.validated(input.note, field: "note", limit: TextLimits.note),
                        confirmedDuplicate: isDuplicate, batchID: batch))
            }
            for record in records { try record.insert(db) }
            return records
        }
    }

    /// Medication entries, newest first, optionally of one night.
    public func list(on date: SessionKey? = nil, limit: Int = 100) throws -> [MedicationRecord] {
        try database.read { db in
            var request = MedicationRecord.order(MedicationRecord.Columns.takenAt.desc).limit(limit)
            if let date { request = request.filter(MedicationRecord.Columns.sessionDate == date.description) }
            return try request.fetchAll(db)
        }
    }

    /// One medication entry by id.
    public func find(_ id: String) throws -> MedicationRecord {
        try database.read { db in
            guard let record = try MedicationRecord.fetchOne(db, key: id) else { throw DoseError.notFound(what: "A medication entry with id \(id)") }
            return record
        }
    }

    /// Changes the time, amount or note of an entry, re-checking dose and duplicates; audited.
    public func edit(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>,
        clock: StoreClock
    ) throws -> MedicationRecord {
        try database.write { db in
            guard let before = try MedicationRecord.fetchOne(db, key: id) else { throw DoseError.notFound(what: "A medication entry with id \(id)") }
            var after = before
            let zone = TimeZone(identifier: before.timeZoneID) ?? TimeZone(secondsFromGMT: 0)!
            if let amount { after.amount = amount }
            if let unit { after.unit = unit }
            after.doseMg = try MedicationCatalogue.validatedMilligrams(after.amount, unit: after.unit, for: before.medication)
            if let note { after.note = try TextLimits.validated(note, field: "note", limit: TextLimits.note) }
            if let takenAt {
                try NightRules.refuseFuture(takenAt, now: clock.now)
                let others = try String.fetchAll(
                    db, sql: "SELECT taken_at FROM medication_events WHERE medication_id = ? AND id != ?",
                    arguments: [before.medication.id, id]
                ).map(NightRecords.instant)
                try MedicationCatalogue.checkDuplicate(before.medication, at: takenAt, existing: others, confirmations: confirmations, timeZone: zone)
                after.takenAt = takenAt
                after.utcOffsetMinutes = LocalClock.offsetMinutes(zone, at: takenAt)
                after.sessionDate = SessionKey(for: takenAt, in: zone)
                after.sessionID = try String.fetchOne(
                    db, sql: "SELECT id FROM sleep_sessions WHERE session_date = ? ORDER BY started_at DESC LIMIT 1",
                    arguments: [after.sessionDate.description]
                ).map(SessionID.init(rawValue:))
            }
            try db.execute(sql: "DELETE FROM medication_events WHERE id = ?", arguments: [id])
            try after.insert(db)
            try NightRecords.audit(
                .editMedication, id: clock.makeID(), at: clock.now, session: before.sessionID, entity: id,
                details: Self.auditDetails(before).merging([
                    "new_taken_at": ISO8601.string(after.takenAt),
                    "new_dose_mg": String(after.doseMg),
                ]) { $1 }, db)
            return after
        }
    }

    /// Deletes an entry, keeping it in the audit log.
    public func delete(_ id: String, clock: StoreClock) throws -> MedicationRecord {
        try database.write { db in
            guard let record = try MedicationRecord.fetchOne(db, key: id) else { throw DoseError.notFound(what: "A medication entry with id \(id)") }
            try record.delete(db)
            try NightRecords.audit(
                .deleteMedication, id: clock.makeID(), at: clock.now, session: record.sessionID, entity: id,
                details: Self.auditDetails(record), db)
            return record
        }
    }

    static func auditDetails(_ record: MedicationRecord) -> [String: String] {
        var details = [
            "medication_id": record.medication.id, "dose_mg": String(record.doseMg), "taken_at": ISO8601.string(record.takenAt),
            "dose_unit": record.unit.rawValue, "dose_amount": String(record.amount),
        ]
        if let note = record.note { details["notes"] = note }
        return details
    }
}
