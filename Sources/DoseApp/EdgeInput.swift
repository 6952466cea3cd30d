public import DoseCore
import DoseStore
public import Foundation

/// Where the database lives (SPEC §5.1): `--db`, else `$DOSETAP_DB`, else `$XDG_DATA_HOME/dosetap/dosetap.sqlite`,
/// else `~/.local/share/dosetap/dosetap.sqlite`.
public enum DatabaseLocation {
    /// The path to use.
    public static func resolve(flag: String?, environment: [String: String]) -> String {
        if let flag, !flag.isEmpty { return expand(flag, environment) }
        if let path = environment["DOSETAP_DB"], !path.isEmpty { return expand(path, environment) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/dosetap/dosetap.sqlite" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/dosetap/dosetap.sqlite"
    }

    private static func expand(_ path: String, _ environment: [String: String]) -> String {
        guard path.hasPrefix("~/"), let home = environment["HOME"] else { return path }
        return home + path.dropFirst(1)
    }
}

/// Parsing of the clock options every surface accepts.
public enum ClockInput {
    /// `--now`: an ISO-8601 instant.
    public static func instant(_ text: String, field: String) throws(DoseError) -> Date {
        guard let date = ISO8601.parse(text) else {
            throw .invalidInput(
                field: field, problem: "'\(text)' is not a time",
                allowed: "an ISO-8601 instant from 1970 to 2999 such as 2026-11-22T01:30:00Z or 2026-11-21T22:30:00-05:00")
        }
        return date
    }

    /// `--at`: an ISO-8601 instant, or a local `HH:mm` meaning its latest occurrence up to now.
    public static func occurrence(_ text: String, now: Date, timeZone: TimeZone) throws(DoseError) -> Date {
        if let clock = ClockTime(parsing: text) {
            return LocalClock.nextOccurrence(of: clock, after: now.addingTimeInterval(-24 * 3600 + NightRules.futureTolerance), in: timeZone)
        }
        guard let date = ISO8601.parse(text) else {
            throw .invalidInput(
                field: "at", problem: "'\(text)' is not a time",
                allowed: "a local time HH:mm (its latest occurrence) or an ISO-8601 instant from 1970 to 2999 such as 2026-11-22T01:30:00Z")
        }
        return date
    }

    /// A local date and time as a browser's `datetime-local` sends it (`2026-11-22T01:20`, seconds optional), in `zone`.
    /// A time the clocks skipped (spring forward) is the instant after the gap; a repeated one (fall back), the first.
    public static func localDateTime(_ text: String, in zone: TimeZone, field: String) throws(DoseError) -> Date {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        let allowed = "a local date and time such as 2026-11-22T01:20"
        guard parts.count == 2, let day = SessionKey(parsing: String(parts[0])) else {
            throw .invalidInput(field: field, problem: "'\(text.prefix(40))' is not a local date and time", allowed: allowed)
        }
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(time.count), time.allSatisfy({ $0.count == 2 && $0.allSatisfy({ ("0"..."9").contains($0) }) }),
            let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time.count == 3 ? time[2] : "0"), hour < 24, minute < 60,
            second < 60,
            let date = LocalClock.calendar(zone).date(
                from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute, second: second))
        else {
            throw .invalidInput(field: field, problem: "'\(text.prefix(40))' is not a local date and time", allowed: allowed)
        }
        return date
    }

    /// `--tz` (or the input `field` names): an IANA zone id.
    public static func timeZone(_ text: String, field: String = "tz") throws(DoseError) -> TimeZone {
        guard text.contains("/") || text == "UTC", let zone = TimeZone(identifier: text) else {
            throw .invalidInput(
                field: field, problem: "'\(text)' is not a known time zone",
                allowed: "an IANA time zone such as America/New_York, Europe/Paris or UTC")
        }
        return zone
    }
}

/// `dosetap://` links (SPEC §5.1 `open`): the same rules as every other surface, never auto-confirmed.
public enum DoseLink {
    /// The action a link asks for.
    public static func action(from text: String) throws(DoseError) -> NightAction {
        let allowed = "dosetap://dose1, dosetap://dose2, dosetap://snooze, dosetap://log?event=NAME&notes=TEXT"
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "dosetap" else {
            throw .invalidInput(field: "url", problem: "'\(text)' is not a dosetap:// link", allowed: allowed)
        }
        let host = (components.host ?? components.path).lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let query = Dictionary((components.queryItems ?? []).map { ($0.name.lowercased(), $0.value ?? "") }, uniquingKeysWith: { $1 })
        switch host {
        case "dose1": return NightAction(.dose1, source: .link)
        case "dose2": return NightAction(.dose2, source: .link)
        case "snooze": return NightAction(.snooze, source: .link)
        case "log":
            guard let event = query["event"], !event.isEmpty else {
                throw .invalidInput(field: "url", problem: "the log link names no event", allowed: "dosetap://log?event=bathroom")
            }
            return NightAction(.log(event: event), note: query["notes"] ?? query["note"], source: .link)
        default:
            throw .invalidInput(field: "url", problem: "'\(host)' is not a DoseTap link action", allowed: allowed)
        }
    }
}

/// A hardware button's presses (SPEC §5.1 `press`): never confirms a risky dose.
public enum ButtonPress: String, Sendable, CaseIterable {
    /// The next dose the state allows.
    case single
    /// Snooze.
    case double
    /// Undo.
    case hold

    /// The action for this press given tonight's status.
    public func action(given status: NightStatus) -> NightAction {
        switch self {
        case .single: NightAction(status.phase == .noDose1 ? .dose1 : .dose2, source: .button)
        case .double: NightAction(.snooze, source: .button)
        case .hold: NightAction(.undo, source: .button)
        }
    }
}
