public import DoseCore
public import DoseStore
public import Foundation

/// `POST /v1/presleep`: the pre-sleep answers, plus `timestamp?` beside them.
public struct PreSleepBody: Decodable {
    public var answers: PreSleepLog
    public var timestamp: Date?

    /// The key beside the answers.
    struct Envelope: Decodable { var timestamp: Date? }

    public init(from decoder: any Decoder) throws {
        let (envelope, answers) = try SharedKeys.separating(Envelope.self, ["timestamp"], from: decoder)
        timestamp = envelope.timestamp
        self.answers = try AnswerDecoding.decode(PreSleepLog.self, from: answers, allowed: AnswerDecoding.preSleepAllowed)
    }
}

/// `PATCH /v1/checkins/{date}`: a check-in's answers, all of them, in place of the saved ones.
public struct CheckInEditBody: Decodable {
    public var answers: MorningCheckIn

    public init(from decoder: any Decoder) throws {
        let answers = try decoder.singleValueContainer().decode(JSONValue.self).objectValue ?? [:]
        self.answers = try AnswerDecoding.decode(MorningCheckIn.self, from: answers, allowed: AnswerDecoding.checkInAllowed)
    }
}

/// `PATCH /v1/events/{id}` `{timestamp?, note?}`: a `note` key, even null, means the note changes (null removes it).
public struct EventEditBody: Decodable {
    public var timestamp: Date?
    public var note: String??

    public enum CodingKeys: String, BodyKey {
        case timestamp, note
        public var allowed: String {
            switch self {
            case .timestamp: BodyDecoder.instantForm
            case .note: "text, or null to remove the note"
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try values.decodeIfPresent(Date.self, forKey: .timestamp)
        note = values.contains(.note) ? .some(try values.decodeIfPresent(String.self, forKey: .note)) : nil
    }
}

/// `POST /v1/medications` `{entries: [{medication_id, amount, unit?, taken_at?, notes?}], confirm?}`. The amount is
/// required and must be a JSON number: the catalogue's usual dose is never filled in for a person.
public struct MedicationsBody: Decodable {
    public var entries: [Entry]
    public var confirm: [String]?

    public enum CodingKeys: String, BodyKey {
        case entries, confirm
        public var allowed: String {
            switch self {
            case .entries: "[{\"medication_id\": \"adderall_ir\", \"amount\": 10, \"unit\": \"mg\"}]"
            case .confirm: SharedKeys.confirm(ConfirmKind.nightKinds)
            }
        }
    }

    /// One medication taken.
    public struct Entry: Decodable {
        public var medicationID: String
        public var amount: Double
        public var unit: String?
        public var takenAt: Date?
        public var notes: String?

        public enum CodingKeys: String, BodyKey {
            case medicationID = "medication_id", amount, unit, takenAt = "taken_at", notes
            public var allowed: String {
                switch self {
                case .medicationID: "an id from GET /v1/medications/catalogue"
                case .amount: "the amount taken, a number in the entry's unit"
                case .unit: "mg, g, mL"
                case .takenAt: BodyDecoder.instantForm
                case .notes: SharedKeys.note
                }
            }
        }
    }

    /// The confirmations the batch lists.
    public func confirmations() throws(DoseError) -> Set<ConfirmKind> { try SharedKeys.confirmations(confirm) }

    /// The entries as the medication log takes them, each checked against the catalogue.
    public func inputs() throws(DoseError) -> [MedicationInput] {
        guard (1...MedicationRules.batchLimit).contains(entries.count) else {
            throw .invalidInput(
                field: "entries", problem: "\(entries.count) entries", allowed: "1–\(MedicationRules.batchLimit) entries in one batch")
        }
        var inputs: [MedicationInput] = []
        for (index, entry) in entries.enumerated() {
            let medication = try MedicationCatalogue.medication(id: entry.medicationID)
            let unitText = entry.unit ?? DoseUnit.mg.rawValue
            guard let unit = DoseUnit(rawValue: unitText) else {
                throw .invalidInput(field: "entries[\(index)].unit", problem: "'\(unitText)' is not a unit", allowed: Entry.CodingKeys.unit.allowed)
            }
            inputs.append(MedicationInput(medicationID: medication.id, amount: entry.amount, unit: unit, takenAt: entry.takenAt, note: entry.notes))
        }
        return inputs
    }
}

/// `PATCH /v1/settings` `{key: value, …}`: each value of its own JSON type (a number for minutes and counts, true or
/// false for switches, text for zones and times, a list or text for `quick_log`), never text standing for a number.
public struct SettingsBody: Decodable {
    /// The changes as the text `settings set` takes, in key order.
    public var changes: [(key: String, value: String)]
    /// What the person confirmed beside them (`"confirm": ["fast_titration"]`).
    public var confirmations: Set<ConfirmKind>

