import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Session keys and rollover (SPEC §3.2)")
struct SessionKeyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let zone: String
        let local: (Int, Int, Int, Int, Int)
        let key: String
        var testDescription: String { "\(zone) \(local) → \(key)" }
    }

    static let rows: [Row] = [
        Row(zone: "America/New_York", local: (2026, 11, 21, 17, 59), key: "2026-11-20"),
        Row(zone: "America/New_York", local: (2026, 11, 21, 18, 0), key: "2026-11-21"),
        Row(zone: "America/New_York", local: (2026, 11, 22, 2, 0), key: "2026-11-21"),
        Row(zone: "Europe/Paris", local: (2026, 11, 21, 17, 59), key: "2026-11-20"),
        Row(zone: "Europe/Paris", local: (2026, 11, 21, 18, 0), key: "2026-11-21"),
        Row(zone: "Asia/Tokyo", local: (2026, 11, 21, 17, 59), key: "2026-11-20"),
        Row(zone: "Asia/Tokyo", local: (2026, 11, 21, 18, 0), key: "2026-11-21"),
        Row(zone: "Asia/Kolkata", local: (2026, 11, 21, 17, 59), key: "2026-11-20"),
        Row(zone: "Asia/Kolkata", local: (2026, 11, 21, 18, 0), key: "2026-11-21"),
        Row(zone: "Australia/Sydney", local: (2026, 1, 1, 17, 59), key: "2025-12-31"),
        Row(zone: "Australia/Sydney", local: (2026, 1, 1, 18, 0), key: "2026-01-01"),
        Row(zone: "UTC", local: (2026, 1, 1, 0, 0), key: "2025-12-31"),
        Row(zone: "Pacific/Kiritimati", local: (2026, 3, 1, 9, 0), key: "2026-02-28"),
        // Leap days.
        Row(zone: "America/New_York", local: (2028, 2, 29, 18, 0), key: "2028-02-29"),
        Row(zone: "America/New_York", local: (2028, 3, 1, 3, 0), key: "2028-02-29"),
        Row(zone: "America/New_York", local: (2028, 2, 29, 17, 59), key: "2028-02-28"),
        Row(zone: "Europe/Paris", local: (2027, 3, 1, 3, 0), key: "2027-02-28"),
        // DST nights keep the local 18:00 boundary.
        Row(zone: "America/New_York", local: (2026, 3, 8, 3, 30), key: "2026-03-07"),
        Row(zone: "America/New_York", local: (2026, 3, 8, 18, 0), key: "2026-03-08"),
        Row(zone: "Europe/Paris", local: (2026, 3, 29, 3, 30), key: "2026-03-28"),
        Row(zone: "Europe/Paris", local: (2026, 10, 25, 17, 59), key: "2026-10-24"),
    ]

    @Test("the key is the local date, or the previous one before 18:00", arguments: rows)
    func key(row: Row) {
        let zone = TimeZone(identifier: row.zone)!
        let (y, m, d, h, min) = row.local
        #expect(SessionKey(for: WallClock.date(y, m, d, h, min, in: zone), in: zone).description == row.key)
    }

    @Test("both occurrences of the repeated fall-back hour map to the same night", arguments: [true, false])
    func fallBackAmbiguousHour(first: Bool) {
        let instant = WallClock.date(2026, 11, 1, 1, 30, in: Fixture.newYork, first: first)
        #expect(SessionKey(for: instant, in: Fixture.newYork).description == "2026-10-31")
    }

    @Test("the two occurrences of 01:30 are an hour apart")
    func fallBackOccurrencesDiffer() {
        let first = WallClock.date(2026, 11, 1, 1, 30, first: true)
        let second = WallClock.date(2026, 11, 1, 1, 30, first: false)
        #expect(second.timeIntervalSince(first) == 3600)
    }

    @Test("the same instant has different keys in different zones")
    func sameInstantDifferentZones() {
        // 2026-11-21 23:30 UTC: 18:30 in New York, 00:30 next day in Paris, 08:30 next day in Tokyo.
        let instant = WallClock.date(2026, 11, 21, 23, 30, in: Fixture.utc)
        #expect(SessionKey(for: instant, in: Fixture.utc).description == "2026-11-21")
        #expect(SessionKey(for: instant, in: Fixture.newYork).description == "2026-11-21")
        #expect(SessionKey(for: instant, in: Fixture.paris).description == "2026-11-21")
        #expect(SessionKey(for: instant, in: Fixture.tokyo).description == "2026-11-21")
        let later = instant.addingTimeInterval(10 * 3600)  // 09:30 UTC: 04:30 NY, 10:30 Paris, 18:30 Tokyo
        #expect(SessionKey(for: later, in: Fixture.newYork).description == "2026-11-21")
        #expect(SessionKey(for: later, in: Fixture.tokyo).description == "2026-11-22")
    }

    @Test(
        "parsing accepts real dates only",
        arguments: [
            ("2026-02-28", true), ("2028-02-29", true), ("2026-02-29", false), ("2026-13-01", false), ("26-01-01", false), ("2026-1-01", false),
            ("garbage", false), ("2000-02-29", true), ("2100-02-29", false), ("2026-04-31", false), ("2026-04-30", true), ("2026-00-10", false),
            ("2026-12-00", false), ("2026-12-32", false), ("+026-01-01", false), ("2026-01-0a", false), ("2026/01/01", false),
            ("2026-01-011", false), (" 2026-01-01", false), ("2026-01-1\u{00B9}", false), ("2026--1-01", false), ("", false),
        ])
    func parsing(text: String, valid: Bool) {
        #expect((SessionKey(parsing: text) != nil) == valid)
        if valid { #expect(SessionKey(parsing: text)?.description == text) }
    }

    @Test("which dates exist agrees with Foundation's Gregorian calendar on every day of 1900–2100, and on day 0 and 32 of each month")
    func validityAgreesWithFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var disagreements: [String] = []
        for year in 1900...2100 {
            for month in 0...13 {
                for day in [0, 1, 28, 29, 30, 31, 32] {
                    let components = DateComponents(year: year, month: month, day: day, hour: 12)
                    let exists =
                        calendar.date(from: components).map { calendar.dateComponents([.year, .month, .day], from: $0) }
                        .map { $0.year == year && $0.month == month && $0.day == day } ?? false
                    if (SessionKey(year: year, month: month, day: day) != nil) != exists { disagreements.append("\(year)-\(month)-\(day)") }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test(
        "next rollover is the next local 18:00 strictly after",
        arguments: [
            ((2026, 11, 21, 17, 59), (2026, 11, 21)), ((2026, 11, 21, 18, 0), (2026, 11, 22)), ((2026, 11, 21, 23, 0), (2026, 11, 22)),
            ((2026, 3, 7, 19, 0), (2026, 3, 8)), ((2026, 10, 31, 19, 0), (2026, 11, 1)),
        ] as [((Int, Int, Int, Int, Int), (Int, Int, Int))])
    func nextRollover(from: (Int, Int, Int, Int, Int), expected: (Int, Int, Int)) {
        let start = WallClock.date(from.0, from.1, from.2, from.3, from.4)
        let next = SessionKey.nextRollover(after: start, in: Fixture.newYork)
        #expect(next == WallClock.date(expected.0, expected.1, expected.2, 18, 0))
    }

    @Test("adding days crosses months, years and leap days")
    func addingDays() {
        #expect(SessionKey(parsing: "2028-02-28")!.adding(days: 1).description == "2028-02-29")
        #expect(SessionKey(parsing: "2026-12-31")!.adding(days: 1).description == "2027-01-01")
        #expect(SessionKey(parsing: "2026-03-01")!.adding(days: -1).description == "2026-02-28")
    }

    @Test("an event at 02:00 joins the night that began the evening before")
    func joinsOpenSession() throws {
        let session = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.log(event: "bathroom"), Fixture.minutes(210))]))
        #expect(session.date.description == "2026-03-10")
        #expect(session.events.count == 2)
    }
}
