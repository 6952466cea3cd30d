public import DoseCore
import Foundation
import GRDB

/// The settings as stored: only values that differ from the defaults; every stored value is re-validated when read, so a
/// hand-edited database cannot smuggle in an unsafe value. Read, changed one or several at a time, every change audited.
public struct SettingsStore: Sendable {
    let database: AppDatabase

    /// Loads the settings; the `time_zone` default is the machine's zone.
    static func load(_ db: Database, machineTimeZoneID: String) throws -> DoseSettings {
        // Every action and status read loads the settings: one compiled statement, kept by the connection.
        try settings(from: try SQLiteSettingsTransaction(db: db).storedSettings(), machineTimeZoneID: machineTimeZoneID)
    }

    /// The settings from stored key/value pairs (in key order), each re-validated, over the defaults.
    public static func settings(from stored: [(key: String, value: String)], machineTimeZoneID: String) throws -> DoseSettings {
        var settings = DoseSettings(timeZoneID: TimeZone(identifier: machineTimeZoneID) == nil ? "UTC" : machineTimeZoneID)
        for (key, value) in stored {
            do {
                settings = try settings.setting(key, to: value)
            } catch {
                throw DoseError.invalidFile(problem: "the stored setting \(key) = '\(value)' is invalid: \(error.message)")
            }
        }
        return settings
    }

    /// The settings in force.
    public func current(machineTimeZoneID: String) throws -> DoseSettings {
        try database.read { db in try Self.load(db, machineTimeZoneID: machineTimeZoneID) }
    }
}
