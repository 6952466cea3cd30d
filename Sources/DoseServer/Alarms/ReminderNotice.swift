public import DoseApp
public import DoseCore
public import Foundation

/// One notice as it is delivered: a reminder of the plan, or a test alarm.
public struct ReminderNotice: Sendable, Hashable {
    /// The reminder; nil for a test alarm.
    public var kind: ReminderKind?
    public var fireAt: Date
    /// After this the notice is no use (push services may drop it; retries stop).
    public var usefulUntil: Date
    /// The night; empty for a test alarm.
    public var sessionID: String
    /// Who it is for.
    public var audience: ReminderAudience
    /// The words shown and spoken.
    public var message: String
    /// Signed one-time action link tokens (`/a/TOKEN`), for the sleeper's reminders only.
    public var tokens: [ActionLink.Action: String]
    /// The links behind `tokens`, unsigned, so a channel can issue them to the device it delivers to (`issued`).
    public var actionLinks: [ActionLink.Action: ActionLink] = [:]
    /// Where links point (e.g. `http://192.168.1.20:8080`), when the server knows its address.
    public var linkBase: String?
    /// Whose notice it is on a shared PostgreSQL store (SPEC §5.6: the operator's webhook receives every person's); nil on
    /// a SQLite file, which holds one person.
    public var person: String?
    /// A daily refill reminder rather than a night's reminder or a test.
    public private(set) var isRefill = false

    /// A reminder of the plan.
    public init(
        kind: ReminderKind, fireAt: Date, usefulUntil: Date? = nil, sessionID: String, message: String? = nil,
        tokens: [ActionLink.Action: String] = [:], linkBase: String? = nil
    ) {
        // A contact's notice never carries an action that could take a dose.
        self.init(
            kind: kind, audience: kind.audience, fireAt: fireAt, usefulUntil: usefulUntil ?? fireAt.addingTimeInterval(ReminderPlan.deliveryGrace),
            sessionID: sessionID, message: message ?? kind.message, tokens: kind.audience == .contact ? [:] : tokens, linkBase: linkBase)
    }

    private init(
        kind: ReminderKind?, audience: ReminderAudience, fireAt: Date, usefulUntil: Date, sessionID: String, message: String,
        tokens: [ActionLink.Action: String], linkBase: String?
    ) {
        self.kind = kind
        self.audience = audience
        self.fireAt = fireAt
        self.usefulUntil = usefulUntil
        self.sessionID = sessionID
        self.message = message
        self.tokens = tokens
        self.linkBase = linkBase
    }

    /// An alert of the escalation ladder, for the grantee told: it rings on their own alarm channels, carries the
    /// person's night in words, and no action that could take a dose.
    public static func ladder(_ alert: LadderAlert) -> ReminderNotice {
        ReminderNotice(
            kind: .escalation, audience: .sleeper, fireAt: alert.fireAt, usefulUntil: alert.usefulUntil, sessionID: alert.sessionID,
            message: alert.message, tokens: [:], linkBase: nil)
    }

    /// A test alarm for one audience. It is useful for a minute: a test that cannot get through by then has its
    /// answer, and the person is waiting for it.
    public static func test(for audience: ReminderAudience, at now: Date) -> ReminderNotice {
        let message =
            audience == .sleeper
            ? "DoseTap test alarm: this is how tonight's Dose 2 alarm will reach you."
            : "DoseTap test: this is how you will be told if Dose 2 is still pending at the escalation point."
        return ReminderNotice(
            kind: nil, audience: audience, fireAt: now, usefulUntil: now.addingTimeInterval(60), sessionID: "", message: message, tokens: [:],
            linkBase: nil)
    }

    /// The refill reminder of a day the supply is low: a notice, not an alarm, useful for the rest of the day.
    public static func refill(message: String, at now: Date) -> ReminderNotice {
        var notice = ReminderNotice(
            kind: nil, audience: .sleeper, fireAt: now, usefulUntil: now.addingTimeInterval(12 * 3600), sessionID: "", message: message, tokens: [:],
            linkBase: nil)
        notice.isRefill = true
        return notice
    }

    /// The kind's name on the wire and in the log: the reminder kind, `refill_reminder`, or `test`.
    public var name: String { isRefill ? "refill_reminder" : kind?.rawValue ?? "test" }

    /// Whether it should ring.
    public var rings: Bool { isRefill ? false : kind?.rings ?? true }

    /// The notice as sent to one paired device: its links name the device, so revoking it voids them.
    public func issued(to device: String, signer: ActionLinkSigner?) -> ReminderNotice {
        guard let signer, !actionLinks.isEmpty else { return self }
        var copy = self
        copy.tokens = actionLinks.mapValues { signer.token(for: $0.issued(to: device)) }
        return copy
    }

    /// The action links as absolute URLs (none without a link base).
    public var links: [ActionLink.Action: String] {
        guard let linkBase else { return [:] }
        return tokens.mapValues { linkBase + "/a/" + $0 }
    }

    /// The push `Topic`: a newer notice of the same night replaces an older one still waiting at the push service.
    public var topic: String {
        if isRefill { return "dosetap-refill" }
        if kind == nil { return "dosetap-test" }
        if audience == .contact { return "dosetap-escalation" }
        return "dosetap-night-" + String(sessionID.filter { $0.isLetter || $0.isNumber }.prefix(18))
    }

    /// The occurrence's key, the same on every attempt and every instance: a webhook's `Idempotency-Key`, and the
    /// `occurrence` of its body, by which a receiver can tell a copy sent again after a crash.
    public var occurrence: String { "\(person.map { $0 + "/" } ?? "")\(sessionID)/\(name)@\(ISO8601.string(fireAt))" }

    /// The JSON body of server-sent events and webhooks.
    public var json: JSONValue {
        var body: JSONValue = [
            "type": "reminder", "kind": .string(name), "message": .string(message), "rings": .bool(rings),
            "fire_at": .string(ISO8601.string(fireAt)), "session_id": .string(sessionID), "audience": .string(audience.rawValue),
            "occurrence": .string(occurrence),
        ]
        if let person { body["person_id"] = .string(person) }
        let links = self.links
        if !links.isEmpty { body["actions"] = .object(Dictionary(uniqueKeysWithValues: links.map { ($0.key.rawValue, JSONValue.string($0.value)) })) }
        return body
    }

    /// What the service worker receives: the notification's title, body, tag and actions, links relative to the
    /// server that sent them (the worker's own origin).
    public var pushPayload: JSONValue {
        let title =
            if isRefill { "DoseTap — order a refill" } else if kind == nil { "DoseTap — test alarm" } else if audience == .contact {
                "DoseTap — please check on them"
            } else { kind?.rings == true ? "DoseTap — Dose 2" : "DoseTap" }
        let actions: [JSONValue] = ActionLink.Action.allCases.compactMap { action in
            tokens[action].map { ["action": .string(action.rawValue), "title": .string(action.label), "url": .string("/a/" + $0)] }
        }
        return [
            "title": .string(title), "body": .string(message), "tag": .string(topic), "kind": .string(name), "rings": .bool(rings),
            "fire_at": .string(ISO8601.string(fireAt)), "session_id": .string(sessionID), "audience": .string(audience.rawValue),
            "actions": .array(actions),
        ]
    }
}
