public import DoseCore
public import Foundation

/// A body of one of the night's actions: what it asks for, and the client's event id for safe replays.
public protocol NightActionBody: Decodable {
    /// The client's own id for the event (`id`), if it sent one.
    var id: String? { get }
    /// The action the body asks for, after the checks only the route knows (a dose's type, a snooze's length).
    func action() throws(DoseError) -> NightAction
}

/// What the keys the night's bodies share take, in words.
enum SharedKeys {
    static let note = "text, up to 500 characters"
    static func confirm(_ accepted: [ConfirmKind]) -> String {
        "a list of " + accepted.map(\.rawValue).joined(separator: ", ") + ", such as [\"\(accepted[0].rawValue)\"]"
    }

    /// A questionnaire's body split in two: the keys beside the answers, decoded as `Beside`, and the answers, which
    /// the model decodes by its own keys.
    static func separating<Beside: Decodable>(
        _ type: Beside.Type, _ keys: [String], from decoder: any Decoder
    ) throws -> (beside: Beside, answers: [String: JSONValue]) {
        var answers = try decoder.singleValueContainer().decode(JSONValue.self).objectValue ?? [:]
        var beside: [String: JSONValue] = [:]
        for key in keys { beside[key] = answers.removeValue(forKey: key) }
        return (try BodyDecoder.decode(Beside.self, from: .object(beside)), answers)
    }

    /// The confirmations a body lists, each one a name the route accepts.
    static func confirmations(_ names: [String]?, accepted: [ConfirmKind] = ConfirmKind.nightKinds) throws(DoseError) -> Set<ConfirmKind> {
        var kinds: Set<ConfirmKind> = []
        for name in names ?? [] {
            guard let kind = ConfirmKind(rawValue: name), accepted.contains(kind) else {
                throw .invalidInput(field: "confirm", problem: "'\(name)' is not a confirmation", allowed: confirm(accepted))
            }
            kinds.insert(kind)
        }
        return kinds
    }
}

/// `POST /v1/doses/take` `{type: dose1|dose2, timestamp?, note?, confirm?, id?}`.
public struct TakeBody: NightActionBody {
    public var type: String
    public var timestamp: Date?
    public var note: String?
    public var confirm: [String]?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case type, timestamp, note, confirm, id
        public var allowed: String {
            switch self {
            case .type: "dose1, dose2"
            case .timestamp: BodyDecoder.instantForm
            case .note: SharedKeys.note
            case .confirm: SharedKeys.confirm(ConfirmKind.nightKinds)
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        let kind: NightAction.Kind =
            switch type {
            case "dose1": .dose1
            case "dose2": .dose2
            default: throw .invalidInput(field: "type", problem: "'\(type.prefix(40))' is not a dose", allowed: CodingKeys.type.allowed)
            }
        return NightAction(kind, at: timestamp, note: note, confirmations: try SharedKeys.confirmations(confirm))
    }
}

/// `POST /v1/doses/skip` `{sequence?: 2, reason?, timestamp?, note?, id?}`.
public struct SkipBody: NightActionBody {
    public var sequence: Int?
    public var reason: String?
    public var timestamp: Date?
    public var note: String?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case sequence, reason, timestamp, note, id
        public var allowed: String {
            switch self {
            case .sequence: "2"
            case .reason: "text, such as the reason the dose was skipped"
            case .timestamp: BodyDecoder.instantForm
            case .note: SharedKeys.note
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        if let sequence, sequence != 2 { throw .invalidInput(field: "sequence", problem: "only Dose 2 can be skipped", allowed: "2") }
        return NightAction(.skip(reason: reason), at: timestamp, note: note)
    }
}

/// `POST /v1/doses/snooze` `{minutes?: 10, timestamp?, id?}`.
public struct SnoozeBody: NightActionBody {
    public var minutes: Int?
    public var timestamp: Date?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case minutes, timestamp, id
        public var allowed: String {
            switch self {
            case .minutes: String(DoseWindow.snoozeMinutes)
            case .timestamp: BodyDecoder.instantForm
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        if let minutes, minutes != DoseWindow.snoozeMinutes {
            throw .invalidInput(
                field: "minutes", problem: "a snooze is always \(DoseWindow.snoozeMinutes) minutes", allowed: CodingKeys.minutes.allowed)
        }
        return NightAction(.snooze, at: timestamp)
    }
}

/// `POST /v1/events/log` `{type, timestamp?, note?, confirm?, id?}`.
public struct LogBody: NightActionBody {
    public var type: String
    public var timestamp: Date?
    public var note: String?
    public var confirm: [String]?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case type, timestamp, note, confirm, id
        public var allowed: String {
            switch self {
            case .type: "a sleep event's wire name, such as bathroom or wake_temp"
            case .timestamp: BodyDecoder.instantForm
            case .note: SharedKeys.note
            case .confirm: SharedKeys.confirm([.endNight])
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        // On the wire an event is named by its wire name exactly: no case folding, no labels (the CLI takes those).
        guard type == SleepEventCatalogue.normalize(type) else {
            throw .invalidInput(
                field: "type", problem: "'\(type.prefix(40))' is not a wire name",
                allowed: "the event's wire name, lower case with underscores, such as bathroom or wake_temp")
        }
        return NightAction(.log(event: type), at: timestamp, note: note, confirmations: try SharedKeys.confirmations(confirm, accepted: [.endNight]))
    }
}

/// `POST /v1/events/wake` `{timestamp?, confirm?, id?}`.
public struct WakeBody: NightActionBody {
    public var timestamp: Date?
    public var confirm: [String]?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case timestamp, confirm, id
        public var allowed: String {
            switch self {
            case .timestamp: BodyDecoder.instantForm
            case .confirm: SharedKeys.confirm([.endNight])
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        NightAction(.wake, at: timestamp, confirmations: try SharedKeys.confirmations(confirm, accepted: [.endNight]))
    }
}

/// `POST /v1/events/took-anyway` `{timestamp?, amount_mg?, note?, id?}`: a dose really taken past what Tonight allows
/// (D20), recorded as it was.
public struct TookAnywayBody: NightActionBody {
    public var timestamp: Date?
    public var amountMilligrams: Int?
    public var note: String?
    public var id: String?

