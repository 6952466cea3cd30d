public import DoseCore
import Foundation

extension Reminder {
    /// The reminder's key in the reminder log: its kind and fire time, one entry per occurrence.
    public var logKey: String { Self.logKey(kind: kind.rawValue, fireAt: fireAt) }

    /// The key of a reminder log entry of `kind` firing at `fireAt`.
    static func logKey(kind: String, fireAt: Date) -> String { "\(kind)@\(ISO8601.string(fireAt))" }
}
