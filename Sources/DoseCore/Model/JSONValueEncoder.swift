import Foundation

extension JSONValue {
    /// The JSON form of a response type: its coding keys, with every absent optional written as an explicit `null`
    /// (the API's documented convention: a field that can be empty is always there), and instants as
    /// `ISO8601.string`. A type that leaves its absent keys out instead conforms to `OmitsAbsentKeys`.
    public init<T: Encodable>(response value: T) {
        do {
            self = try JSONValueEncoder.value(value)
        } catch {
            self = .null
        }
    }
}

/// A response type whose absent optionals are left out rather than written as `null`: bodies whose keys depend on
/// what they describe (an event's metadata, an error's optional parts).
public protocol OmitsAbsentKeys: Encodable {}

/// Builds a `JSONValue` tree from an `Encodable`; see `JSONValue(response:)`. Containers write into a tree of
/// nodes, resolved into values once encoding is done, so nested containers fill in after they are handed out.
private final class JSONValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    /// The type of the value being encoded, when it is known.
    let valueType: Any.Type?
    /// Whether the value being encoded leaves absent optionals out (`OmitsAbsentKeys`). Asked only of values that turn
    /// out to be objects: a conformance check on every leaf was a tenth of encoding a long list.
    lazy var omitsAbsent: Bool = valueType.map { $0 is any OmitsAbsentKeys.Type } ?? false
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: Node = Node(), codingPath: [any CodingKey] = [], valueType: Any.Type? = nil) {
        self.node = node
        self.codingPath = codingPath
        self.valueType = valueType
    }

    /// One value being built: a leaf, an object, or an array.
    final class Node {
        /// A field or an item: a finished value, or a node a nested container is still filling. Finished values are
        /// kept as they are, so a field costs no node of its own.
        enum Child {
            case value(JSONValue)
            case node(Node)

            var value: JSONValue {
                switch self {
                case .value(let value): value
                case .node(let node): node.value
                }
            }
        }

        enum Content {
            case leaf(JSONValue)
            case object([String: Child])
            case array([Child])
        }

        var content = Content.leaf(.null)

        var itemCount: Int { if case .array(let items) = content { items.count } else { 0 } }

        /// Sets a field, in place: the old content is released first so the dictionary is not copied on each write.
        func setField(_ key: String, _ child: Child) {
            guard case .object(var fields) = content else {
                content = .object([key: child])
                return
            }
            content = .leaf(.null)
            fields[key] = child
            content = .object(fields)
        }

        /// Appends an item, in place: copying the array on each append made a long list quadratic.
        func append(_ child: Child) {
            guard case .array(var items) = content else {
                content = .array([child])
                return
            }
            content = .leaf(.null)
            items.append(child)
            content = .array(items)
        }

        var value: JSONValue {
            switch content {
            case .leaf(let value): value
            case .object(let fields): .object(fields.mapValues(\.value))
            case .array(let items): .array(items.map(\.value))
            }
        }
    }

    /// The JSON of one encodable value: instants as text, `JSONValue` as itself, anything else through its encoding.
    static func value<T: Encodable>(_ value: T, codingPath: [any CodingKey] = []) throws -> JSONValue {
        if let date = value as? Date { return .string(ISO8601.string(date)) }
        if let json = value as? JSONValue { return json }
        let encoder = JSONValueEncoder(codingPath: codingPath, valueType: T.self)
        try value.encode(to: encoder)
        return encoder.node.value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath, omitsAbsent: omitsAbsent))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]
        let omitsAbsent: Bool

        private func set(_ value: JSONValue, _ key: Key) { node.setField(key.stringValue, .value(value)) }
        private func setIfPresent(_ value: JSONValue?, _ key: Key) {
            if let value { set(value, key) } else if !omitsAbsent { set(.null, key) }
        }
        private func child(_ key: Key) -> JSONValueEncoder {
            let child = Node()
            node.setField(key.stringValue, .node(child))
            return JSONValueEncoder(node: child, codingPath: codingPath + [key])
        }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try JSONValueEncoder.value(value, codingPath: codingPath + [key]), key)
        }
        // An absent optional is an explicit null, not a missing key, unless the type leaves absent keys out.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { setIfPresent(value.map(JSONValue.bool), key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { setIfPresent(value.map(JSONValue.string), key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { setIfPresent(value.map(JSONValue.int), key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { setIfPresent(value.map(JSONValue.double), key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            setIfPresent(try value.map { try JSONValueEncoder.value($0, codingPath: codingPath + [key]) }, key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            child(key).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { child(key).unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { JSONValueEncoder(node: node, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.itemCount }

        private func append(_ value: JSONValue) { node.append(.value(value)) }
        private func child() -> JSONValueEncoder {
            let child = Node()
            node.append(.node(child))
            return JSONValueEncoder(node: child, codingPath: codingPath)
        }

        mutating func encodeNil() throws { append(.null) }
        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Int) throws { append(.int(value)) }
        mutating func encode(_ value: Double) throws { append(.double(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { append(try JSONValueEncoder.value(value, codingPath: codingPath)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            child().container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { child().unkeyedContainer() }
        mutating func superEncoder() -> any Encoder { child() }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .leaf(.null) }
        mutating func encode(_ value: Bool) throws { node.content = .leaf(.bool(value)) }
        mutating func encode(_ value: String) throws { node.content = .leaf(.string(value)) }
        mutating func encode(_ value: Int) throws { node.content = .leaf(.int(value)) }
        mutating func encode(_ value: Double) throws { node.content = .leaf(.double(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { node.content = .leaf(try JSONValueEncoder.value(value, codingPath: codingPath)) }
    }
}