    public enum CodingKeys: String, BodyKey {
        case timestamp, amountMilligrams = "amount_mg", note, id
        public var allowed: String {
            switch self {
            case .timestamp: BodyDecoder.instantForm
            case .amountMilligrams: "a whole number of mg, \(DoseSettings.doseAmountRange.lowerBound)–\(DoseSettings.doseAmountRange.upperBound)"
            case .note: SharedKeys.note
            case .id: EventID.clientForm
            }
        }
    }

    public func action() throws(DoseError) -> NightAction {
        NightAction(.takenAnyway(amountMilligrams: amountMilligrams), at: timestamp, note: note)
    }
}

/// `POST /v1/undo`: no body, or an empty object.
public struct UndoBody: NightActionBody {
    public var id: String? { nil }
    public init(from decoder: any Decoder) throws { _ = try EmptyBody(from: decoder) }
    public func action() throws(DoseError) -> NightAction { NightAction(.undo) }
}

/// A body with no keys (`POST /v1/undo`, `POST /v1/alarm/ack`); no body at all is the same.
public struct EmptyBody: Decodable {
    public init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: NoKeys.self) }

    /// No key at all.
    public struct NoKeys: BodyKey {
        public static let allCases: [NoKeys] = []
        public var stringValue: String { "" }
        public var intValue: Int? { nil }
        public var allowed: String { "" }
        public init?(stringValue: String) { nil }
        public init?(intValue: Int) { nil }
    }
}

/// `POST /v1/checkins`: the check-in's answers, plus `timestamp?`, `confirm?` and `id?` beside them.
public struct CheckInBody: NightActionBody {
    public var answers: MorningCheckIn
    public var envelope: Envelope
    public var id: String? { envelope.id }

    /// The keys beside the answers.
    public struct Envelope: Decodable {
        public var timestamp: Date?
        public var confirm: [String]?
        public var id: String?
        enum CodingKeys: String, CodingKey { case timestamp, confirm, id }
    }

    public init(from decoder: any Decoder) throws {
        let (envelope, answers) = try SharedKeys.separating(Envelope.self, ["timestamp", "confirm", "id"], from: decoder)
        self.envelope = envelope
        self.answers = try AnswerDecoding.decode(MorningCheckIn.self, from: answers, allowed: AnswerDecoding.checkInAllowed)
    }

    public func action() throws(DoseError) -> NightAction {
        NightAction(
            .checkIn(answers), at: envelope.timestamp, confirmations: try SharedKeys.confirmations(envelope.confirm, accepted: [.endNight]))
    }
}
