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
    /// Everything of a call's clock but the instant: the zone override, the machine's zone, ids and randomness.
    private var template: StoreClock

    /// An environment from its parts; tests give a moving clock, counted ids and, where it matters, fixed bytes.
    /// `machineTimeZoneID` is the default of the `time_zone` setting; `timeZoneOverride` is `--tz`.
    public init(
        ledger: NightLedger, now: @escaping @Sendable () -> Date, machineTimeZoneID: String, timeZoneOverride: TimeZone? = nil,
        makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        self.ledger = ledger
        self.now = now
        template = StoreClock(
            now: .distantPast, timeZoneOverride: timeZoneOverride, machineTimeZoneID: machineTimeZoneID, makeID: makeID, random: random)
    }

    /// The program's environment: the system clock (or `--now`, fixed), the machine's zone, UUIDs and the system's
    /// cryptographic generator.
    public static func system(ledger: NightLedger, fixedNow: Date? = nil, timeZoneOverride: TimeZone? = nil) -> AppEnvironment {
        AppEnvironment(
            ledger: ledger, now: { fixedNow ?? Date() }, machineTimeZoneID: TimeZone.current.identifier, timeZoneOverride: timeZoneOverride,
            makeID: { UUID().uuidString.lowercased() }, random: .system)
    }

    /// Random bytes for tokens, codes and secrets.
    public var random: RandomSource { template.random }

    /// The clock of one call or request: this instant, the zone override, ids and randomness.
    public func clock() -> StoreClock {
        var clock = template
        clock.now = ISO8601.wholeMilliseconds(now())
        return clock
    }
}
