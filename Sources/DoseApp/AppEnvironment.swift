public import DoseCore
public import DoseStore
public import Foundation

/// Everything a use case takes from the world outside: the database, the time, new ids, random bytes and the zone.
/// Each edge builds one (a `dosetap` command, `dosetap serve`, a test) and everything below it is given what it needs
/// from here, so no rule, store or handler reads the system clock or makes randomness of its own.
public struct AppEnvironment: Sendable {
    /// The database.
    public var ledger: NightLedger
    /// The current instant.
    public var now: @Sendable () -> Date
    /// The machine's zone: the default of the `time_zone` setting.
    public var machineTimeZoneID: String
    /// `--tz`: the zone for this call (or this server) instead of the `time_zone` setting.
    public var timeZoneOverride: TimeZone?
    /// A fresh unique id.
    public var makeID: @Sendable () -> String
    /// Random bytes for tokens, codes and secrets.
    public var random: RandomSource

    /// An environment from its parts; tests give a moving clock, counted ids and, where it matters, fixed bytes.
    public init(
        ledger: NightLedger, now: @escaping @Sendable () -> Date, machineTimeZoneID: String, timeZoneOverride: TimeZone? = nil,
        makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        self.ledger = ledger
        self.now = now
        self.machineTimeZoneID = machineTimeZoneID
        self.timeZoneOverride = timeZoneOverride
        self.makeID = makeID
        self.random = random
    }

    /// The program's environment: the system clock (or `--now`, fixed), the machine's zone, UUIDs and the system's
    /// cryptographic generator.
    public static func system(ledger: NightLedger, fixedNow: Date? = nil, timeZoneOverride: TimeZone? = nil) -> AppEnvironment {
        AppEnvironment(
            ledger: ledger, now: { fixedNow ?? Date() }, machineTimeZoneID: TimeZone.current.identifier, timeZoneOverride: timeZoneOverride,
            makeID: { UUID().uuidString.lowercased() }, random: .system)
    }

    /// The clock of one call or request: this instant, the zone override, ids and randomness.
    public func clock() -> StoreClock {
        StoreClock(now: now(), timeZoneOverride: timeZoneOverride, machineTimeZoneID: machineTimeZoneID, makeID: makeID, random: random)
    }
}
