import DoseApp
import DoseCore
import Foundation
import Testing

@Suite("JSON wire format")
struct WireTests {
    @Test(
        "rendered JSON parses back to the same values, with awkward strings",
        arguments: [
            "plain", "quote \" and backslash \\", "new\nline\ttab\rreturn", "\u{1}\u{1f} control", "emoji 😴 and ünïcode", "</script>", "",
        ])
    func roundTrip(text: String) throws {
        let value: JSONValue = ["b": .string(text), "a": [1, true, nil, ["z": "y"]], "c": .int(-42)]
        let rendered = value.rendered()
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String: Any])
        #expect(parsed["b"] as? String == text)
        #expect((parsed["a"] as? [Any])?.count == 4)
        #expect(parsed["c"] as? Int == -42)
        #expect(rendered.hasPrefix("{\"a\":[1,true,null,{\"z\":\"y\"}],\"b\":"))
        let pretty = try JSONSerialization.jsonObject(with: Data(value.rendered(pretty: true).utf8)) as? [String: Any]
        #expect(pretty?["b"] as? String == text)
    }

    @Test("an error object carries code, message, confirm, retry_after and details")
    func errorObject() throws {
        let error = DoseError.windowNotOpen(minutesUntilOpen: 20, opensAt: Date(timeIntervalSince1970: 0), localTime: "01:00")
        let object = try JSONSerialization.jsonObject(with: Data(JSONValue(response: ErrorResponse(error)).rendered().utf8)) as? [String: Any]
        let body = try #require(object?["error"] as? [String: Any])
        #expect(body["code"] as? String == "422_WINDOW_NOT_OPEN")
        #expect(body["confirm"] as? String == "early")
        #expect((body["details"] as? [String: Any])?["minutes_until_open"] as? String == "20")
        let limited =
            try JSONSerialization.jsonObject(
                with: Data(JSONValue(response: ErrorResponse(.rateLimited(event: "Water", retryAfterSeconds: 12))).rendered().utf8)) as? [String: Any]
        #expect((limited?["error"] as? [String: Any])?["retry_after"] as? Int == 12)
    }

    @Test("database location: --db, then $DOSETAP_DB, then $XDG_DATA_HOME, then ~/.local/share")
    func location() {
        #expect(DatabaseLocation.resolve(flag: "/x/a.sqlite", environment: ["DOSETAP_DB": "/y"]) == "/x/a.sqlite")
        #expect(DatabaseLocation.resolve(flag: nil, environment: ["DOSETAP_DB": "~/d.sqlite", "HOME": "/home/p"]) == "/home/p/d.sqlite")
        #expect(DatabaseLocation.resolve(flag: nil, environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/p"]) == "/data/dosetap/dosetap.sqlite")
        #expect(
            DatabaseLocation.resolve(flag: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/p"])
                == "/home/p/.local/share/dosetap/dosetap.sqlite")
        #expect(DatabaseLocation.resolve(flag: nil, environment: ["HOME": "/home/p"]) == "/home/p/.local/share/dosetap/dosetap.sqlite")
    }

    @Test("--at HH:mm is the latest past occurrence of that local time, within the next minute's tolerance")
    func localAt() throws {
        let zone = TimeZone(identifier: "America/New_York")!
        let now = try #require(ISO8601.parse("2026-11-22T06:40:00Z"))
        #expect(ISO8601.string(try ClockInput.occurrence("01:10", now: now, timeZone: zone)) == "2026-11-22T06:10:00.000Z")
        #expect(ISO8601.string(try ClockInput.occurrence("23:10", now: now, timeZone: zone)) == "2026-11-22T04:10:00.000Z")
        #expect(ISO8601.string(try ClockInput.occurrence("01:41", now: now, timeZone: zone)) == "2026-11-22T06:41:00.000Z")
        #expect(ISO8601.string(try ClockInput.occurrence("01:42", now: now, timeZone: zone)) == "2026-11-21T06:42:00.000Z")
    }
}
