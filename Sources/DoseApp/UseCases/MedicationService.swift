public import DoseCore
public import DoseStore
public import Foundation

/// Other medications (SPEC §3.7): log a batch, list, correct and delete.
public struct MedicationService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The medication log at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// Logs a batch atomically; a probable duplicate needs its confirmation.
    public func log(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>) throws -> [MedicationRecord] {
        try MedicationLog(database).log(inputs, confirmations: confirmations, clock: clock)
    }

    /// Entries of one date, or the latest `limit`, newest first.
    public func list(on date: SessionKey? = nil, limit: Int = 100) throws -> [MedicationRecord] {
        try MedicationLog(database).list(on: date, limit: limit)
    }

    /// One entry by id.
    public func find(_ id: String) throws -> MedicationRecord {
        try MedicationLog(database).find(id)
    }

    /// Changes an entry's amount, time or note, audited.
    public func edit(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>
    ) throws -> MedicationRecord {
        try MedicationLog(database).edit(id, takenAt: takenAt, amount: amount, unit: unit, note: note, confirmations: confirmations, clock: clock)
    }

    /// Deletes an entry, audited.
    public func delete(_ id: String) throws -> MedicationRecord {
        try MedicationLog(database).delete(id, clock: clock)
    }
}