    /// The confirmations a change of settings may carry.
    public static let acceptedConfirmations: [ConfirmKind] = [.fastTitration]

    public init(from decoder: any Decoder) throws {
        var object = try decoder.singleValueContainer().decode(JSONValue.self).objectValue ?? [:]
        let confirm = object.removeValue(forKey: "confirm")
        guard !object.isEmpty else { throw DoseError.invalidInput(field: "body", problem: "no setting given", allowed: "an object of key: value") }
        let allowed = SharedKeys.confirm(Self.acceptedConfirmations)
        let names = try confirm.map {
            try BodyDecoder.decode([String].self, from: $0, path: [BodyPathKey(stringValue: "confirm")], allowed: ["confirm": allowed])
        }
        confirmations = try SharedKeys.confirmations(names, accepted: Self.acceptedConfirmations)
        changes = try object.keys.sorted().map { key throws(DoseError) in (key, try Self.text(of: object[key] ?? .null, key: key)) }
    }

    static func text(of value: JSONValue, key: String) throws(DoseError) -> String {
        guard let kind = DoseSettings.valueKind(of: key) else { throw DoseSettings.unknownKey(key) }
        let path = [BodyPathKey(stringValue: key)]
        let allowed =
            switch kind {
            case .whole: "a whole number (see `dosetap settings list`)"
            case .boolean: "true or false"
            case .text: "text"
            case .eventList: "a list of event names such as [\"bathroom\", \"water\"]"
            }
        guard value != .null else { throw .invalidInput(field: key, problem: "null is not a value", allowed: allowed) }
        switch kind {
        case .whole: return String(try BodyDecoder.decode(Int.self, from: value, path: path, allowed: [key: allowed]))
        case .boolean: return try BodyDecoder.decode(Bool.self, from: value, path: path, allowed: [key: allowed]) ? "true" : "false"
        case .text: return try BodyDecoder.decode(String.self, from: value, path: path, allowed: [key: allowed])
        case .eventList:
            if case .string(let text) = value { return text }
            return try BodyDecoder.decode([String].self, from: value, path: path, allowed: [key: allowed]).joined(separator: ",")
        }
    }
}

/// `POST /v1/insights/planner` `{"target_interval": 180, "confirm": true}`: applying the weekly planner's suggestion.
public struct PlannerBody: Decodable {
    public var targetInterval: Int
    public var confirm: Bool?

    public enum CodingKeys: String, BodyKey {
        case targetInterval = "target_interval", confirm
        public var allowed: String {
            switch self {
            case .targetInterval: DoseSettings.targetIntervalOptions.map(String.init).joined(separator: ", ") + " (the planner's suggestion)"
            case .confirm: "true, once the change has been read"
            }
        }
    }
}

/// `POST /v1/supply/refills` `{bottles | ml, timestamp?, reason?}`.
public struct RefillBody: Decodable {
    public var bottles: Int?
    public var ml: Double?
    public var timestamp: Date?
    public var reason: String?

    public enum CodingKeys: String, BodyKey {
        case bottles, ml, timestamp, reason
        public var allowed: String {
            switch self {
            case .bottles: "1–12"
            case .ml: "more than 0 and at most 10000 mL"
            case .timestamp: BodyDecoder.instantForm
            case .reason: SharedKeys.note
            }
        }
    }
}

/// `POST /v1/supply/adjustments` `{change_ml | counted_ml, reason, timestamp?}`.
public struct AdjustmentBody: Decodable {
    public var changeML: Double?
    public var countedML: Double?
    public var timestamp: Date?
    public var reason: String?

    public enum CodingKeys: String, BodyKey {
        case changeML = "change_ml", countedML = "counted_ml", timestamp, reason
        public var allowed: String {
            switch self {
            case .changeML: "-10000 to 10000 mL, not 0"
            case .countedML: "0 to 10000 mL"
            case .timestamp: BodyDecoder.instantForm
            case .reason: "text: why the amount changed (spilled, recount, …)"
            }
        }
    }
}

/// `POST /v1/clear-all` `{confirm}`: the phrase, typed out.
public struct ClearAllBody: Decodable {
    public var confirm: String

    public enum CodingKeys: String, BodyKey {
        case confirm
        public var allowed: String { "the phrase, typed out" }
    }
}

/// `POST /v1/alarm/ack` `{}` or `{"via": "push"}`: a notification's own "I'm up", posted by the service worker.
public struct AlarmAckBody: Decodable {
    public var via: String?

    public enum CodingKeys: String, BodyKey {
        case via
        public var allowed: String { "push, or leave it out" }
    }
}
