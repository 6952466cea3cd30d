public import DoseCore
public import DoseStore
public import Foundation

// The answers of the alarm routes and commands: subscriptions, "I'm up", a night's alarm log and the test alarm.

/// The answer to "I'm up".
public struct AcknowledgeResponse: Encodable, Sendable {
    var acknowledgedAt: Date
    var sessionID: String?
    var surface: String
    var answered: [Answered]
    /// What it did, in words.
    public internal(set) var message: String

    struct Answered: Encodable, Sendable {
        var kind: String
        var fireAt: Date

        enum CodingKeys: String, CodingKey { case kind, fireAt = "fire_at" }
    }

    enum CodingKeys: String, CodingKey {
        case acknowledgedAt = "acknowledged_at", sessionID = "session_id", surface, answered, message
    }

    init(at: Date, sessionID: String?, surface: AlarmSurface, answered: [LoggedReminder]) {
        acknowledgedAt = at
        self.sessionID = sessionID
        self.surface = surface.rawValue
        self.answered = answered.map { Answered(kind: $0.kindName, fireAt: $0.fireAt) }
        message =
            sessionID == nil
            ? "No night is open, so there was no alarm to answer."
            : answered.isEmpty ? "Noted: you are up. No alarm was ringing." : "Alarm answered. Nothing more will ring for it."
    }
}

/// One push subscription as listed (never its endpoint or keys: the endpoint is a capability).
public struct PushSubscriptionResponse: Encodable, Sendable {
    var id, device, service, role: String
    var createdAt: Date
    var expiresAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, device, service, role, createdAt = "created_at", expiresAt = "expires_at"
    }

    /// A subscription and the name of the device that holds it.
    public init(_ subscription: PushSubscriptionRecord, deviceName: String) {
        id = subscription.id
        device = deviceName
        service = URLComponents(string: subscription.endpoint)?.host ?? "?"
        role = subscription.role.rawValue
        createdAt = subscription.createdAt
        expiresAt = subscription.expiresAt
    }
}

/// `GET /v1/push/subscriptions`: the key browsers subscribe with, and the subscriptions.
public struct PushSubscriptionsResponse: Encodable, Sendable {
    var vapidPublicKey: String
    var subscriptions: [PushSubscriptionResponse]

    enum CodingKeys: String, CodingKey { case vapidPublicKey = "vapid_public_key", subscriptions }

    public init(vapidPublicKey: String, subscriptions: [PushSubscriptionResponse]) {
        self.vapidPublicKey = vapidPublicKey
        self.subscriptions = subscriptions
    }
}

/// A night's alarms: each reminder, where it went, and who answered it when.
public struct AlarmLogResponse: Encodable, Sendable {
    var sessionID: String
    var entries: [Entry]

    struct Entry: Encodable, Sendable {
        var kind, label: String
        var fireAt: Date
        var missed: Bool
        var audience: String
        var channels: [Channel]
        var acknowledgedAt: Date?
        var acknowledgedBy: String?
        /// The line Details shows: "01:15 wake alarm → page, push (2 devices), ntfy; acknowledged 01:16 by push action".
        var text: String

        enum CodingKeys: String, CodingKey {
            case kind, label, fireAt = "fire_at", missed, audience, channels, acknowledgedAt = "acknowledged_at", acknowledgedBy = "acknowledged_by",
                text
        }
    }

    struct Channel: Encodable, Sendable {
        var channel: String
        var targets, accepted, attempts: Int

        /// "push (2 devices)", "push (1 of 2 devices)", "ntfy", "webhook (failed)".
        var words: String {
            let noun = channel == "push" ? (targets == 1 ? "device" : "devices") : "targets"
            if accepted == 0 { return channel == "page" ? "no page open" : "\(channel) (failed)" }
            if channel == "page" { return "page" }
            if channel == "push" { return accepted == targets ? "push (\(targets) \(noun))" : "push (\(accepted) of \(targets) \(noun))" }
            return targets == 1 || accepted == targets ? channel : "\(channel) (\(accepted) of \(targets))"
        }
    }

