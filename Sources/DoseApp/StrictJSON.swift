import Foundation

/// RFC 8259 JSON and nothing else, checked before a body is decoded: UTF-8 without a byte-order mark, no trailing
/// commas, no comments, no control characters in strings, numbers that a Double holds without overflow or underflow,
/// and each key once per object. Foundation's decoder is lenient about several of these; a body it would read one
/// way and another parser another way must not reach a rule.
enum StrictJSON {
    /// What is wrong with a body.
    enum Problem: Error, Equatable {
        case invalid(String)
        case duplicateKey(String)
    }

    /// The first problem of `data`, or nil when it is strict JSON.
    static func problem(in data: Data) -> Problem? {
        guard String(validating: data, as: UTF8.self) != nil else { return .invalid("the body is not UTF-8") }
        var parser = Parser(bytes: [UInt8](data))
        do {
            parser.skipSpace()
            try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == parser.bytes.count else { throw Problem.invalid("there is more after the JSON value") }
            return nil
        } catch let problem as Problem {
            return problem
        } catch {
            return .invalid("it is not JSON")
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 64

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() { while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 } }

        func fail(_ what: String) -> Problem { .invalid("\(what) at byte \(index)") }

        mutating func expect(_ byte: UInt8, _ what: String) throws {
            guard current == byte else { throw fail("expected \(what)") }
            index += 1
        }

        mutating func value(depth: Int) throws {
            guard depth < Self.maximumDepth else { throw fail("nested too deeply") }
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case .some(let byte) where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
            default: throw fail("expected a value")
            }
        }

        mutating func literal(_ word: String) throws {
            for byte in word.utf8 { try expect(byte, word) }
        }

        mutating func object(depth: Int) throws {
            index += 1
            skipSpace()
            var keys = Set<String>()
            if current == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else {
                    throw fail(keys.isEmpty ? "expected a key" : "expected a key after the comma (no trailing commas)")
                }
                let key = try string()
                guard keys.insert(key).inserted else { throw Problem.duplicateKey(key) }
                skipSpace()
                try expect(UInt8(ascii: ":"), "':'")
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                return try expect(UInt8(ascii: "}"), "',' or '}'")
            }
        }

        mutating func array(depth: Int) throws {
            index += 1
            skipSpace()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipSpace()
                guard current != UInt8(ascii: "]") else { throw fail("expected a value after the comma (no trailing commas)") }
                try value(depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                return try expect(UInt8(ascii: "]"), "',' or ']'")
            }
        }

        /// A string's decoded text.
        mutating func string() throws -> String {
            let start = index
            index += 1
            var escaped = false
            while let byte = current {
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    let quoted = Data(bytes[start..<index])
                    if !escaped { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
                    guard let text = try? JSONDecoder().decode(String.self, from: quoted) else { throw fail("a string's escape is not valid") }
                    return text
                }
                guard byte >= 0x20 else { throw fail("a control character inside a string (escape it)") }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                    guard let next = current, "\"\\/bfnrtu".utf8.contains(next) else { throw fail("a string's escape is not valid") }
                    if next == UInt8(ascii: "u") {
                        let digits = bytes[min(index + 1, bytes.count)..<min(index + 5, bytes.count)]
                        guard digits.count == 4,
                            digits.allSatisfy({
                                UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0
                                    || UInt8(ascii: "A")...UInt8(ascii: "F") ~= $0
                            })
                        else {
                            throw fail("a \\u escape needs four hex digits")
                        }
                        index += 4
                    }
                }
                index += 1
            }
            throw fail("a string is not closed")
        }

        mutating func number() throws {
            let start = index
            func digits() -> Int {
                let from = index
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
                return index - from
            }
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() > 0 else { throw fail("a number has no digits") }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw fail("a number's fraction has no digits") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fail("a number's exponent has no digits") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw Problem.invalid("the number \(text.prefix(24)) is too large") }
            // A mantissa with a non-zero digit that reads as 0 has underflowed: 1e-400 is not 0.
            let mantissa = text.prefix { $0 != "e" && $0 != "E" }
            if value == 0, mantissa.contains(where: { ("1"..."9").contains($0) }) {
                throw Problem.invalid("the number \(text.prefix(24)) is too small to hold (it would read as 0)")
            }
        }
    }
}
