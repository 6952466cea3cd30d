public import Foundation

/// A JSON value with explicit nulls, so every documented field is present even when empty (SPEC §5.1). Decoding keeps
/// JSON's own kinds apart: `true` is never the number 1, `"5"` is never 5, and `2.5` is never rounded.
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    /// A number with a fraction or beyond `Int`; answers never carry one, requests may.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        // A later duplicate key wins. Built in a loop: `Dictionary(_:uniquingKeysWith:)` was a share of large answers.
        var fields = [String: JSONValue](minimumCapacity: elements.count)
        for (key, value) in elements { fields[key] = value }
        self = .object(fields)
    }

    /// A string, or null.
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// A list of texts.
    public static func strings(_ texts: [String]) -> JSONValue { .array(texts.map(JSONValue.string)) }
    /// An integer, or null.
    public static func number(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let whole = try? container.decode(Int.self) {
            self = .int(whole)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses JSON text; nil when it is not JSON.
    public static func parse(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    /// The JSON form of an encodable value (its Codable keys), or null if it cannot be encoded.
    public static func encoding<T: Encodable>(_ value: T) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value) else { return .null }
        return parse(data) ?? .null
    }

    /// The fields of an object; nil for any other value.
    public var objectValue: [String: JSONValue]? { if case .object(let fields) = self { fields } else { nil } }

    /// The text of a string; nil for any other value.
    public var stringValue: String? { if case .string(let text) = self { text } else { nil } }

    /// The value of a whole number; nil for any other value.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }

    /// Adds or replaces a key of an object.
    public subscript(key: String) -> JSONValue? {
        get { if case .object(let fields) = self { fields[key] } else { nil } }
        set {
            guard case .object(var fields) = self else { return }
            fields[key] = newValue ?? .null
            self = .object(fields)
        }
    }

    /// JSON with sorted keys, one line (or indented). Written by hand into bytes: Foundation's JSONEncoder spent more
    /// time on a 30-night history page than reading it from the database, and appending to a `String` piece by piece
    /// was a third of ten years of insights.
    public func rendered(pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4_096)
        write(to: &out, indent: pretty ? 0 : nil)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(to out: inout [UInt8], indent: Int?) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .double(let value): out += (value.isFinite ? "\(value)" : "null").utf8
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, indent.map { $0 + 1 })
                item.write(to: &out, indent: indent.map { $0 + 1 })
            }
            Self.newline(&out, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            guard !fields.isEmpty else {
                out += "{}".utf8
                return
            }
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, indent.map { $0 + 1 })
                Self.writeString(field.key, to: &out)
                out += (indent == nil ? ":" : ": ").utf8
                field.value.write(to: &out, indent: indent.map { $0 + 1 })
            }
            Self.newline(&out, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    /// A JSON string literal (RFC 8259 escapes; everything else as UTF-8).
    private static func writeString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (ids, instants, names) need no escaping and are copied whole.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            out += value.utf8
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case 0..<0x20:
                // Bytes of a multi-byte character are all 0x80 or more, so they are copied as they are.
                out += #"\u00"#.utf8
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
