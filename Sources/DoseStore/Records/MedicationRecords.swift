public import DoseCore
public import Foundation
public import GRDB

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
