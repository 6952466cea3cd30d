public import DoseCore
public import DoseStore
public import Foundation

/// A request's JSON object body, checked field by field. Every accessor either returns exactly what was sent or
/// throws `400_INVALID_INPUT` naming the field: a wrong type is never replaced by a default.
public struct JSONBody {
    /// The decoded object.
    public let object: [String: JSONValue]

    /// A body from already decoded fields (a form, a test).
    public init(object: [String: JSONValue]) { self.object = object }

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

    /// The same body, after refusing any key the route does not take: a misspelled `timestamp` must not record the
    /// event now instead of when it happened.
    public func only(_ keys: Set<String>) throws(DoseError) -> JSONBody {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .invalidInput(
                field: unknown, problem: "this request does not take the key '\(unknown)'",
                allowed: keys.isEmpty ? "an empty object" : keys.sorted().joined(separator: ", "))
        }
        return self
    }

    /// Whether the key is present with a value other than null.
    public func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return value != .null
    }

    /// A text field; nil when absent or null.
    public func string(_ key: String) throws(DoseError) -> String? {
        guard has(key) else { return nil }
        guard let text = object[key]?.stringValue else { throw .invalidInput(field: key, problem: "it is not text", allowed: "a string") }
        return text
    }

    /// A number field; nil when absent or null. true/false, text ("5") and numbers beyond a Double are refused.
    public func number(_ key: String, allowed: String) throws(DoseError) -> Double? {
        guard has(key) else { return nil }
        switch object[key] {
        case .int(let whole): return Double(whole)
        case .double(let number) where number.isFinite: return number
        default: throw .invalidInput(field: key, problem: "\(Self.describe(object[key])) is not a number", allowed: allowed)
        }
    }

    /// A whole-number field; nil when absent or null. Fractions and numbers beyond Int are refused, never rounded.
    public func integer(_ key: String, allowed: String) throws(DoseError) -> Int? {
        guard let value = try number(key, allowed: allowed) else { return nil }
        if case .int(let whole) = object[key] { return whole }
        guard let whole = Int(exactly: value) else {
            throw .invalidInput(field: key, problem: "\(NumberText.plain(value)) is not a whole number", allowed: allowed)
        }
        return whole
    }

    /// A true/false field; nil when absent or null.
    public func boolean(_ key: String) throws(DoseError) -> Bool? {
        guard has(key) else { return nil }
        guard case .bool(let flag) = object[key] else {
            throw .invalidInput(field: key, problem: "\(Self.describe(object[key])) is not true or false", allowed: "true or false")
        }
        return flag
    }

    /// A list of texts; nil when absent or null, or when any item is not text.
    public func strings(_ key: String) -> [String]? {
        guard case .array(let items) = object[key] else { return nil }
        let texts = items.compactMap(\.stringValue)
        return texts.count == items.count ? texts : nil
    }

    /// An ISO-8601 instant field; nil when absent or null.
    public func instant(_ key: String) throws(DoseError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = ISO8601.parse(text) else {
            throw .invalidInput(
                field: key, problem: "'\(text)' is not a time", allowed: "an ISO-8601 instant from 1970 to 2999 such as 2026-11-22T06:30:00Z")
        }
        return date
    }

    /// `confirm`: a list of confirmation names, such as `["early"]`.
    public func confirmations(_ accepted: [ConfirmKind] = ConfirmKind.allCases) throws(DoseError) -> Set<ConfirmKind> {
        guard has("confirm") else { return [] }
        let allowed = "a list of " + accepted.map(\.rawValue).joined(separator: ", ") + ", such as [\"\(accepted[0].rawValue)\"]"
        guard let names = strings("confirm") else {
            throw .invalidInput(field: "confirm", problem: "\(Self.describe(object["confirm"])) is not a list of names", allowed: allowed)
        }
        var kinds: Set<ConfirmKind> = []
        for name in names {
            guard let kind = ConfirmKind(rawValue: name), accepted.contains(kind) else {
                throw .invalidInput(field: "confirm", problem: "'\(name)' is not a confirmation", allowed: allowed)
            }
            kinds.insert(kind)
        }
        return kinds
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

/// The request bodies of the JSON API, decoded into what the rules take. Pure: no database, no clock, so the same
/// decoding serves the server, the tests and the fuzz targets.
public enum RequestBodies {
    /// Which decoder a route uses; the fuzz target runs every one over the same bytes.
    public enum Kind: String, CaseIterable, Sendable {
        case take, skip, snooze, log, wake, checkIn = "checkin", preSleep = "presleep", medications, settings, editEvent = "edit_event"
        case clearAll = "clear_all", undo, pushSubscription = "push_subscription", refill, adjustment
    }

    /// Decodes a body as the route of `kind` would, discarding the result; for fuzzing and consistency tests.
    public static func decode(_ kind: Kind, _ data: Data) throws {
        let body = try JSONBody(data: data)
        switch kind {
        case .take: _ = try take(body)
        case .skip: _ = try skip(body)
        case .snooze: _ = try snooze(body)
        case .log: _ = try log(body)
        case .wake: _ = try wake(body)
        case .checkIn: _ = try checkIn(body)
        case .preSleep: _ = try preSleep(body)
        case .medications: _ = try medications(body)
        case .settings: _ = try settingsChanges(body)
        case .editEvent: _ = try eventEdit(body)
        case .clearAll: _ = try clearAll(body)
        case .undo: _ = try undo(body)
        case .pushSubscription: _ = try PushSubscriptionBody.subscription(body)
        case .refill: _ = try refill(body)
        case .adjustment: _ = try adjustment(body)
        }
    }

    /// The client's event id, read by the action route for safe replays.
    public static let eventID = "id"

    /// `POST /v1/doses/take` `{type: dose1|dose2, timestamp?, note?, confirm?, id?}`.
    public static func take(_ body: JSONBody) throws(DoseError) -> NightAction {
        let body = try body.only(["type", "timestamp", "note", "confirm", eventID])
        let type = try body.string("type")
        let kind: NightAction.Kind =
            switch type {
            case "dose1": .dose1
            case "dose2": .dose2
            default: throw .invalidInput(field: "type", problem: "'\(type ?? "")' is not a dose", allowed: "dose1, dose2")
            }
        return NightAction(kind, at: try body.instant("timestamp"), note: try body.string("note"), confirmations: try body.confirmations())
    }

    /// `POST /v1/doses/skip` `{sequence: 2, reason?, timestamp?, note?}`.
    public static func skip(_ body: JSONBody) throws(DoseError) -> NightAction {
        let body = try body.only(["sequence", "reason", "timestamp", "note", eventID])
        if let sequence = try body.integer("sequence", allowed: "2"), sequence != 2 {
            throw .invalidInput(field: "sequence", problem: "only Dose 2 can be skipped", allowed: "2")
        }
        return NightAction(.skip(reason: try body.string("reason")), at: try body.instant("timestamp"), note: try body.string("note"))
    }

    /// `POST /v1/doses/snooze` `{minutes: 10, timestamp?}`.
    public static func snooze(_ body: JSONBody) throws(DoseError) -> NightAction {
        let body = try body.only(["minutes", "timestamp", eventID])
        let step = String(DoseWindow.snoozeMinutes)
        if let minutes = try body.integer("minutes", allowed: step), minutes != DoseWindow.snoozeMinutes {
            throw .invalidInput(field: "minutes", problem: "a snooze is always \(step) minutes", allowed: step)
        }
        return NightAction(.snooze, at: try body.instant("timestamp"))
    }

    /// `POST /v1/events/log` `{type, timestamp?, note?}`.
    public static func log(_ body: JSONBody) throws(DoseError) -> NightAction {
        let body = try body.only(["type", "timestamp", "note", "confirm", eventID])
        guard let type = try body.string("type") else {
            throw .invalidInput(field: "type", problem: "missing", allowed: "a sleep event such as bathroom")
        }
        // On the wire an event is named by its wire name exactly: no case folding, no labels (the CLI takes those).
        guard type == SleepEventCatalogue.normalize(type) else {
            throw .invalidInput(
                field: "type", problem: "'\(type.prefix(40))' is not a wire name",
                allowed: "the event's wire name, lower case with underscores, such as bathroom or wake_temp")
        }
        return NightAction(
            .log(event: type), at: try body.instant("timestamp"), note: try body.string("note"), confirmations: try body.confirmations([.endNight]))
    }

    /// `POST /v1/events/wake` `{timestamp?, confirm?}`.
    public static func wake(_ body: JSONBody) throws(DoseError) -> NightAction {
        let body = try body.only(["timestamp", "confirm", eventID])
        return NightAction(.wake, at: try body.instant("timestamp"), confirmations: try body.confirmations([.endNight]))
    }

    /// `POST /v1/undo`: no body, or an empty object.
    public static func undo(_ body: JSONBody) throws(DoseError) -> NightAction {
        _ = try body.only([])
        return NightAction(.undo)
    }

    /// `POST /v1/insights/planner` `{"target_interval": 180, "confirm": true}`: applying the weekly planner's suggestion.
    public static func plannerApply(_ body: JSONBody) throws(DoseError) -> (minutes: Int, confirmed: Bool) {
        let body = try body.only(["target_interval", "confirm"])
        let allowed = DoseSettings.targetIntervalOptions.map(String.init).joined(separator: ", ") + " (the planner's suggestion)"
        guard let minutes = try body.integer("target_interval", allowed: allowed) else {
            throw .invalidInput(field: "target_interval", problem: "missing", allowed: allowed)
        }
        return (minutes, try body.boolean("confirm") ?? false)
    }

    /// `POST /v1/supply/refills` `{bottles | ml, timestamp?, reason?}`.
    public static func refill(_ body: JSONBody) throws(DoseError) -> (bottles: Int?, ml: Double?, at: Date?, reason: String?) {
        let body = try body.only(["bottles", "ml", "timestamp", "reason"])
        return (
            try body.integer("bottles", allowed: "1–12"), try body.number("ml", allowed: "more than 0 and at most 10000 mL"),
            try body.instant("timestamp"),
            try body.string("reason")
        )
    }

    /// `POST /v1/supply/adjustments` `{change_ml | counted_ml, reason, timestamp?}`.
    public static func adjustment(_ body: JSONBody) throws(DoseError) -> (change: Double?, counted: Double?, at: Date?, reason: String?) {
        let body = try body.only(["change_ml", "counted_ml", "timestamp", "reason"])
        return (
            try body.number("change_ml", allowed: "-10000 to 10000 mL, not 0"), try body.number("counted_ml", allowed: "0 to 10000 mL"),
            try body.instant("timestamp"), try body.string("reason")
        )
    }

    /// `POST /v1/clear-all` `{confirm}`: the phrase, typed out.
    public static func clearAll(_ body: JSONBody) throws(DoseError) -> String {
        try body.only(["confirm"]).string("confirm") ?? ""
    }

    /// `POST /v1/checkins`: the check-in's answers plus `timestamp?` (and the client's `id`, read by the caller).
    public static func checkIn(_ body: JSONBody) throws -> NightAction {
        var answers = body.object
        let at = try body.instant("timestamp")
        let confirmations = try body.confirmations([.endNight])
        for key in ["timestamp", "confirm", eventID] { answers.removeValue(forKey: key) }
        return NightAction(
            .checkIn(try AnswerDecoding.decode(MorningCheckIn.self, from: answers, allowed: AnswerDecoding.checkInAllowed)), at: at,
            confirmations: confirmations)
    }

    /// `POST /v1/presleep`: the pre-sleep answers plus `timestamp?`.
    public static func preSleep(_ body: JSONBody) throws -> (log: PreSleepLog, at: Date?) {
        var answers = body.object
        let at = try body.instant("timestamp")
        answers.removeValue(forKey: "timestamp")
        return (try AnswerDecoding.decode(PreSleepLog.self, from: answers, allowed: AnswerDecoding.preSleepAllowed), at)
    }

    /// `POST /v1/medications` `{entries: [{medication_id, amount, unit?, taken_at?, notes?}], confirm?}`. The amount is
    /// required and must be a JSON number: the catalogue's usual dose is never filled in for a person.
    public static func medications(_ body: JSONBody) throws(DoseError) -> (entries: [MedicationInput], confirmations: Set<ConfirmKind>) {
        let example = "[{\"medication_id\": \"adderall_ir\", \"amount\": 10, \"unit\": \"mg\"}]"
        guard case .array(let entries) = body.object["entries"] else {
            throw .invalidInput(field: "entries", problem: "missing or not a list", allowed: example)
        }
        guard (1...MedicationLog.batchLimit).contains(entries.count) else {
            throw .invalidInput(field: "entries", problem: "\(entries.count) entries", allowed: "1–\(MedicationLog.batchLimit) entries in one batch")
        }
        _ = try body.only(["entries", "confirm"])
        var inputs: [MedicationInput] = []
        for (index, value) in entries.enumerated() {
            let name = "entries[\(index)]"
            guard let entry = value.objectValue else { throw .invalidInput(field: name, problem: "it is not an object", allowed: example) }
            let item = try JSONBody(object: entry).only(["medication_id", "amount", "unit", "taken_at", "notes"])
            guard let id = try item.string("medication_id") else {
                throw .invalidInput(field: "\(name).medication_id", problem: "missing", allowed: "an id from GET /v1/medications/catalogue")
            }
            let medication = try MedicationCatalogue.medication(id: id)
            let unitText = try item.string("unit") ?? DoseUnit.mg.rawValue
            guard let unit = DoseUnit(rawValue: unitText) else {
                throw .invalidInput(field: "\(name).unit", problem: "'\(unitText)' is not a unit", allowed: "mg, g, mL")
            }
            let allowed = MedicationEntryText.allowedAmounts(for: medication, unit: unit)
            guard let amount = try item.number("amount", allowed: allowed) else {
                throw .invalidInput(field: "\(name).amount", problem: "missing: the amount taken must be given", allowed: allowed)
            }
            inputs.append(
                MedicationInput(
                    medicationID: medication.id, amount: amount, unit: unit, takenAt: try item.instant("taken_at"), note: try item.string("notes")))
        }
        return (inputs, try body.confirmations())
    }

    /// `PATCH /v1/settings` `{key: value, …}`: each value of its own JSON type (a number for minutes and counts, true
    /// or false for switches, text for zones and times, a list or text for `quick_log`), never text standing for a
    /// number; returned as the text `settings set` takes, in key order.
    public static func settingsChanges(_ body: JSONBody) throws(DoseError) -> [(key: String, value: String)] {
        guard !body.object.isEmpty else { throw .invalidInput(field: "body", problem: "no setting given", allowed: "an object of key: value") }
        var changes: [(key: String, value: String)] = []
        for key in body.object.keys.sorted() {
            guard let kind = DoseSettings.valueKind(of: key) else { throw DoseSettings.unknownKey(key) }
            let text: String
            switch kind {
            case .whole:
                guard let whole = try body.integer(key, allowed: "a whole number (see `dosetap settings list`)") else {
                    throw .invalidInput(field: key, problem: "null is not a value", allowed: "a whole number")
                }
                text = String(whole)
            case .boolean:
                guard let flag = try body.boolean(key) else {
                    throw .invalidInput(field: key, problem: "null is not a value", allowed: "true or false")
                }
                text = flag ? "true" : "false"
            case .text:
                guard let value = try body.string(key) else { throw .invalidInput(field: key, problem: "null is not a value", allowed: "text") }
                text = value
            case .eventList:
                if let names = body.strings(key) {
                    text = names.joined(separator: ",")
                } else if let value = try body.string(key) {
                    text = value
                } else {
                    throw .invalidInput(
                        field: key, problem: "null is not a value", allowed: "a list of event names such as [\"bathroom\", \"water\"]")
                }
            }
            changes.append((key, text))
        }
        return changes
    }

    /// `PATCH /v1/events/{id}` `{timestamp?, note?}`: a `note` key, even null, means the note changes.
    public static func eventEdit(_ body: JSONBody) throws(DoseError) -> (occurredAt: Date?, note: String??) {
        let body = try body.only(["timestamp", "note"])
        let note: String?? = body.object.keys.contains("note") ? .some(try body.string("note")) : nil
        return (try body.instant("timestamp"), note)
    }
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
        guard !number.isEmpty, number.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }), let amount = Double(number), amount.isFinite else {
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
