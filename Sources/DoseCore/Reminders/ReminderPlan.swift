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
    /// The wake alarm again, on every channel, when nobody answered it (setting `wake_alarm_refire_minutes`).
    case wakeAlarmRefire = "wake_alarm_refire"
    case warning15Minutes = "warning_15_min"
    case warning5Minutes = "warning_5_min"
    case warning2Minutes = "warning_2_min"
    case warning30Seconds = "warning_30_sec"
    case windowExpired = "window_expired"
    /// The escalation contact is told that Dose 2 is still pending (settings `escalation_*`). It goes only to the
    /// contact, never to the sleeper's channels, and carries no action that could take a dose.
    case escalation

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

    /// Who it is for.
    public var audience: ReminderAudience { self == .escalation ? .contact : .sleeper }

    /// Its name in the alarm log ("wake alarm", "15-minute warning").
    public var label: String {
        switch self {
        case .windowOpen: "window open"
        case .preAlarm: "pre-alarm"
        case .warning30Minutes: "30-minute warning"
        case .wakeAlarm: "wake alarm"
        case .followUp1: "follow-up 1"
        case .followUp2: "follow-up 2"
        case .followUp3: "follow-up 3"
        case .wakeAlarmRefire: "wake alarm again (unanswered)"
        case .warning15Minutes: "15-minute warning"
        case .warning5Minutes: "5-minute warning"
        case .warning2Minutes: "2-minute warning"
        case .warning30Seconds: "30-second warning"
        case .windowExpired: "window closed"
        case .escalation: "escalation to contact"
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
        case .wakeAlarmRefire: "Time for Dose 2 — the alarm was not answered."
        case .warning15Minutes: "15 minutes left to take Dose 2. Snooze is off."
        case .warning5Minutes: "5 minutes left to take Dose 2."
        case .warning2Minutes: "2 minutes left to take Dose 2."
        case .warning30Seconds: "30 seconds left to take Dose 2."
        case .windowExpired: "The Dose 2 window has closed."
        case .escalation: "DoseTap: Dose 2 has not been taken and its window closes soon. Please wake them; they decide about the dose."
        }
    }
}

/// Who a reminder is for.
public enum ReminderAudience: String, Sendable, Codable {
    /// The person taking the doses: pages, their push subscriptions, webhooks, the command hook.
    case sleeper
    /// The escalation contact (a bed partner): their ntfy topic, webhook or push subscription.
    case contact
}

/// One planned reminder.
public struct Reminder: Hashable, Sendable {
    /// What it is.
    public let kind: ReminderKind
    /// When it goes off.
    public let fireAt: Date
    /// When it stops being useful (a push service may drop it after this): the window's close, or for the closing
    /// notice itself, the sleep-through expiry.
    public let usefulUntil: Date

    /// A reminder; `usefulUntil` defaults to its own instant.
    public init(kind: ReminderKind, fireAt: Date, usefulUntil: Date? = nil) {
        self.kind = kind
        self.fireAt = fireAt
        self.usefulUntil = usefulUntil ?? fireAt
    }
}

/// The reminder plan, a pure function of a session's events and the settings.
public enum ReminderPlan {
    /// The pre-alarm comes this long before the target.
    public static let preAlarmLeadMinutes = 5.0
    /// The wake alarm's follow-ups come this far apart, three of them.
    public static let followUpSpacingMinutes = 2.0

