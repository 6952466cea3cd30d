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
        let rows = try SettingRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM settings ORDER BY key"))
        return try settings(from: rows.map { ($0.key, $0.value) }, machineTimeZoneID: machineTimeZoneID)
    }

    /// The settings from stored key/value pairs (in key order), each re-validated, over the defaults.
    static func settings(from stored: [(key: String, value: String)], machineTimeZoneID: String) throws -> DoseSettings {
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
    public func current(clock: StoreClock) throws -> DoseSettings {
        try database.read { db in try Self.load(db, machineTimeZoneID: clock.machineTimeZoneID) }
    }

    /// Changes one setting after validating it (SPEC §3.1: never a silent reset); the change is audited.
    public func update(_ key: String, to value: String, clock: StoreClock) throws -> DoseSettings {
        try update([(key, value)], clock: clock)
    }

    /// Changes several settings in one transaction: all of them, or none when any is refused.
    /// `reason`, when given, is kept in the audit entry (the weekly planner's suggestion, say).
    public func update(_ changes: [(key: String, value: String)], reason: String? = nil, clock: StoreClock) throws -> DoseSettings {
        try database.write { db in
            var current = try Self.load(db, machineTimeZoneID: clock.machineTimeZoneID)
            for (key, value) in changes {
                let updated = try current.setting(key, to: value)
                // Store under the canonical key (`cooldown.Brief Wake` → `cooldown.wake_temp`) and canonical value.
                let canonical = try Self.canonicalKey(key)
                let newValue = try updated.value(of: canonical)
                let oldValue = try current.value(of: canonical)
                try SettingRecord(key: canonical, value: newValue, updatedAt: clock.now).upsert(db)
                var details = ["from": oldValue, "to": newValue]
                details["reason"] = reason
                try NightRecords.audit(.setting, id: clock.makeID(), at: clock.now, session: nil, entity: canonical, details: details, db)
                current = updated
            }
            return current
        }
    }

    static func canonicalKey(_ key: String) throws -> String {
        guard key.hasPrefix(DoseSettings.cooldownPrefix) else { return key }
        let definition = try SleepEventCatalogue.standard.resolve(String(key.dropFirst(DoseSettings.cooldownPrefix.count)))
        return DoseSettings.cooldownPrefix + definition.type.rawValue
    }
}
