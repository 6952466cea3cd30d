import Foundation

/// A JSON value with explicit nulls, so every documented field is present even when empty (SPEC §5.1).
public enum JSONValue: Sendable, Hashable, Encodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// A string, or null.
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// An integer, or null.
    public static func number(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON form of an encodable value (its Codable keys), or null if it cannot be encoded.
    public static func encoding<T: Encodable>(_ value: T) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .null
        }
        return from(object)
    }

    /// Converts JSONSerialization's output.
    static func from(_ object: Any) -> JSONValue {
        switch object {
        case let flag as Bool where type(of: object) == Bool.self:
            return .bool(flag)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .int(number.intValue)
        case let text as String: return .string(text)
        case let array as [Any]: return .array(array.map(from))
        case let dictionary as [String: Any]: return .object(dictionary.mapValues(from))
        default: return .null
        }
    }

    /// Adds or replaces a key of an object.
    public subscript(key: String) -> JSONValue? {
        get { if case .object(let fields) = self { fields[key] } else { nil } }
        set {
            guard case .object(var fields) = self else { return }
            fields[key] = newValue ?? .null
            self = .object(fields)
        }
    }

    /// JSON with sorted keys, one line (or indented). Written by hand: Foundation's JSONEncoder spent more time
    /// on a 30-night history page than reading it from the database.
    public func rendered(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(to out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                Self.newline(&out, indent.map { $0 + 1 })
                item.write(to: &out, indent: indent.map { $0 + 1 })
            }
            Self.newline(&out, indent)
            out += "]"
        case .object(let fields):
            guard !fields.isEmpty else { out += "{}"; return }
            out += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.newline(&out, indent.map { $0 + 1 })
                Self.writeString(key, to: &out)
                out += indent == nil ? ":" : ": "
                fields[key]!.write(to: &out, indent: indent.map { $0 + 1 })
            }
            Self.newline(&out, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?) {
        guard let indent else { return }
        out += "\n" + String(repeating: "  ", count: indent)
    }

    /// A JSON string literal (RFC 8259 escapes; everything else as UTF-8).
    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        // Most strings (ids, instants, names) need no escaping and are copied whole.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                out += "\\u00" + (control.value < 0x10 ? "0" : "") + String(control.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
