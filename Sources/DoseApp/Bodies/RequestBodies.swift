public import DoseCore
public import DoseStore
public import Foundation

/// A request's bytes as strict JSON: an object, no key twice. `BodyDecoder` reads it into the route's body type.
public struct JSONBody {
    /// The decoded object.
    public let object: [String: JSONValue]

    /// Decodes the bytes of a request; an empty body is an empty object. A key that appears twice in any object is
    /// refused: JSON parsers disagree on which one wins, so a body that means two things means neither.
    public init(data: Data) throws(DoseError) {
        guard !data.isEmpty else {
            object = [:]
            return
        }
        let allowed = "a JSON object (RFC 8259, UTF-8) such as {\"type\": \"dose1\"}"
        switch StrictJSON.problem(in: data) {
        case .duplicateKey(let key)?: throw .invalidInput(field: key, problem: "the key appears twice in one object", allowed: "each key once")
        case .invalid(let problem)?: throw .invalidInput(field: "body", problem: "the body is not strict JSON: \(problem)", allowed: allowed)
        case nil: break
        }
        guard let object = JSONValue.parse(data)?.objectValue else {
            throw .invalidInput(field: "body", problem: "the body is not a JSON object", allowed: allowed)
        }
        self.object = object
    }

    /// How a wrong value is named in a message, without echoing a long text back.
    static func describe(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text): "the text '\(text.prefix(20))\(text.count > 20 ? "…" : "")'"
        case .bool(let flag): flag ? "true" : "false"
        case .array: "a list"
        case .object: "an object"
        case .int(let whole): "'\(whole)'"
        case .double(let number): "'\(String(describing: number).prefix(20))'"
        case .null: "null"
        case .none: "nothing"
        }
    }
}

/// The request bodies of the JSON API, by route, for fuzzing and consistency tests: each is decoded by `BodyDecoder`
/// and checked by its own type, with no database and no clock.
public enum RequestBodies {
    /// Which body a route takes; the fuzz target runs every one over the same bytes.
    public enum Kind: String, CaseIterable, Sendable {
        case take, skip, snooze, log, wake, checkIn = "checkin", preSleep = "presleep", medications, settings, editEvent = "edit_event"
        case clearAll = "clear_all", undo, pushSubscription = "push_subscription", refill, adjustment, planner, alarmAck = "alarm_ack"
        case editCheckIn = "edit_checkin", share, invitationAnswer = "invitation_answer", ladder, tookAnyway = "took_anyway"

        /// The route's body type.
        public var type: any Decodable.Type {
            switch self {
            case .take: TakeBody.self
            case .skip: SkipBody.self
            case .snooze: SnoozeBody.self
            case .log: LogBody.self
            case .wake: WakeBody.self
            case .checkIn: CheckInBody.self
            case .preSleep: PreSleepBody.self
            case .medications: MedicationsBody.self
            case .settings: SettingsBody.self
            case .editEvent: EventEditBody.self
            case .clearAll: ClearAllBody.self
            case .undo: UndoBody.self
            case .pushSubscription: PushSubscriptionBody.self
            case .refill: RefillBody.self
            case .adjustment: AdjustmentBody.self
            case .planner: PlannerBody.self
            case .alarmAck: AlarmAckBody.self
            case .editCheckIn: CheckInEditBody.self
            case .share: ShareBody.self
            case .invitationAnswer: InvitationAnswerBody.self
            case .ladder: LadderBody.self
            case .tookAnyway: TookAnywayBody.self
            }
        }
    }

    /// The keys a body of `kind` takes, when its type lists them (`nil` for the settings' and the questionnaires',
    /// whose keys are the settings' and the models' own).
    public static func keys(_ kind: Kind) -> [String]? {
        let listed: (any BodyKey.Type)? =
            switch kind {
            case .take: TakeBody.CodingKeys.self
            case .skip: SkipBody.CodingKeys.self
            case .snooze: SnoozeBody.CodingKeys.self
            case .log: LogBody.CodingKeys.self
            case .wake: WakeBody.CodingKeys.self
            case .tookAnyway: TookAnywayBody.CodingKeys.self
            case .medications: MedicationsBody.CodingKeys.self
            case .editEvent: EventEditBody.CodingKeys.self
            case .clearAll: ClearAllBody.CodingKeys.self
            case .undo: EmptyBody.NoKeys.self
            case .pushSubscription: PushSubscriptionBody.CodingKeys.self
            case .refill: RefillBody.CodingKeys.self
            case .adjustment: AdjustmentBody.CodingKeys.self
            case .planner: PlannerBody.CodingKeys.self
            case .alarmAck: AlarmAckBody.CodingKeys.self
            case .share: ShareBody.CodingKeys.self
            case .invitationAnswer: InvitationAnswerBody.CodingKeys.self
            case .ladder: LadderBody.CodingKeys.self
            case .checkIn, .preSleep, .settings, .editCheckIn: nil
            }
        return listed.map { BodyValueDecoder.names($0).sorted() }
    }

