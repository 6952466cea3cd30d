import DoseCore
import Foundation
import Testing

@Suite("Clock times shown to a person")
struct LocalClockTests {
    /// What Foundation's calendar says the wall clock reads.
    static func calendarTime(_ date: Date, _ zone: TimeZone) -> String {
        let parts = LocalClock.calendar(zone).dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? -1, parts.minute ?? -1, parts.second ?? -1)
    }

    @Test(
        "HH:mm and HH:mm:ss agree with Foundation's calendar every 7 min 13 s across DST changes, half-hour zones and before 1970",
        arguments: ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns", "UTC"])
    func agreesWithCalendar(zoneID: String) throws {
        let zone = try #require(TimeZone(identifier: zoneID))
        var disagreements: [String] = []
        // 2026's spring and autumn changes in both hemispheres, and a stretch of 1969 (negative instants).
        for start in [1_772_323_200.0, 1_775_000_000.0, 1_791_000_000.0, 1_793_000_000.0, -2_000_000.0] {
            for step in 0..<700 {
                let instant = Date(timeIntervalSince1970: start + Double(step) * 433 + 0.75)
                let expected = Self.calendarTime(instant, zone)
                if LocalClock.hourMinuteSecond(instant, in: zone) != expected
                    || LocalClock.hourMinute(instant, in: zone) != String(expected.prefix(5))
                {
                    disagreements.append("\(instant): \(LocalClock.hourMinuteSecond(instant, in: zone)) against \(expected)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
