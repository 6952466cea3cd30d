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
}
