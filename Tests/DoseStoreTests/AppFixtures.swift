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

extension MedicationLog {
    /// Logs a batch, settling the open night first as the program does.
    func log(_ inputs: [MedicationInput], confirmations: Set<ConfirmKind>, clock: StoreClock) throws -> [MedicationRecord] {
        try log(inputs, confirmations: confirmations, clock: clock, settling: NightLedger.settling(clock: clock))
    }
}

extension NightJournal {
    /// Saves a pre-sleep log, placed in its night as the program does.
    func savePreSleep(_ log: PreSleepLog, at occurredAt: Date?, note: String?, clock: StoreClock) throws -> SavedPreSleepLog {
        try savePreSleep(log, at: occurredAt, note: note, clock: clock, placing: NightLedger.placingPreSleep(at: occurredAt, clock: clock))
    }
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

extension NightJournal {
    /// Corrects an event through DoseApp's ledger, as every surface does.
    func editEvent(_ id: EventID, occurredAt: Date?, note: String??, clock: StoreClock) throws -> EventEdit {
        try database.ledger.editEvent(id, occurredAt: occurredAt, note: note, clock: clock)
    }

    /// Deletes an event through DoseApp's ledger.
    func deleteEvent(_ id: EventID, clock: StoreClock) throws -> EventEdit {
        try database.ledger.deleteEvent(id, clock: clock)
    }
}
