public import DoseCore
public import Foundation

/// What every call needs from outside: the clock, a zone override, the machine's zone, and fresh ids.
public struct StoreClock: Sendable {
    /// The current instant.
    public var now: Date
    /// `--tz`: the zone for this call instead of the `time_zone` setting.
    public var timeZoneOverride: TimeZone?
    /// The machine's zone, the default of the `time_zone` setting.
    public var machineTimeZoneID: String
    /// Makes a fresh unique id.
    public var makeID: @Sendable () -> String
    /// Where secrets' random bytes come from.
    public var random: RandomSource

    /// A clock.
    public init(
        now: Date, timeZoneOverride: TimeZone? = nil, machineTimeZoneID: String, makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        // Whole milliseconds, the precision instants are stored with, so what a call decides in memory is exactly
        // what a later read of the database gives back.
        self.now = ISO8601.wholeMilliseconds(now)
        self.timeZoneOverride = timeZoneOverride
        self.machineTimeZoneID = machineTimeZoneID
        self.makeID = makeID
        self.random = random
    }

    /// The zone this call works in: `--tz` when given, else the `time_zone` setting. Decided here, once.
    public func zone(_ settings: DoseSettings) -> TimeZone { timeZoneOverride ?? settings.timeZone }
}

/// Where random bytes come from: the system's cryptographic generator in the program, anything a test likes in a test.
/// Passed in from the edge like the clock, so nothing below it makes randomness of its own.
public struct RandomSource: Sendable {
    /// `count` random bytes.
    public var bytes: @Sendable (Int) -> [UInt8]

    /// A source from a function.
    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) { self.bytes = bytes }

    /// The system's generator (`SystemRandomNumberGenerator`: the kernel's CSPRNG).
    public static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` random bytes as lowercase hex.
    public func hex(_ count: Int) -> String { bytes(count).hexString }
}
