public import Foundation
import Synchronization

/// The clock and id source every test target moves by hand: no test reads the real clock or makes random ids.
public final class TestClock: Sendable {
    private let state: Mutex<(now: Date, id: Int)>
    /// The machine zone the code under test is told it runs in.
    public let zone: String

    /// A clock at `now` in a machine whose zone is `zone`.
    public init(_ now: Date, zone: String = "America/New_York") {
        state = Mutex((now, 0))
        self.zone = zone
    }

    /// The instant the test has set.
    public var now: Date { state.withLock { $0.now } }

    /// Moves the clock to `date`.
    public func set(_ date: Date) { state.withLock { $0.now = date } }

    /// Moves the clock on by `seconds`.
    public func advance(seconds: TimeInterval) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }

    /// The next id, UUID-shaped and counting up from 1, so ids sort in the order they were made.
    public func nextID() -> String {
        state.withLock {
            $0.id += 1
            return String(format: "00000000-0000-4000-8000-%012d", $0.id)
        }
    }
}

/// Wall-clock instants in a named zone, the one way tests write a local time.
public enum WallClock {
    /// Where most test nights happen.
    public static let newYork = TimeZone(identifier: "America/New_York")!

    /// `y-m-d h:min` plus `s` seconds in `zone`; `first` picks the earlier of a time repeated at the fall-back.
    public static func date(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int, _ s: Double = 0, in zone: TimeZone = newYork, first: Bool = true)
        -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let base = calendar.date(from: DateComponents(year: y, month: m, day: d))!
        let date = calendar.date(
            bySettingHour: h, minute: min, second: 0, of: base,
            matchingPolicy: .strict, repeatedTimePolicy: first ? .first : .last, direction: .forward)!
        return date.addingTimeInterval(s)
    }
}