    /// Every reminder of the night in time order, past ones included. Empty when there is nothing to remind
    /// of: no Dose 1, a once-nightly night (no Dose 2), Dose 2 taken or skipped (expiry included), wake-up logged,
    /// session closed, or reminders off.
    /// `acknowledgedAt` are the instants someone answered an alarm ("I'm up"); any action a person recorded answers
    /// one too, so the plan reads those from the events itself.
    public static func plan(for session: NightSession?, settings: DoseSettings, acknowledgedAt: [Date] = []) -> [Reminder] {
        guard settings.remindersEnabled, let session, session.isOpen else { return [] }
        let facts = session.facts
        guard let dose1 = facts.dose1?.occurredAt, let window = facts.window, facts.dose2 == nil, facts.skip == nil,
            facts.wake == nil, facts.checkIn == nil
        else { return [] }

        func after(_ minutes: Double) -> Date { dose1.addingTimeInterval(minutes * 60) }
        // Every instant is derived from the window: the countdown warnings count back from its close, the 15-minute
        // one is the near-close boundary itself, so the plan cannot drift from the rules if the window ever changes.
        func beforeClose(_ minutes: Double) -> Date { after(Double(window.closesAfterMinutes) - minutes) }
        let target = Double(settings.targetIntervalMinutes)
        let wake = facts.snoozeUntil ?? after(target)
        let closes = window.closes(after: dose1)

        func reminder(_ kind: ReminderKind, _ fireAt: Date) -> Reminder { Reminder(kind: kind, fireAt: fireAt, usefulUntil: closes) }

        var items: [Reminder] = [
            reminder(.windowOpen, after(Double(window.opensAfterMinutes))),
            reminder(.preAlarm, after(target - ReminderPlan.preAlarmLeadMinutes)),
            reminder(.wakeAlarm, wake),
        ]
        for (index, kind) in [ReminderKind.followUp1, .followUp2, .followUp3].enumerated() {
            items.append(reminder(kind, wake.addingTimeInterval(Double(index + 1) * ReminderPlan.followUpSpacingMinutes * 60)))
        }
        if settings.wakeAlarmRefireMinutes > 0 {
            let refire = wake.addingTimeInterval(Double(settings.wakeAlarmRefireMinutes) * 60)
            let answers = acknowledgedAt + session.events.filter { $0.source.isPerson }.map(\.recordedAt)
            if !answers.contains(where: { $0 >= wake && $0 < refire }) { items.append(reminder(.wakeAlarmRefire, refire)) }
        }
        items += [
            reminder(.warning30Minutes, beforeClose(30)),
            reminder(.warning15Minutes, after(Double(window.nearCloseAfterMinutes))),
            reminder(.warning5Minutes, beforeClose(5)),
            reminder(.warning2Minutes, beforeClose(2)),
            reminder(.warning30Seconds, beforeClose(0.5)),
            Reminder(kind: .windowExpired, fireAt: closes, usefulUntil: window.expires(after: dose1)),
        ]
        // The contact is never told before the sleeper's own alarm has rung (a snooze moves both).
        if settings.escalationEnabled { items.append(reminder(.escalation, max(after(Double(settings.escalationMinutes)), wake))) }
        items.removeAll { $0.fireAt >= closes && $0.kind != .windowExpired }

        // Two reminders for the same person at one instant would ring twice: the more urgent one stays.
        var byInstant: [ReminderAudience: [Date: Reminder]] = [:]
        for item in items {
            if let other = byInstant[item.kind.audience]?[item.fireAt], other.kind.urgency >= item.kind.urgency { continue }
            byInstant[item.kind.audience, default: [:]][item.fireAt] = item
        }
        return byInstant.values.flatMap(\.values).sorted { ($0.fireAt, $0.kind.urgency) < ($1.fireAt, $1.kind.urgency) }
    }

    /// How late a reminder may still ring: one found later than this (the server was down) is logged as missed,
    /// because an alarm for a window that moved on would mislead more than it helps.
    public static let deliveryGrace: TimeInterval = 120

    /// Whether a due reminder still rings at `now`, or is only logged as missed. An escalation is the exception: found
    /// late (the server was down at its point), telling the contact still helps while the window is open.
    public static func stillRings(_ reminder: Reminder, at now: Date) -> Bool {
        if reminder.kind == .escalation { return now < reminder.usefulUntil }
        return now.timeIntervalSince(reminder.fireAt) <= deliveryGrace
    }

    /// The sleeper's first reminder at or after `instant`.
    public static func next(for session: NightSession?, settings: DoseSettings, after instant: Date, acknowledgedAt: [Date] = []) -> Reminder? {
        plan(for: session, settings: settings, acknowledgedAt: acknowledgedAt).first { $0.fireAt >= instant && $0.kind.audience == .sleeper }
    }
}
