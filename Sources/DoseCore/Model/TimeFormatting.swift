public import Foundation

/// ISO-8601 instants in UTC with milliseconds, the one textual form of an instant (SPEC D9).
public enum ISO8601 {
    /// The instant rounded to whole milliseconds, the precision `string` writes and the store keeps.
    public static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// `2026-11-22T06:30:00.000Z`.
    public static func string(_ date: Date) -> String {
        // Rounded to whole milliseconds so that a stored and re-read instant compares equal. Integer civil-date
        // arithmetic rather than a Calendar and String(format:): exports format tens of thousands of these.
        let totalMillis = Int((date.timeIntervalSince1970 * 1000).rounded())
        let millis = ((totalMillis % 1000) + 1000) % 1000
        let totalSeconds = (totalMillis - millis) / 1000
        let secondsOfDay = ((totalSeconds % 86_400) + 86_400) % 86_400
        let days = (totalSeconds - secondsOfDay) / 86_400
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text = ""
        text.reserveCapacity(24)
        text += padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
        text += padded(secondsOfDay / 3600, 2) + ":" + padded(secondsOfDay / 60 % 60, 2) + ":" + padded(secondsOfDay % 60, 2)
        text += "." + padded(millis, 3) + "Z"
        return text
    }

    /// A non-negative number with leading zeros to `width` digits.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The instants DoseTap accepts: from 1970 to the end of 2999 (UTC). Outside them nothing is a real night, the
    /// calendars disagree (year 0 has no Gregorian meaning), and the stored form would no longer be 24 characters.
    public static let acceptedRange = Date(timeIntervalSince1970: 0)..<Date(timeIntervalSince1970: 32_503_680_000)

    /// Parses ISO-8601 with or without fractional seconds and with `Z` or a numeric offset; nil if malformed or
    /// outside `acceptedRange`.
    public static func parse(_ text: String) -> Date? {
        // An instant is written in printable ASCII: a control or bidirectional character (U+202E) is refused, not
        // stepped over.
        guard text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        if let date = parseCanonical(text) { return date }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // The general parser rolls 2026-02-30 over to March; a date that does not exist is an error instead.
        guard hasValidCalendarFields(trimmed) else { return nil }
        let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(trimmed)) ?? (try? Date.ISO8601FormatStyle().parse(trimmed))
        return date.flatMap { acceptedRange.contains($0) ? $0 : nil }
    }

    private static func hasValidCalendarFields(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return false }
        func number(_ range: Range<Int>) -> Int? { decimal(bytes, range) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return false }
        return isValid(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The decimal number written in `bytes[range]`, nil if any byte is not a digit.
    static func decimal<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ range: Range<Int>) -> Int? where Bytes.Index == Int {
        var value = 0
        for index in range {
            let digit = Int(bytes[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func isValid(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Bool {
        guard (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthLengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= monthLengths[month - 1]
    }

    /// Parses exactly the stored form `yyyy-MM-ddTHH:mm:ss.SSSZ` with integer arithmetic; reading ten years
    /// of nights parses hundreds of thousands of these, and the general parser is far slower.
    public static func parseCanonical(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58,
            bytes[19] == 46, bytes[23] == 90
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { decimal(bytes, range) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millis = number(20..<23),
            isValid(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        // Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        let date = Date(timeIntervalSince1970: Double(seconds * 1000 + millis) / 1000)
        return acceptedRange.contains(date) ? date : nil
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
        let seconds = secondOfDay(date, in: timeZone)
        return ISO8601.padded(seconds / 3600, 2) + ":" + ISO8601.padded(seconds / 60 % 60, 2)
    }

    /// `HH:mm:ss` of the instant in the zone.
    public static func hourMinuteSecond(_ date: Date, in timeZone: TimeZone) -> String {
        let seconds = secondOfDay(date, in: timeZone)
        return ISO8601.padded(seconds / 3600, 2) + ":" + ISO8601.padded(seconds / 60 % 60, 2) + ":" + ISO8601.padded(seconds % 60, 2)
    }

    /// Seconds since local midnight: the wall clock is the instant plus the zone's offset at that instant, so this is
    /// what a calendar would say, without building one (a calendar per time shown was a share of ten years of insights).
    static func secondOfDay(_ date: Date, in timeZone: TimeZone) -> Int {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        return (local % 86_400 + 86_400) % 86_400
    }

    /// UTC offset of the zone at the instant, in minutes (east positive).
    public static func offsetMinutes(_ timeZone: TimeZone, at date: Date) -> Int {
        timeZone.secondsFromGMT(for: date) / 60
    }
}

/// Spans of time in words a half-asleep reader takes in at a glance.
public enum DurationText {
    /// "35 min", "2 h", "7 h 59 min".
    public static func words(minutes: Int) -> String {
        let minutes = max(0, minutes)
        if minutes < 60 { return "\(minutes) min" }
        let rest = minutes % 60
        return rest == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(rest) min"
    }
}
