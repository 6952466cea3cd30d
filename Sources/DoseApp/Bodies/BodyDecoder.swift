public import DoseCore
public import Foundation

/// The keys of a request body and, for each, what it takes in words. The decoder refuses any key not listed, by
/// name, and quotes `allowed` when a value is missing or of the wrong type.
public protocol BodyKey: CodingKey, CaseIterable {
    /// What this key takes, for messages: "true or false", "1–12", "an ISO-8601 instant …".
    var allowed: String { get }
}

/// The one decoder of request bodies: strict JSON (no repeated key, an object at the top) into a `Decodable` type.
/// It keeps the API's promises in one place: a key the type does not list is refused by name; a value is taken only
/// as its own JSON type (no "5" for 5, no 1 for true, no 5.5 for a whole number); null is the same as absent; every
/// refusal is `400_INVALID_INPUT` naming the field's path, such as `entries[0].amount`.
public enum BodyDecoder {
    /// Decodes a request's bytes; an empty body is an empty object.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(DoseError) -> T {
        try decode(T.self, from: .object(try JSONBody(data: data).object))
    }

    /// Decodes an already parsed value (a form's fields, a nested part of a body).
    /// `allowed` words the values of keys a type does not describe itself (a model of DoseCore's, whose keys are not
    /// `BodyKey`s): the questionnaires' enumerations.
    public static func decode<T: Decodable>(
        _ type: T.Type, from value: JSONValue, path: [any CodingKey] = [], allowed: [String: String] = [:]
    ) throws(DoseError) -> T {
        do {
            return try BodyValueDecoder(value: value, codingPath: path, allowed: nil, reading: BodyReading(allowed: allowed)).convert(T.self)
        } catch let error as DoseError {
            throw error
        } catch let error as DecodingError {
            // A raw-value enum's own `init(from:)` refuses a name it does not have this way.
            let (path, problem): ([any CodingKey], String) =
                switch error {
                case .dataCorrupted(let context): (context.codingPath, "has a value that is not allowed")
                case .typeMismatch(_, let context): (context.codingPath, "has the wrong type of value")
                case .valueNotFound(_, let context): (context.codingPath, "is missing a value")
                case .keyNotFound(let key, let context): (context.codingPath + [key], "is missing")
                @unknown default: (path, "is malformed")
                }
            let name = path.last(where: { $0.intValue == nil })?.stringValue ?? "body"
            throw .invalidInput(field: field(path), problem: "\(name) \(problem)", allowed: allowed[name])
        } catch {
            throw .invalidInput(field: field(path), problem: "the value is not allowed (\(error))", allowed: nil)
        }
    }

    /// Decodes a page's form: every field is text, read as the type asks (`"180"` as a whole number, a ticked box's
    /// `"true"` or `"yes"` as true, repeated fields, which arrive joined by commas, as a list). A field the type does
    /// not list is left alone: a page cached by a phone before an update may still send one, and a tap at night must
    /// not be refused for it.
    public static func decode<T: Decodable>(_ type: T.Type, form fields: [String: String]) throws(DoseError) -> T {
        do {
            let value = JSONValue.object(fields.mapValues(JSONValue.string))
            return try BodyValueDecoder(value: value, codingPath: [], allowed: nil, reading: BodyReading(form: true)).convert(T.self)
        } catch let error as DoseError {
            throw error
        } catch {
            throw .invalidInput(field: "form", problem: "the form is not one of DoseTap's pages (\(error))", allowed: "a form sent by a DoseTap page")
        }
    }

    /// A coding path as a message names it: `entries[0].amount`, or `body` for the whole.
    static func field(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text.isEmpty ? "body" : text
    }

    static let instantForm = "an ISO-8601 instant from 1970 to 2999 such as 2026-11-22T06:30:00Z"
}

/// How a body is read.
struct BodyReading {
    /// What keys that are not `BodyKey`s allow, by name.
    var allowed: [String: String] = [:]
    /// A page's form: text fields read as the type asks, other fields left alone.
    var form = false
}

/// A key met while walking a body: an object's key or a list's index.
struct BodyPathKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { (self.stringValue, intValue) = (stringValue, nil) }
    init(intValue: Int) { (stringValue, self.intValue) = ("[\(intValue)]", intValue) }
}

