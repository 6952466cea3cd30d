public import DoseCore
public import DoseStore
public import Foundation

/// Records in and out: the CSV exports, the backup bundle, imports, and Clear All Data.
public struct TransferService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// Transfers at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// events.csv (SSOT CSV v1): every event, oldest first.
    public func eventsCSV() throws -> String {
        try DataTransfer(database).eventsCSV(clock: clock)
    }

    /// The analytics CSV, one row per night with Dose 1, in the call's zone.
    public func analyticsCSV(from: SessionKey? = nil, to: SessionKey? = nil) throws -> String {
        try DataTransfer(database).analyticsCSV(from: from, to: to, clock: clock)
    }

    /// The bundle's file name for today, in the call's zone.
    public func bundleName() throws -> String {
        ExportBundle.fileName(on: clock.now, timeZone: try SettingsService(database, clock: clock).zone())
    }

    /// Writes the backup bundle to `path`; returns the rows written per file.
    public func exportBundle(to path: String) throws -> [String: Int] {
        try DataTransfer(database).exportBundle(to: path, clock: clock)
    }

    /// Imports a bundle, an events.csv or the original app's database, by what the file is.
    public func importFile(at path: String) throws -> ImportReport {
        try DataTransfer(database).importFile(at: path, clock: clock)
    }

    /// Deletes everything, after the exact confirmation phrase, and proves nothing is left.
    public func clearAll(confirmation: String) throws -> ClearReport {
        try database.clearAll(confirmation: confirmation)
    }
}
