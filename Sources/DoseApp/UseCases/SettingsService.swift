public import DoseCore
public import DoseStore
public import Foundation

/// The settings: read them, the zone this call shows times in, and validated, audited changes.
public struct SettingsService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The settings at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// The settings in force.
    public func current() throws -> DoseSettings {
        try SettingsStore(database).current(clock: clock)
    }

    /// The zone this call works in: `--tz` when given, else the `time_zone` setting.
    public func zone() throws -> TimeZone {
        clock.zone(try current())
    }

    /// Changes one setting; a refused value changes nothing.
    public func update(_ key: String, to value: String) throws -> DoseSettings {
        try SettingsStore(database).update(key, to: value, clock: clock)
    }

    /// Changes several settings at once: all of them, or none.
    public func update(_ changes: [(key: String, value: String)]) throws -> DoseSettings {
        try SettingsStore(database).update(changes, clock: clock)
    }
}
