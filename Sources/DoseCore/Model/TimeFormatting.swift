public import Foundation

/// ISO-8601 instants in UTC with milliseconds, the one textual form of an instant (SPEC D9).
public enum ISO8601 {
    /// `2026-11-22T06:30:00.000Z`.
    public static func string(_ date: Date) -> String {
        // Rounded to whole milliseconds so that a stored and re-read instant compares equal.
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        let rounded = Date(timeIntervalSince1970: millis / 1000)
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: rounded)
        let ms = Int(millis.truncatingRemainder(dividingBy: 1000) + 1000) % 1000
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, ms)
    }

    /// Parses ISO-8601 with or without fractional seconds and with `Z` or a numeric offset; nil if malformed.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(trimmed) { return date }
        return try? Date.ISO8601FormatStyle().parse(trimmed)
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// Wall-clock presentation in an explicit zone; never the machine's.
public enum LocalClock {
    /// A Gregorian calendar fixed to `timeZone`.
    public static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }

    /// `HH:mm` of the instant in the zone.
    public static func hourMinute(_ date: Date, in timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `HH:mm:ss` of the instant in the zone.
    public static func hourMinuteSecond(_ date: Date, in timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// UTC offset of the zone at the instant, in minutes (east positive).
    public static func offsetMinutes(_ timeZone: TimeZone, at date: Date) -> Int {
        timeZone.secondsFromGMT(for: date) / 60
    }
}
