public import Foundation

/// A reminder of a night's log: fired (delivered) or missed (the server was down).
public struct LoggedReminder: Sendable, Hashable {
    /// Nil for a kind this build does not know (a newer build wrote it).
    public var kind: ReminderKind?
    public var kindName: String
    public var fireAt: Date
    public var missed: Bool

    /// A reminder log row's kind, fire time and outcome (`fired` or `missed`).
    public init(kind: String, fireAt: Date, outcome: String) {
        self.kind = ReminderKind(rawValue: kind)
        kindName = kind
        self.fireAt = fireAt
        missed = outcome == "missed"
    }

    /// Of a night's logged reminders, those ringing by `now` that no one has answered: delivered (not missed), of a
    /// kind that rings, and fired after the night's last answer. Oldest first.
    public static func unanswered(_ logged: [LoggedReminder], lastAnswer: Date?, at now: Date) -> [LoggedReminder] {
        logged.filter { !$0.missed && ($0.kind?.rings ?? false) && $0.fireAt <= now && $0.fireAt > (lastAnswer ?? .distantPast) }
            .sorted { $0.fireAt < $1.fireAt }
    }
}
