import DoseApp
import DoseCore
import Foundation

@testable import DoseStore

// Store tests set their scenes up through DoseApp's night service, as every surface does; these name the SQLite
// database underneath and give the stores the lifecycle step DoseApp gives them in the program.

extension NightLedger {
    /// The SQLite database under this ledger, which store tests read directly.
    var database: AppDatabase {
        guard let sqlite = repository as? SQLiteNightRepository else { fatalError("store tests run on SQLite") }
        return sqlite.database
    }
}

extension DataTransfer {
    /// Imports a file, settling the open night first as the program does, unpacking in the system's temporary folder.
    func importFile(at path: String, clock: StoreClock, scratchFolder: URL = FileManager.default.temporaryDirectory) throws -> ImportReport {
        try importFile(at: path, clock: clock, settling: NightLedger.settling(clock: clock), scratchFolder: scratchFolder)
    }
}

extension AppDatabase {
    /// Other medications, through DoseApp's ledger as every surface reaches them.
    var medications: FixtureMedications { FixtureMedications(ledger: ledger) }
    /// Pre-sleep logs and corrections, through DoseApp's ledger.
    var journal: FixtureJournal { FixtureJournal(ledger: ledger) }
}

/// Medication entries logged, corrected and deleted as the program does.
struct FixtureMedications {
    let ledger: NightLedger

    func log(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>, clock: StoreClock) throws -> [MedicationRecord] {
        try ledger.logMedications(inputs, confirmations: confirmations, clock: clock)
    }

    func edit(
        _ id: String, takenAt: Date?, amount: Double?, unit: DoseUnit?, note: String??, confirmations: Set<ConfirmKind>, clock: StoreClock
    ) throws -> MedicationRecord {
        try ledger.editMedication(id, takenAt: takenAt, amount: amount, unit: unit, note: note, confirmations: confirmations, clock: clock)
    }

    func delete(_ id: String, clock: StoreClock) throws -> MedicationRecord { try ledger.deleteMedication(id, clock: clock) }

    func list(on date: SessionKey? = nil, limit: Int = 100) throws -> [MedicationRecord] { try ledger.medications(on: date, limit: limit) }
}

/// The journal beside the night's events, as the program reaches it.
struct FixtureJournal {
    let ledger: NightLedger

    func savePreSleep(_ log: PreSleepLog, at occurredAt: Date?, note: String?, clock: StoreClock) throws -> SavedPreSleepLog {
        try ledger.savePreSleep(log, at: occurredAt, note: note, clock: clock)
    }

    func editCheckIn(on date: SessionKey, answers: MorningCheckIn, clock: StoreClock) throws -> MorningCheckIn {
        try ledger.editCheckIn(on: date, answers: answers, clock: clock)
    }

    func editEvent(_ id: EventID, occurredAt: Date?, note: String??, clock: StoreClock) throws -> EventEdit {
        try ledger.editEvent(id, occurredAt: occurredAt, note: note, clock: clock)
    }

    func deleteEvent(_ id: EventID, clock: StoreClock) throws -> EventEdit { try ledger.deleteEvent(id, clock: clock) }

    func recordedEvent(_ id: EventID) throws -> (event: NightEvent, session: NightSession)? { try ledger.recordedEvent(id) }
}

extension SupplyStore {
    /// Keeps a ledger entry through DoseApp's supply service, as every surface does.
    func log(_ entry: InventoryEntry, clock: StoreClock) throws -> InventoryEntry {
        try UseCases(database, clock: clock).supply.record(entry)
    }

    /// Deletes a ledger entry through DoseApp's supply service.
    func delete(_ id: String, clock: StoreClock) throws -> InventoryEntry { try UseCases(database, clock: clock).supply.delete(id) }
}

extension SettingsStore {
    /// Changes one setting through DoseApp's settings book, as every surface does.
    func update(_ key: String, to value: String, clock: StoreClock) throws -> DoseSettings {
        try update([(key, value)], clock: clock)
    }

    /// Changes several settings through DoseApp's settings book.
    func update(_ changes: [(key: String, value: String)], reason: String? = nil, clock: StoreClock) throws -> DoseSettings {
        try database.settingsBook.update(changes, reason: reason, clock: clock)
    }
}