    /// Decodes a body as the route of `kind` would, with the checks its type makes after decoding; the result is
    /// discarded.
    public static func decode(_ kind: Kind, _ data: Data) throws(DoseError) {
        let body = try decode(kind.type, data)
        switch body {
        case let action as any NightActionBody: _ = try action.action()
        case let medications as MedicationsBody: _ = try medications.inputs()
        case let subscription as PushSubscriptionBody: _ = try subscription.subscription()
        case let share as ShareBody:
            _ = try EmailAddress(share.email)
            _ = try Grant.parse(share.grants)
        case let ladder as LadderBody:
            for rung in ladder.rungs { _ = try EmailAddress(rung.email) }
            try EscalationLadder.check(
                ladder.rungs.map { EscalationLadder.Rung(person: $0.email.lowercased(), minutesAfterDose1: $0.minutesAfterDose1) })
        default: break
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(DoseError) -> T { try BodyDecoder.decode(T.self, from: data) }
}

/// Medication entries written as text, as the command line takes them: `ID:AMOUNT[UNIT]`.
public enum MedicationEntryText {
    /// The form of an entry, for messages.
    public static let form = "ID:AMOUNT[UNIT], e.g. adderall_ir:10mg, xywav:2.25g, xyrem:4.5mL"

    /// Parses `adderall_ir:10mg`, `xywav:2.25g`, `xyrem:4.5mL` or `modafinil:200` (a bare number is mg). An entry
    /// without an amount is refused with the usual dose as a suggestion, never filled in with it.
    public static func parse(_ text: String, at: Date?, note: String?) throws(DoseError) -> MedicationInput {
        guard let colon = text.firstIndex(of: ":") else {
            let medication = try MedicationCatalogue.medication(id: text)
            let usual = NumberText.plain(medication.defaultDoseMg)
            throw .invalidInput(
                field: "amount", problem: "'\(text)' gives no amount",
                allowed: "\(medication.id):AMOUNT[UNIT], e.g. \(medication.id):\(usual)mg for the usual \(usual) mg")
        }
        let medication = try MedicationCatalogue.medication(id: String(text[..<colon]))
        let (amount, unit) = try self.amount(String(text[text.index(after: colon)...]), for: medication)
        return MedicationInput(medicationID: medication.id, amount: amount, unit: unit, takenAt: at, note: note)
    }

    /// Parses `10mg`, `2.25g`, `4.5mL` or `200` (mg): plain decimal digits, so `1e300` or `0x10` are not amounts.
    public static func amount(_ text: String, for medication: Medication) throws(DoseError) -> (Double, DoseUnit) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { ("0"..."9").contains($0) || $0 == "." }
        return try amount(String(digits), unit: String(trimmed.dropFirst(digits.count)), for: medication)
    }

    /// An amount and its unit given apart (the web form's two fields); an empty unit is mg.
    public static func amount(_ number: String, unit unitText: String, for medication: Medication) throws(DoseError) -> (Double, DoseUnit) {
        let number = number.trimmingCharacters(in: .whitespaces)
        let unitText = unitText.trimmingCharacters(in: .whitespaces)
        let unit = unitText.isEmpty ? DoseUnit.mg : DoseUnit.allCases.first { $0.rawValue.lowercased() == unitText.lowercased() }
        guard let unit else {
            throw .invalidInput(field: "unit", problem: "'\(unitText)' is not a unit", allowed: "mg, g, mL (" + form + ")")
        }
        guard let amount = NumberText.plainDecimal(number) else {
            throw .invalidInput(
                field: "amount", problem: "'\(number)' is not an amount", allowed: allowedAmounts(for: medication, unit: unit) + " (" + form + ")")
        }
        return (amount, unit)
    }

    /// The accepted amounts of a medication in a unit, in words.
    public static func allowedAmounts(for medication: Medication, unit: DoseUnit) -> String {
        guard let range = MedicationCatalogue.acceptedAmounts(for: medication, unit: unit) else { return "a number, in mg or g" }
        return "a number from \(NumberText.plain(range.lowerBound)) to \(NumberText.plain(range.upperBound)) \(unit.rawValue)"
    }
}

/// An `application/x-www-form-urlencoded` body (the web pages' forms), parsed without Foundation's URLComponents,
/// whose query setter traps on a malformed escape such as `%zz`.
public enum FormBody {
    /// The fields of a form; a repeated field (checkboxes) arrives as one comma-separated value.
    public static func fields(_ data: Data) throws(DoseError) -> [String: String] {
        let text = String(decoding: data, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0])
            let value = parts.count > 1 ? try decode(parts[1]) : ""
            if let earlier = fields[name] { fields[name] = earlier + "," + value } else { fields[name] = value }
        }
        return fields
    }

    static func decode(_ text: Substring) throws(DoseError) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw .invalidInput(field: "form", problem: "'\(text.prefix(40))' is not form-encoded text", allowed: "a form sent by a DoseTap page")
        }
        return decoded
    }
}
