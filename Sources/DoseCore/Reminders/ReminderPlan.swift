public import Foundation

/// The kinds of reminder of the night (SPEC §3.4, seed 003 "Wake Alarm System").
public enum ReminderKind: String, Sendable, Codable, CaseIterable {
    case windowOpen = "window_open"
    case preAlarm = "pre_alarm"
    case warning30Minutes = "warning_30_min"
    case wakeAlarm = "wake_alarm"
    case followUp1 = "follow_up_1"
    case followUp2 = "follow_up_2"
    case followUp3 = "follow_up_3"
    case warning15Minutes = "warning_15_min"
    case warning5Minutes = "warning_5_min"
    case warning2Minutes = "warning_2_min"
    case warning30Seconds = "warning_30_sec"
    case windowExpired = "window_expired"

    /// Higher is more urgent; when two fall on the same instant the more urgent one stays. The hard-stop
    /// countdown outranks the wake alarm because it carries the deadline.
    public var urgency: Int { Self.allCases.firstIndex(of: self)! }

    /// Whether it should ring (an alarm) rather than only notify.
    public var rings: Bool {
        switch self {
        case .windowOpen, .preAlarm, .warning30Minutes: false
        default: true
        }
    }

    /// The text shown and spoken.
    public var message: String {
        switch self {
        case .windowOpen: "The Dose 2 window is open."
        case .preAlarm: "Dose 2 alarm in 5 minutes."
        case .warning30Minutes: "30 minutes left to take Dose 2."
        case .wakeAlarm: "Time for Dose 2."
        case .followUp1, .followUp2, .followUp3: "Dose 2 is due — take it now, snooze, or skip."
        case .warning15Minutes: "15 minutes left to take Dose 2. Snooze is off."
        case .warning5Minutes: "5 minutes left to take Dose 2."
        case .warning2Minutes: "2 minutes left to take Dose 2."
        case .warning30Seconds: "30 seconds left to take Dose 2."
        case .windowExpired: "The Dose 2 window has closed."
        }
    }
}

/// One planned reminder.
public struct Reminder: Hashable, Sendable {
    /// What it is.
    public let kind: ReminderKind
    /// When it goes off.
    public let fireAt: Date
}

/// The reminder plan, a pure function of a session's events and the settings.
public enum ReminderPlan {
    /// The pre-alarm comes this long before the target.
    public static let preAlarmLeadMinutes = 5.0
    /// The wake alarm's follow-ups come this far apart, three of them.
    public static let followUpSpacingMinutes = 2.0

    /// Every reminder of the night in time order, past ones included. Empty when there is nothing to remind
    /// of: no Dose 1, Dose 2 taken or skipped (expiry included), wake-up logged, session closed, or reminders off.
    public static func plan(for session: NightSession?, settings: DoseSettings) -> [Reminder] {
        guard settings.remindersEnabled, let session, session.isOpen else { return [] }
        let facts = NightFacts(session.events)
        guard let dose1 = facts.dose1?.occurredAt, facts.dose2 == nil, facts.skip == nil,
            facts.wake == nil, facts.checkIn == nil
        else { return [] }

        func after(_ minutes: Double) -> Date { dose1.addingTimeInterval(minutes * 60) }
        // Every instant is derived from the window: the countdown warnings count back from its close, the 15-minute
        // one is the near-close boundary itself, so the plan cannot drift from the rules if the window ever changes.
        func beforeClose(_ minutes: Double) -> Date { after(Double(DoseWindow.closesAfterMinutes) - minutes) }
        let target = Double(settings.targetIntervalMinutes)
        let wake = facts.snoozeUntil ?? after(target)
        let closes = DoseWindow.closes(after: dose1)

        var items: [Reminder] = [
            Reminder(kind: .windowOpen, fireAt: after(Double(DoseWindow.opensAfterMinutes))),
            Reminder(kind: .preAlarm, fireAt: after(target - ReminderPlan.preAlarmLeadMinutes)),
            Reminder(kind: .wakeAlarm, fireAt: wake),
        ]
        for (index, kind) in [ReminderKind.followUp1, .followUp2, .followUp3].enumerated() {
            items.append(Reminder(kind: kind, fireAt: wake.addingTimeInterval(Double(index + 1) * ReminderPlan.followUpSpacingMinutes * 60)))
        }
        items += [
            Reminder(kind: .warning30Minutes, fireAt: beforeClose(30)),
            Reminder(kind: .warning15Minutes, fireAt: after(Double(DoseWindow.nearCloseAfterMinutes))),
            Reminder(kind: .warning5Minutes, fireAt: beforeClose(5)),
            Reminder(kind: .warning2Minutes, fireAt: beforeClose(2)),
            Reminder(kind: .warning30Seconds, fireAt: beforeClose(0.5)),
            Reminder(kind: .windowExpired, fireAt: closes),
        ]
        items.removeAll { $0.fireAt >= closes && $0.kind != .windowExpired }

        var byInstant: [Date: Reminder] = [:]
        for item in items {
            if let other = byInstant[item.fireAt], other.kind.urgency >= item.kind.urgency { continue }
            byInstant[item.fireAt] = item
        }
        return byInstant.values.sorted { $0.fireAt < $1.fireAt }
    }

    /// How late a reminder may still ring: one found later than this (the server was down) is logged as missed,
    /// because an alarm for a window that moved on would mislead more than it helps.
    public static let deliveryGrace: TimeInterval = 120

    /// Whether a due reminder still rings at `now`, or is only logged as missed.
    public static func stillRings(_ reminder: Reminder, at now: Date) -> Bool {
        now.timeIntervalSince(reminder.fireAt) <= deliveryGrace
    }

    /// The first reminder at or after `instant`.
    public static func next(for session: NightSession?, settings: DoseSettings, after instant: Date) -> Reminder? {
        plan(for: session, settings: settings).first { $0.fireAt >= instant }
    }
}