/// One value of a body being decoded, with where it sits and what its key allows.
struct BodyValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let allowed: String?
    /// How the body is read: JSON or a form, and what keys that are not `BodyKey`s allow.
    var reading = BodyReading()
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func refuse(_ problem: String, allowed fallback: String) -> DoseError {
        .invalidInput(field: BodyDecoder.field(codingPath), problem: problem, allowed: allowed ?? fallback)
    }

    /// The value as `T`, taken only from its own JSON type.
    func convert<T: Decodable>(_ type: T.Type) throws -> T {
        if reading.form, case .string(let text) = value, let read = try formValue(text, as: T.self) { return read }
        let described = JSONBody.describe(value)
        switch T.self {
        case is String.Type:
            guard case .string(let text) = value else { throw refuse("\(described) is not text", allowed: "text") }
            return text as! T
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw refuse("\(described) is not true or false", allowed: "true or false") }
            return flag as! T
        case is Int.Type:
            switch value {
            case .int(let whole): return whole as! T
            case .double(let number) where number.isFinite:
                guard let whole = Int(exactly: number) else {
                    throw refuse("\(NumberText.plain(number)) is not a whole number", allowed: "a whole number")
                }
                return whole as! T
            default: throw refuse("\(described) is not a number", allowed: "a whole number")
            }
        case is Double.Type:
            switch value {
            case .int(let whole): return Double(whole) as! T
            case .double(let number) where number.isFinite: return number as! T
            default: throw refuse("\(described) is not a number", allowed: "a number")
            }
        case is Date.Type:
            guard case .string(let text) = value, let date = ISO8601.parse(text) else {
                let shown = value.stringValue.map { "'\($0.prefix(40))'" } ?? described
                throw DoseError.invalidInput(
                    field: BodyDecoder.field(codingPath), problem: "\(shown) is not a time", allowed: BodyDecoder.instantForm)
            }
            return date as! T
        case is JSONValue.Type:
            return value as! T
        case is any FixedWidthInteger.Type, is any BinaryFloatingPoint.Type:
            // A body declares whole numbers as Int and amounts as Double; any other width would reach itself again.
            preconditionFailure("a request body declares \(T.self); it takes Int or Double")
        default:
            return try T(from: self)
        }
    }

    /// A form's text as a whole number, a number or a switch; nil for any other type, read as JSON text is.
    func formValue<T>(_ text: String, as: T.Type) throws -> T? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch T.self {
        case is Int.Type:
            guard let whole = Int(trimmed) else { throw refuse("'\(text.prefix(40))' is not a whole number", allowed: "a whole number") }
            return whole as? T
        case is Double.Type:
            guard let number = NumberText.plainDecimal(trimmed, signed: true) else {
                throw refuse("'\(text.prefix(40))' is not a number", allowed: "a number such as 180 or 12.5")
            }
            return number as? T
        case is Bool.Type:
            switch trimmed {
            case "true", "yes", "on": return true as? T
            case "false", "no", "": return false as? T
            default: throw refuse("'\(text.prefix(40))' is not yes or no", allowed: "a ticked or unticked box")
            }
        default: return nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw refuse("\(JSONBody.describe(value)) is not an object", allowed: "an object") }
        if !reading.form, let listed = Key.self as? any BodyKey.Type {
            let known = Self.names(listed)
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw DoseError.invalidInput(
                    field: BodyDecoder.field(codingPath + [BodyPathKey(stringValue: unknown)]),
                    problem: "this request does not take the key '\(unknown)'",
                    allowed: known.isEmpty ? "an empty object" : known.sorted().joined(separator: ", "))
            }
        }
        return KeyedDecodingContainer(BodyObject<Key>(object: object, codingPath: codingPath, reading: reading))
    }

    static func names<Key: BodyKey>(_: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if reading.form, case .string(let text) = value {
            let items = text.split(separator: ",").map { JSONValue.string(String($0)) }
            return BodyList(items: items, codingPath: codingPath, allowed: allowed, reading: reading)
        }
        guard case .array(let items) = value else { throw refuse("\(JSONBody.describe(value)) is not a list", allowed: "a list") }
        return BodyList(items: items, codingPath: codingPath, allowed: allowed, reading: reading)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { BodySingleValue(decoder: self) }
}

/// An object's keys, each decoded through `BodyValueDecoder`; a null value, or an empty field of a form, is absent.
struct BodyObject<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    let reading: BodyReading

    var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }
    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool { value(key) == nil }

    /// The key's value; null, or an empty field of a form, is none.
    func value(_ key: Key) -> JSONValue? {
        guard let value = object[key.stringValue], value != .null, !(reading.form && value == .string("")) else { return nil }
        return value
    }

    func child(_ key: Key) throws -> BodyValueDecoder {
        let allowed = (key as? any BodyKey)?.allowed ?? reading.allowed[key.stringValue]
        let path = codingPath + [key]
        guard let value = value(key) else {
            throw DoseError.invalidInput(field: BodyDecoder.field(path), problem: "missing", allowed: allowed)
        }
        return BodyValueDecoder(value: value, codingPath: path, allowed: allowed, reading: reading)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).convert(T.self) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).convert(Bool.self) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).convert(String.self) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).convert(Double.self) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).convert(Int.self) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { BodyValueDecoder(value: .object(object), codingPath: codingPath, allowed: nil, reading: reading) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

/// A list's items in order, each decoded through `BodyValueDecoder`.
struct BodyList: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    let allowed: String?
    let reading: BodyReading
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey], allowed: String?, reading: BodyReading) {
        (self.items, self.codingPath, self.allowed, self.reading) = (items, codingPath, allowed, reading)
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next() throws -> BodyValueDecoder {
        let path = codingPath + [BodyPathKey(intValue: currentIndex)]
        guard !isAtEnd else { throw DoseError.invalidInput(field: BodyDecoder.field(path), problem: "missing", allowed: allowed) }
        defer { currentIndex += 1 }
        return BodyValueDecoder(value: items[currentIndex], codingPath: path, allowed: allowed, reading: reading)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().convert(T.self) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// A single value: how a type with its own `init(from:)` (a raw-value enum) reads itself.
struct BodySingleValue: SingleValueDecodingContainer {
    let decoder: BodyValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.convert(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.convert(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try decoder.convert(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.convert(Double.self) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.convert(Int.self) }
}
