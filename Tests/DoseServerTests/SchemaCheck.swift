import DoseCore
import Foundation

/// Checks a JSON value against a schema of the published document: the JSON Schema 2020-12 keywords openapi.json uses
/// (`$ref`, `type`, `properties`, `required`, `additionalProperties`, `enum`, `const`, `oneOf`, `items`, bounds on
/// numbers, lengths and counts, `pattern`, `uniqueItems`, and the `date-time` and `date` formats). A keyword it does
/// not know fails the check, so the document cannot grow a rule the test silently skips.
struct SchemaCheck {
    let document: JSONValue

    static let annotations: Set<String> = ["description", "example", "examples", "default", "title", "contentMediaType", "deprecated"]
    static let understood: Set<String> = [
        "$ref", "type", "properties", "required", "additionalProperties", "enum", "const", "oneOf", "items", "minimum", "maximum",
        "exclusiveMinimum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "pattern", "uniqueItems", "format",
    ]

    /// Every way `value` breaks `schema`, each named by its JSON path (`$.status.phase`); empty when it conforms.
    func problems(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let rules) = schema else { return schema == .bool(false) ? ["\(path): nothing is allowed here"] : [] }
        if let unknown = rules.keys.first(where: { !Self.understood.contains($0) && !Self.annotations.contains($0) }) {
            return ["\(path): the schema uses `\(unknown)`, which this check does not know"]
        }
        if let reference = rules["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(path): \(reference) names no schema"] }
            return problems(value, target, at: path)
        }
        if case .array(let choices)? = rules["oneOf"] {
            let matching = choices.filter { problems(value, $0, at: path).isEmpty }.count
            if matching != 1 { return ["\(path): matches \(matching) of oneOf's \(choices.count) schemas, not exactly one"] }
        }
        if let types = rules["type"], !Self.types(types).contains(where: { Self.value(value, is: $0) }) {
            return ["\(path): \(value.rendered()) is not of type \(types.rendered())"]
        }
        if case .array(let allowed)? = rules["enum"], !allowed.contains(where: { Self.same($0, value) }) {
            return ["\(path): \(value.rendered()) is not one of \(JSONValue.array(allowed).rendered())"]
        }
        if let constant = rules["const"], !Self.same(constant, value) { return ["\(path): \(value.rendered()) is not \(constant.rendered())"] }
        switch value {
        case .object(let members): return objectProblems(members, rules, at: path)
        case .array(let items): return arrayProblems(items, rules, at: path)
        case .string(let text): return stringProblems(text, rules, at: path)
        case .int, .double: return numberProblems(Self.number(value) ?? 0, rules, at: path)
        case .bool, .null: return []
        }
    }

    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        return reference.dropFirst(2).split(separator: "/").reduce(Optional(document)) { node, key in node?[String(key)] }
    }

    private func objectProblems(_ members: [String: JSONValue], _ rules: [String: JSONValue], at path: String) -> [String] {
        var found: [String] = []
        let properties = rules["properties"]?.objectValue ?? [:]
        for case .string(let key) in Self.list(rules["required"]) where members[key] == nil { found.append("\(path): `\(key)` is required") }
        if let least = rules["minProperties"].flatMap(Self.number), Double(members.count) < least {
            found.append("\(path): fewer than \(Int(least)) members")
        }
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            if let schema = properties[key] {
                found += problems(member, schema, at: "\(path).\(key)")
            } else if let extra = rules["additionalProperties"] {
                found += extra == .bool(false) ? ["\(path): `\(key)` is not in the schema"] : problems(member, extra, at: "\(path).\(key)")
            }
        }
        return found
    }

    private func arrayProblems(_ items: [JSONValue], _ rules: [String: JSONValue], at path: String) -> [String] {
        var found: [String] = []
        if let least = rules["minItems"].flatMap(Self.number), Double(items.count) < least { found.append("\(path): fewer than \(Int(least)) items") }
        if let most = rules["maxItems"].flatMap(Self.number), Double(items.count) > most { found.append("\(path): more than \(Int(most)) items") }
        if rules["uniqueItems"] == .bool(true), Set(items).count != items.count { found.append("\(path): items repeat") }
        if let schema = rules["items"] {
            for (index, item) in items.enumerated() { found += problems(item, schema, at: "\(path)[\(index)]") }
        }
        return found
    }

    private func stringProblems(_ text: String, _ rules: [String: JSONValue], at path: String) -> [String] {
        var found: [String] = []
        let length = text.unicodeScalars.count
        if let least = rules["minLength"].flatMap(Self.number), Double(length) < least { found.append("\(path): shorter than \(Int(least))") }
        if let most = rules["maxLength"].flatMap(Self.number), Double(length) > most { found.append("\(path): longer than \(Int(most))") }
        if let pattern = rules["pattern"]?.stringValue, text.range(of: pattern, options: .regularExpression) == nil {
            found.append("\(path): '\(text)' does not match \(pattern)")
        }
        switch rules["format"]?.stringValue {
        case "date-time"? where ISO8601.parse(text) == nil: found.append("\(path): '\(text)' is not an RFC 3339 date-time")
        case "date"? where SessionKey(parsing: text) == nil: found.append("\(path): '\(text)' is not a yyyy-MM-dd date")
        default: break
        }
        return found
    }

    private func numberProblems(_ number: Double, _ rules: [String: JSONValue], at path: String) -> [String] {
        var found: [String] = []
        if let least = rules["minimum"].flatMap(Self.number), number < least { found.append("\(path): \(number) is below \(least)") }
        if let most = rules["maximum"].flatMap(Self.number), number > most { found.append("\(path): \(number) is above \(most)") }
        if let floor = rules["exclusiveMinimum"].flatMap(Self.number), number <= floor { found.append("\(path): \(number) is not above \(floor)") }
        return found
    }

    private static func list(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { return items }
        return []
    }

    private static func types(_ value: JSONValue) -> [String] {
        if case .array(let names) = value { return names.compactMap(\.stringValue) }
        return value.stringValue.map { [$0] } ?? []
    }

    private static func value(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("integer", .int),
            ("number", .int), ("number", .double):
            true
        case ("integer", .double(let number)): number.rounded() == number
        default: false
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// JSON equality, where 1 and 1.0 are the same number.
    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = number(a), let y = number(b) { return x == y }
        return a == b
    }
}
