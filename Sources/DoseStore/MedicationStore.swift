public import DoseCore
public import Foundation
import GRDB

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

/// Other medications taken (SPEC §3.7): logged in batches, listed, corrected and deleted, each change audited.
public struct MedicationLog: Sendable {
    let database: AppDatabase

    /// A medication log over a database.
    public init(_ database: AppDatabase) { self.database = database }

    /// Medication entries logged in one batch, at most.
    public static let batchLimit = 20

    /// Logs one or several medications as one atomic batch: every entry is checked (catalogue, dose and unit, the
    /// 5-minute duplicate guard against stored entries and the batch itself) before any is written.
    public func log(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>, clock: StoreClock) throws -> [MedicationRecord] {
        guard !inputs.isEmpty else { throw DoseError.invalidInput(field: "medication", problem: "no entry given", allowed: "one or more entries") }
        guard inputs.count <= Self.batchLimit else {
            throw DoseError.invalidInput(field: "medication", problem: "\(inputs.count) entries", allowed: "at most \(Self.batchLimit) in one batch")
        }
        return try database.write { db in
            let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            _ = try NightLedger.evaluateLifecycle(db, settings: settings, zone: zone, clock: clock)
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
            for record in records { try Self.insert(record, db) }
            return records
        }
    }

    /// Medication entries, newest first, optionally of one night.
    public func list(on date: SessionKey? = nil, limit: Int = 100) throws -> [MedicationRecord] {
        try database.read { db in
            let rows =
                if let date {
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM medication_events WHERE session_date = ? ORDER BY taken_at DESC LIMIT ?", arguments: [date.description, limit])
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM medication_events ORDER BY taken_at DESC LIMIT ?", arguments: [limit])
                }
            return try rows.map(Self.medicationRecord)
        }
    }

    /// One medication entry by id.
    public func find(_ id: String) throws -> MedicationRecord {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM medication_events WHERE id = ?", arguments: [id]) else {
                throw DoseError.notFound(what: "A medication entry with id \(id)")
            }
            return try Self.medicationRecord(row)
        }
    }

    /// Changes the time, amount or note of an entry, re-checking dose and duplicates; audited.
    public func edit(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>,
        clock: StoreClock
    ) throws -> MedicationRecord {
        try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM medication_events WHERE id = ?", arguments: [id]) else {
                throw DoseError.notFound(what: "A medication entry with id \(id)")
            }
            let before = try Self.medicationRecord(row)
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
            try Self.insert(after, db)
            try NightRecords.audit(
                "edit_medication", id: clock.makeID(), at: clock.now, session: before.sessionID, entity: id,
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
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM medication_events WHERE id = ?", arguments: [id]) else {
                throw DoseError.notFound(what: "A medication entry with id \(id)")
            }
            let record = try Self.medicationRecord(row)
            try db.execute(sql: "DELETE FROM medication_events WHERE id = ?", arguments: [id])
            try NightRecords.audit(
                "delete_medication", id: clock.makeID(), at: clock.now, session: record.sessionID, entity: id,
                details: Self.auditDetails(record), db)
            return record
        }
    }

    static func insert(_ record: MedicationRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO medication_events (id, session_id, session_date, medication_id, dose_mg, dose_amount, dose_unit, formulation, taken_at,
                    recorded_at, utc_offset_minutes, time_zone, source, notes, confirmed_duplicate, batch_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'user', ?, ?, ?)
                """,
            arguments: [
                record.id, record.sessionID?.rawValue, record.sessionDate.description, record.medication.id, record.doseMg,
                record.amount, record.unit.rawValue, record.medication.formulation.rawValue, ISO8601.string(record.takenAt),
                ISO8601.string(record.recordedAt), record.utcOffsetMinutes, record.timeZoneID, record.note, record.confirmedDuplicate,
                record.batchID,
            ])
    }

    static func medicationRecord(_ row: Row) throws -> MedicationRecord {
        MedicationRecord(
            id: row["id"], medication: try MedicationCatalogue.medication(id: row["medication_id"]), doseMg: row["dose_mg"], amount: row["dose_amount"],
            unit: DoseUnit(rawValue: row["dose_unit"]) ?? .mg, takenAt: NightRecords.instant(row["taken_at"]),
            recordedAt: NightRecords.instant(row["recorded_at"]), timeZoneID: row["time_zone"], utcOffsetMinutes: row["utc_offset_minutes"],
            sessionDate: SessionKey(parsing: row["session_date"]) ?? SessionKey(year: 1970, month: 1, day: 1)!,
            sessionID: (row["session_id"] as String?).map(SessionID.init(rawValue:)), note: row["notes"],
            confirmedDuplicate: row["confirmed_duplicate"], batchID: row["batch_id"])
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