    enum CodingKeys: String, CodingKey { case sessionID = "session_id", entries }

    /// The log of one night, its times in `zone`.
    public init(_ log: NightAlarmLog, sessionID: SessionID, zone: TimeZone) {
        self.sessionID = sessionID.rawValue
        let ringing = log.reminders.filter { !$0.missed && ($0.kind?.rings ?? false) }
        entries = log.reminders.map { reminder in
            let attempts = log.deliveries.filter { $0.kind == reminder.kindName && $0.fireAt == reminder.fireAt }
            let channels = AlarmChannel.allCases.compactMap { channel -> Channel? in
                let mine = attempts.filter { $0.channel == channel }
                guard !mine.isEmpty else { return nil }
                let targets = Set(mine.map(\.target))
                let accepted = Set(mine.filter { $0.outcome == .accepted }.map(\.target))
                return Channel(channel: channel.rawValue, targets: targets.count, accepted: accepted.count, attempts: mine.count)
            }
            // An answer is shown once, on the last ringing reminder before it.
            let nextRing = ringing.first { $0.fireAt > reminder.fireAt }?.fireAt ?? .distantFuture
            let answer =
                ringing.contains(reminder)
                ? log.acknowledgements.first { $0.at >= reminder.fireAt && $0.at < nextRing } : nil
            let clock = LocalClock.hourMinute(reminder.fireAt, in: zone)
            let label = reminder.kind?.label ?? reminder.kindName
            var text = "\(clock) \(label)"
            if reminder.missed {
                text += " — missed: DoseTap's server was not running"
            } else {
                text += " → " + (channels.isEmpty ? "no channel" : channels.map(\.words).joined(separator: ", "))
            }
            if let answer {
                let how = answer.eventID == nil ? "“I'm up” on \(answer.surface.label)" : answer.surface.label
                text += "; acknowledged \(LocalClock.hourMinute(answer.at, in: zone)) by \(how)"
            }
            return Entry(
                kind: reminder.kindName, label: label, fireAt: reminder.fireAt, missed: reminder.missed,
                audience: (reminder.kind?.audience ?? .sleeper).rawValue, channels: channels, acknowledgedAt: answer?.at,
                acknowledgedBy: answer.map { $0.eventID == nil ? "\($0.surface.rawValue)_im_up" : $0.surface.rawValue }, text: text)
        }
    }

    /// The lines, for Details and the CLI.
    public var lines: [String] { entries.map(\.text) }

    /// The alarms that went off (missed ones left out), as instants and names, for the marks on a night's chart.
    public var marks: [(at: Date, label: String)] { entries.filter { !$0.missed }.map { (at: $0.fireAt, label: $0.label) } }
}

/// The alarm logs of one or more nights (`GET /v1/alarm/log`, `dosetap alarm log`).
public struct AlarmLogsResponse: Encodable, Sendable {
    var nights: [AlarmLogResponse]

    public init(nights: [AlarmLogResponse]) { self.nights = nights }

    /// Every night's lines, in order.
    public var lines: [String] { nights.flatMap(\.lines) }
}

/// The test alarm's report: per channel and target, whether it was accepted and how long it took.
public struct AlarmTestResponse: Encodable, Sendable {
    var sentAt: Date
    var channels: [Result]
    /// Whether every channel took it (and there was at least one).
    public internal(set) var allAccepted: Bool
    /// The outcome, in words.
    public internal(set) var message: String

    struct Result: Encodable, Sendable {
        var channel, audience, target: String
        var accepted: Bool
        var attempts: Int
        var httpStatus: Int?
        var milliseconds: Int?
        var detail: String?

        enum CodingKeys: String, CodingKey {
            case channel, audience, target, accepted, attempts, httpStatus = "http_status", milliseconds = "duration_ms", detail
        }
    }

