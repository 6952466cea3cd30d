import Foundation

/// A wall-clock instant in New York, where the server tests' nights happen.
func local(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int, _ s: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "America/New_York")!
    return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min, second: s))!
}
