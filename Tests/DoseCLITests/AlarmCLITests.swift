import AsyncHTTPClient
import DoseTestSupport
import Foundation
import NIOHTTP1
import Testing

/// The built binary with an independent push service (scripts/push-service.py): a phone subscribes through the API,
/// and `dosetap alarm test` sends from the database's key and subscriptions.
@Suite("dosetap alarm: subscriptions over HTTP, the test alarm from the CLI, I'm up and the alarm log")
struct AlarmCLITests {
    @Test("subscribe over the API, test from the CLI: delivered, retried after 429 and 500, removed on 404 and 410, the exit code says so")
    func testAlarm() async throws {
        let push = try PushService(["phone=201,201", "tablet=429,500,404", "old=410"])
        let cli = try CLI()
        let server = try Server(cli, now: "2026-11-21 21:00")
        defer { server.process.terminate() }
        let token = try cli.run(["device", "add", "bedside phone"]).json["token"] as? String ?? ""
        for name in ["phone", "tablet", "old"] {
            let (status, body, _) = try await ServeTests.request(
                server.base + "/v1/push/subscriptions", method: .POST, token: token, body: push.subscriptions[name])
            #expect(status == 201 && body.contains("\"device\":\"bedside phone\"") && !body.contains("p256dh"), "\(name): \(body)")
        }
        var (status, body, _) = try await ServeTests.request(server.base + "/v1/push/subscriptions", token: token)
        #expect(status == 200 && body.contains("\"vapid_public_key\":\"B") && body.components(separatedBy: "\"role\":\"alarm\"").count == 4)

        let test = try cli.run(["alarm", "test", "--push-backoff", "0,0,0"], now: "2026-11-21 21:05")
        #expect(test.status == 1, "a channel that did not take the test is an exit 1: \(test.stdout)")
        let channels = test.json["channels"] as? [[String: Any]] ?? []
        #expect(channels.count == 3, "one row per subscription: \(channels)")
        #expect(channels.filter { $0["accepted"] as? Bool == true }.count == 1)
        #expect(push.requests(to: "tablet").map { $0["status"] as? Int } == [429, 500, 404])
        #expect(push.requests(to: "old").map { $0["status"] as? Int } == [410])
        #expect(push.requests.allSatisfy { $0["error"] == nil }, "the peer verified every JWT and decrypted every body: \(push.requests)")
        let payload = push.requests(to: "phone").first?["payload"] as? [String: Any]
        #expect(payload?["kind"] as? String == "test" && (payload?["body"] as? String)?.contains("test alarm") == true)
        #expect(
            push.requests(to: "phone").first?["ttl"] as? String == "60" && push.requests(to: "phone").first?["topic"] as? String == "dosetap-test")

        (status, body, _) = try await ServeTests.request(server.base + "/v1/push/subscriptions", token: token)
        #expect(body.components(separatedBy: "\"role\":\"alarm\"").count == 2, "404 and 410 removed theirs: \(body)")
        let again = try cli.run(["alarm", "test"], now: "2026-11-21 21:06", json: false)
        #expect(
            again.status == 0 && again.stdout.contains("Every channel accepted the test alarm.")
                && again.stdout.contains("push → bedside phone: accepted"))

        // The server's own test: the same channels, through the running process.
        (status, body, _) = try await ServeTests.request(server.base + "/v1/alarm/test", method: .POST, token: token, body: "{}")
        #expect(status == 200 && body.contains("\"all_accepted\":true"), "\(body)")
        // Unsubscribing takes the same JSON.
        (status, body, _) = try await ServeTests.request(
            server.base + "/v1/push/subscriptions", method: .DELETE, token: token, body: push.subscriptions["phone"])
        #expect(status == 200 && body.contains("\"removed\""))
        (status, body, _) = try await ServeTests.request(
            server.base + "/v1/push/subscriptions", method: .DELETE, token: token, body: push.subscriptions["phone"])
        #expect(status == 404)
        let none = try cli.run(["alarm", "test"], now: "2026-11-21 21:07")
        #expect(none.status == 1 && (none.json["message"] as? String ?? "").hasPrefix("No channel is set up"))
    }

    @Test("subscriptions are refused with the reason: not https beyond loopback, keys that are no P-256 point, unknown keys")
    func refusals() async throws {
        let cli = try CLI()
        let server = try Server(cli, now: "2026-11-21 21:00")
        defer { server.process.terminate() }
        let token = try cli.run(["device", "add", "phone"]).json["token"] as? String ?? ""
        let keys =
            #""keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#
        let cases: [(String, String)] = [
            (#"{"endpoint":"http://push.example.org/x",\#(keys)}"#, "is not https"),
            (#"{"endpoint":"https://push.example.org/x","keys":{"p256dh":"AAAA","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#, "keys.p256dh"),
            (
                #"{"endpoint":"https://push.example.org/x","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"AAAA"}}"#,
                "keys.auth"
            ),
            (#"{"endpoint":"https://push.example.org/x",\#(keys),"extra":1}"#, "'extra'"),
            (#"{"endpoint":"https://push.example.org/x",\#(keys),"role":"spy"}"#, "'spy' is not a role"),
            (#"{"endpoint":"https://push.example.org/x"}"#, "keys"),
        ]
        for (body, words) in cases {
            let (status, answer, _) = try await ServeTests.request(server.base + "/v1/push/subscriptions", method: .POST, token: token, body: body)
            #expect(status == 400 && answer.contains("400_INVALID_INPUT") && answer.contains(words), "\(body) → \(answer)")
        }
        let (status, answer, _) = try await ServeTests.request(server.base + "/v1/push/subscriptions", token: token)
        #expect(status == 200 && answer.contains("\"subscriptions\":[]"), "nothing refused was kept")
        let ok = try await ServeTests.request(
            server.base + "/v1/push/subscriptions", method: .POST, token: token,
            body: #"{"endpoint":"https://push.example.org/x",\#(keys),"expirationTime":null}"#)
        #expect(ok.0 == 201)
    }

    @Test("I'm up from the CLI answers tonight's ringing alarms; the alarm log says where each went and who answered")
    func imUp() throws {
        let cli = try CLI()
        try cli.run(["settings", "set", "wake_alarm_refire_minutes", "3"], now: "2026-11-21 21:00")
        try cli.run(["dose1"], now: "2026-11-21 22:30")
        #expect(try cli.run(["alarm", "ack"], now: "2026-11-21 23:00").json["message"] as? String == "Noted: you are up. No alarm was ringing.")
        // No server ran: every reminder of the night so far is missed, and the log says so.
        let log = try cli.run(["alarm", "log"], now: "2026-11-22 01:16", json: false)
        #expect(log.status == 0 && log.stdout == "No alarm has gone off.\n")
        let none = try cli.run(["alarm", "log", "2026-13-01"])
        #expect(none.status == 64 && none.errorCode == "400_INVALID_INPUT")
        let settings = try cli.run(["settings", "set", "escalation_minutes", "240"])
        #expect(settings.status == 64 && (settings.json["error"] as? [String: Any])?["message"] as? String ?? "" != "")
    }
}
