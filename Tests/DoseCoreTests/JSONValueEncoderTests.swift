import DoseCore
import Foundation
import Testing

/// The response encoder's conventions, checked on small types: the API and `--json` rely on each of them.
@Suite("JSONValue(response:): explicit nulls, left-out keys, instants as text")
struct JSONValueEncoderTests {
    struct Reading: Encodable {
        var name: String
        var count: Int?
        var at: Date?
        var tags: [String]
        var nested: Nested?
    }

    struct Nested: Encodable {
        var ratio: Double
        var flag: Bool?
    }

    struct Sparse: OmitsAbsentKeys {
        var code: String
        var detail: String?
        var count: Int?
        var at: Date?
    }

    static let instant = Date(timeIntervalSince1970: 1_795_323_600.123)

    @Test("an absent optional is written as null, at every depth; a present one as its value")
    func absentIsNull() {
        let empty = JSONValue(response: Reading(name: "a", count: nil, at: nil, tags: [], nested: Nested(ratio: 0.5, flag: nil)))
        #expect(empty.rendered() == #"{"at":null,"count":null,"name":"a","nested":{"flag":null,"ratio":0.5},"tags":[]}"#)
        let full = JSONValue(response: Reading(name: "b", count: 3, at: Self.instant, tags: ["x"], nested: nil))
        #expect(full.rendered() == #"{"at":"2026-11-22T05:00:00.123Z","count":3,"name":"b","nested":null,"tags":["x"]}"#)
    }

    @Test("a type that omits absent keys leaves them out, and keeps the ones it has")
    func omitsAbsentKeys() {
        #expect(JSONValue(response: Sparse(code: "c")).rendered() == #"{"code":"c"}"#)
        let full = JSONValue(response: Sparse(code: "c", detail: "d", count: 0, at: Self.instant))
        #expect(full.rendered() == #"{"at":"2026-11-22T05:00:00.123Z","code":"c","count":0,"detail":"d"}"#)
    }

    @Test("the omission does not leak: a sparse value inside an ordinary one keeps its parent's nulls")
    func omissionIsPerType() {
        struct Outer: Encodable {
            var inner: Sparse
            var note: String?
        }
        #expect(JSONValue(response: Outer(inner: Sparse(code: "c"), note: nil)).rendered() == #"{"inner":{"code":"c"},"note":null}"#)
    }

    @Test("rendered text reads back through Foundation's JSON parser as the same value: escapes, every control byte, non-ASCII, numbers")
    func renderedReadsBack() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let texts = ["", "plain", "quote \" and backslash \\", "tab\tnew\nline\rreturn", controls, "caf\u{E9} \u{1F634} \u{2028}", "=1+2", "\u{7F}"]
        let value: JSONValue = [
            "texts": .strings(texts), "numbers": [0, -1, 42, .int(Int.max), .int(Int.min)], "flags": [true, false, nil],
            "nested": ["b": "2", "a": [["z": 1, "y": []]]], "ratio": .double(0.25),
        ]
        for pretty in [false, true] {
            let text = value.rendered(pretty: pretty)
            let parsed = try #require(JSONValue.parse(Data(text.utf8)), "\(text)")
            #expect(parsed == value)
            #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 || (pretty && $0 == "\n") }, "no raw control character is written")
        }
        #expect(JSONValue.strings([controls]).rendered().contains(#"\u001f"#))
        #expect(value.rendered().hasPrefix(#"{"flags":[true,false,null],"nested":{"a":[{"y":[],"z":1}],"b":"2"},"numbers":[0,-1,42,"#))
    }
}