    /// A channel's outcome as a device sees it (`coarse()`): no status, no timing.
    struct CoarseResult: Encodable, Sendable {
        var channel, audience, target: String
        var accepted: Bool
        var attempts: Int
        var detail: String?
    }

    /// Set by `coarse()`: the report is for a paired device.
    var isCoarse = false

    enum CodingKeys: String, CodingKey { case sentAt = "sent_at", channels, allAccepted = "all_accepted", message, lines }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sentAt, forKey: .sentAt)
        if isCoarse {
            let coarse = channels.map {
                CoarseResult(
                    channel: $0.channel, audience: $0.audience, target: $0.target, accepted: $0.accepted, attempts: $0.attempts, detail: $0.detail)
            }
            try container.encode(coarse, forKey: .channels)
        } else {
            try container.encode(channels, forKey: .channels)
        }
        try container.encode(allAccepted, forKey: .allAccepted)
        try container.encode(message, forKey: .message)
        try container.encode(lines, forKey: .lines)
    }

    /// The report of the attempts one test made.
    public init(sentAt: Date, attempts: [AlarmDeliveryRecord]) {
        self.sentAt = sentAt
        var results: [Result] = []
        for attempt in attempts {
            let key = (attempt.channel.rawValue, attempt.audience.rawValue, attempt.target)
            if let index = results.firstIndex(where: { ($0.channel, $0.audience, $0.target) == key }) {
                results[index].attempts += 1
                results[index].accepted = attempt.outcome == .accepted
                results[index].httpStatus = attempt.httpStatus
                results[index].milliseconds = (results[index].milliseconds ?? 0) + attempt.durationMilliseconds
                results[index].detail = attempt.detail
            } else {
                results.append(
                    Result(
                        channel: key.0, audience: key.1, target: key.2, accepted: attempt.outcome == .accepted, attempts: 1,
                        httpStatus: attempt.httpStatus,
                        milliseconds: attempt.durationMilliseconds, detail: attempt.detail))
            }
        }
        channels = results
        // No page open is no fault of a channel: the test is about the alarms that reach a closed app.
        let counted = results.filter { !($0.channel == AlarmChannel.page.rawValue && !$0.accepted) }
        allAccepted = !counted.isEmpty && counted.allSatisfy(\.accepted)
        message =
            counted.isEmpty
            ? "No channel is set up: tonight's alarm would ring only on an open page. Subscribe this phone on Settings, or add ntfy or a webhook."
            : allAccepted
                ? "Every channel accepted the test alarm." : "Some channels did not accept the test alarm: see each one below."
    }

    /// The report as a paired device may see it: accepted or not, with a coarse reason, and never another host's
    /// HTTP status or timing (which would make the test a scanner of what the server can reach).
    public func coarse() -> AlarmTestResponse {
        var copy = self
        copy.isCoarse = true
        copy.channels = channels.map { result in
            var result = result
            result.httpStatus = nil
            result.milliseconds = nil
            if !result.accepted, result.channel != AlarmChannel.page.rawValue {
                result.detail = result.detail?.hasPrefix("not sent:") == true ? "not sent: the address is not allowed" : "not accepted"
            }
            return result
        }
        return copy
    }

    /// One line per channel for people.
    public var lines: [String] {
        channels.map { result in
            // An open page rings at once; its delivery time says nothing a person can use.
            if result.channel == AlarmChannel.page.rawValue {
                return result.accepted
                    ? "Open Tonight pages: rang on \(result.target)" : "Open Tonight pages: none right now (a page rings only while it is open)"
            }
            let who = result.audience == ReminderAudience.contact.rawValue ? " (escalation contact)" : ""
            let outcome = result.accepted ? "accepted" : "NOT accepted" + (result.detail.map { ": \($0)" } ?? "")
            let tries = result.attempts > 1 ? ", \(result.attempts) attempts" : ""
            return "\(result.channel) → \(result.target)\(who): \(outcome)\(result.milliseconds.map { " in \($0) ms" } ?? "")\(tries)"
        }
    }
}
