public import Foundation

/// The night a moment belongs to, `yyyy-MM-dd` (SPEC §3.2): the local date, or the day before when the
/// local hour is before the rollover hour.
public struct SessionKey: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The hour at which a new night begins, local time.
    public static let rolloverHour = 18

    public let year: Int
    public let month: Int
    public let day: Int

    /// A key from its parts; nil if that date does not exist on the (proleptic) Gregorian calendar of ISO 8601.
    public init?(year: Int, month: Int, day: Int) {
        // Arithmetic rather than a Calendar round trip, which was a measurable share of reading ten years of nights.
        guard (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days in a month of the Gregorian calendar.
    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Parses `yyyy-MM-dd`.
    public init?(parsing text: String) {
        // Read from the UTF-8 bytes: splitting into substrings was a measurable share of loading ten years of nights.
        var text = text
        text.makeContiguousUTF8()  // free for a native string
        let parsed: (year: Int, month: Int, day: Int)?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
            func number(_ range: Range<Int>) -> Int? { ISO8601.decimal(bytes, range) }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
            return (year, month, day)
        }
        guard let parts = parsed ?? nil else { return nil }
        self.init(year: parts.year, month: parts.month, day: parts.day)
    }

    /// The key of an instant in a zone. Only the local hour decides, so DST never moves the boundary
    /// away from local 18:00 and both occurrences of a repeated hour get the same key.
    public init(for instant: Date, in timeZone: TimeZone, rolloverHour: Int = SessionKey.rolloverHour) {
        let calendar = LocalClock.calendar(timeZone)
        var parts = calendar.dateComponents([.year, .month, .day, .hour], from: instant)
        if (parts.hour ?? 0) < rolloverHour {
            // Step back on the civil calendar, not by 24 h, so a 23- or 25-hour day cannot skip a date.
            let civil = LocalClock.calendar(TimeZone(secondsFromGMT: 0)!)
            let noon = civil.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: 12))!
            let previous = civil.date(byAdding: .day, value: -1, to: noon)!
            parts = civil.dateComponents([.year, .month, .day], from: previous)
        }
        self.year = parts.year ?? 1970
        self.month = parts.month ?? 1
        self.day = parts.day ?? 1
    }

    // Built by hand: `String(format:)` was a measurable share of loading ten years of nights.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The key a number of days later (negative: earlier).
    public func adding(days: Int) -> SessionKey {
        let civil = LocalClock.calendar(TimeZone(secondsFromGMT: 0)!)
        let noon = civil.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        let moved = civil.dateComponents([.year, .month, .day], from: civil.date(byAdding: .day, value: days, to: noon)!)
        return SessionKey(year: moved.year!, month: moved.month!, day: moved.day!)!
    }

    /// The next instant strictly after `instant` at which the local clock reads the rollover hour.
    public static func nextRollover(after instant: Date, in timeZone: TimeZone, rolloverHour: Int = SessionKey.rolloverHour) -> Date {
        LocalClock.nextOccurrence(of: ClockTime(hour: rolloverHour, minute: 0)!, after: instant, in: timeZone)
    }
}

extension LocalClock {
    /// The instant a wall-clock time has on a local calendar date. In a spring-forward gap the time moves
    /// forward to the first valid instant; in a repeated fall-back hour the first occurrence is used.
    public static func instant(of time: ClockTime, onYear year: Int, month: Int, day: Int, in timeZone: TimeZone) -> Date {
        let calendar = calendar(timeZone)
        let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let start = calendar.startOfDay(for: midnight)
        return calendar.date(
            bySettingHour: time.hour, minute: time.minute, second: 0, of: start,
            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
            ?? start.addingTimeInterval(TimeInterval(time.minutesSinceMidnight * 60))
    }

    /// The first instant strictly after `instant` whose local wall clock shows `time`.
    public static func nextOccurrence(of time: ClockTime, after instant: Date, in timeZone: TimeZone) -> Date {
        let calendar = calendar(timeZone)
        let today = calendar.dateComponents([.year, .month, .day], from: instant)
        let candidate = self.instant(of: time, onYear: today.year!, month: today.month!, day: today.day!, in: timeZone)
        if candidate > instant { return candidate }
        let tomorrow = calendar.dateComponents(
            [.year, .month, .day], from: calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: instant))!)
        return self.instant(of: time, onYear: tomorrow.year!, month: tomorrow.month!, day: tomorrow.day!, in: timeZone)
    }
}
