import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import DoseApp
@testable import DoseServer
@testable import DoseStore

/// The server reaches only public https targets a device chose (push endpoints, the escalation contact); loopback
/// only under the documented test flag; and the alarm test tells a device accepted or not, never a status or a timing.
@Suite("Outbound targets: no request to this machine or its network")
struct OutboundTargetTests {
    static let strict = OutboundTargets()
    static let loopbackAllowed = OutboundTargets(allowLoopback: true)

    @Test(
        "internal, private, link-local and look-alike targets are refused; public https is allowed",
        arguments: [
            ("https://fcm.googleapis.com/fcm/send/abc", nil as String?, nil as String?),
            ("https://updates.push.services.mozilla.com/wpush/v2/x", nil, nil),
            ("https://8.8.8.8/hook", nil, nil),
            ("https://[2606:4700::1111]/hook", nil, nil),
            ("http://ntfy.sh/topic", "it is not https", "it is not https"),
            ("http://169.254.169.254/latest/meta-data/", "it is not https", "it is not https"),
            ("https://169.254.169.254/latest/meta-data/", "not a public address", "not a public address"),
            ("https://10.0.0.1/", "not a public address", "not a public address"),
            ("https://172.16.5.4/x", "not a public address", "not a public address"),
            ("https://192.168.1.20:8443/x", "not a public address", "not a public address"),
            ("https://100.64.0.1/x", "not a public address", "not a public address"),
            ("https://0.0.0.0/x", "not a public address", "not a public address"),
            ("https://[fd00::1]/x", "not a public address", "not a public address"),
            ("https://[fe80::1]/x", "not a public address", "not a public address"),
            ("https://[::ffff:10.0.0.1]/x", "not a public address", "not a public address"),
            ("https://[::ffff:127.0.0.1]/x", "this machine", nil),
            ("https://printer.local/x", "not a public name", "not a public name"),
            ("https://a/", "not a public name", "not a public name"),
            ("https://127.0.0.2/x", "this machine", nil),
            ("http://127.0.0.1:9/x", "this machine", nil),
            ("https://[::1]/x", "this machine", nil),
            ("http://localhost:8080/x", "this machine", nil),
            ("https://user:pw@example.org/x", "not a URL with a host", "not a URL with a host"),
            // Other spellings of this machine, as a resolver reads them, are this machine too.
            ("https://127.1/x", "this machine", nil),
            ("https://0177.0.0.1/x", "this machine", nil),
            ("https://127.000.000.001/x", "this machine", nil),
            ("https://0x7f.1/x", "this machine", nil),
            ("https://localhost./x", "this machine", nil),
            ("https://10.1/x", "not a public address", "not a public address"),
            ("https://fcm.googleapis.com./fcm/send/abc", nil, nil),
        ])
    func rule(url: String, strict: String?, withFlag: String?) {
        #expect(
            Self.strict.refusal(of: url).map { $0.contains(strict ?? "\u{0}") } ?? (strict == nil),
            "\(url): \(Self.strict.refusal(of: url) ?? "allowed")")
        #expect(
            Self.loopbackAllowed.refusal(of: url).map { $0.contains(withFlag ?? "\u{0}") } ?? (withFlag == nil),
            "\(url) with the flag: \(Self.loopbackAllowed.refusal(of: url) ?? "allowed")")
    }

    @Test("a name is resolved when connecting: localhost is this machine, refused unless the flag allows loopback")
    func resolvedAtConnect() {
        #expect(Self.strict.checkBeforeConnecting("https://localhost/x") == .refused("it points at this machine"))
        #expect(Self.loopbackAllowed.checkBeforeConnecting("http://localhost:9/x") == .direct)
        #expect(Self.strict.checkBeforeConnecting("https://8.8.8.8/x") == .direct)
        #expect(Self.strict.checkBeforeConnecting("https://no-such-host.invalid/x") == .refused("no-such-host.invalid could not be resolved"))
        // A name that resolves to this machine (as a rebinding name would) is refused when connecting, even though its
        // text passed at the edge; with the flag it is pinned to the address that was checked.
        #expect(OutboundTargets.address("127.0.0.1").map(\.text) == "127.0.0.1")
        #expect(OutboundTargets.address("::ffff:10.0.0.1").map(\.text) == "::ffff:10.0.0.1")
    }

    @Test("no redirect is followed: a webhook that answers 307 to another listener is not accepted, and that listener hears nothing")
    func noRedirects() async throws {
        let hits = Mutex(0)
        let elsewhere = Router()
        elsewhere.post("/elsewhere") { _, _ in
            hits.withLock { $0 += 1 }
            return "taken"
        }
        try await Application(router: elsewhere).test(.live) { elsewhereClient in
            let port = try #require(elsewhereClient.port)
            let redirecting = Router()
            redirecting.post("/hook") { _, _ in Response(status: .temporaryRedirect, headers: [.location: "http://127.0.0.1:\(port)/elsewhere"]) }
            try await Application(router: redirecting).test(.live) { hookClient in
                let url = "http://127.0.0.1:\(try #require(hookClient.port))/hook"
                let log = DeliveryLog(now: { Date() }, persist: { _ in })
                let fixture = try ServerFixture(now: Date(), allowLoopbackTargets: true)
                let hook = WebhookDelivery(
                    url: url, format: .json, audience: .contact, environment: fixture.environment, checkingTargets: true, backoff: [])
                await hook.deliver(ReminderNotice.test(for: .contact, at: Date()), log: log)
                #expect(log.all.last?.outcome == .failed && log.all.last?.httpStatus == 307, "\(log.all)")
                #expect(hits.withLock { $0 } == 0, "the redirect's target was never called")
            }
        }
    }

    static let p256dh = "BLWGUQbSOIJ0JdQ_0ShSswcExoObv6HrjWTiKJZPrjFIsOALpwiKaxw5MJg7S1fbkPAwr6xoysJeWyvRA1nA66s"
    static let auth = "MDEyMzQ1Njc4OWFiY2RlZg"

    @Test("over the API: a short, internal or loopback push endpoint and an internal escalation contact are 400s naming the field; nothing is kept")
    func overTheAPI() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), allowLoopbackTargets: false)
        try await Application(router: fixture.router()).test(.router) { client in
            for endpoint in [
                "https://a/", "https://x.y", "https://127.0.0.2/push", "http://127.0.0.1:9/push", "https://10.0.0.1/push",
                "https://169.254.169.254/x",
                "https://[::1]/push-endpoint",
            ] {
                let body = #"{"endpoint": "\#(endpoint)", "keys": {"p256dh": "\#(Self.p256dh)", "auth": "\#(Self.auth)"}}"#
                let response = try await client.execute(
                    uri: "/v1/push/subscriptions", method: .post, headers: fixture.auth, body: ByteBuffer(string: body))
                let text = String(buffer: response.body)
                #expect(response.status == .badRequest && text.contains("endpoint"), "\(endpoint): \(response.status) \(text)")
            }
            let good = #"{"endpoint": "https://fcm.googleapis.com/fcm/send/abc", "keys": {"p256dh": "\#(Self.p256dh)", "auth": "\#(Self.auth)"}}"#
            #expect(
                try await client.execute(uri: "/v1/push/subscriptions", method: .post, headers: fixture.auth, body: ByteBuffer(string: good)).status
                    == .created)
            #expect(try fixture.environment.useCases().alarms.subscriptions().count == 1)
            for contact in ["http://169.254.169.254/latest", "http://10.0.0.1/", "https://127.0.0.1/hook", "https://192.168.1.5/hook"] {
                let response = try await client.execute(
                    uri: "/v1/settings", method: .patch, headers: fixture.auth, body: ByteBuffer(string: #"{"escalation_contact": "\#(contact)"}"#))
                #expect(response.status == .badRequest && String(buffer: response.body).contains("escalation_contact"), "\(contact)")
            }
            #expect(try fixture.environment.useCases().settings.current().escalationContact.isEmpty)
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the alarm test tells a device accepted or not, with a coarse reason: no HTTP status, no timing, no host's answer")
    func coarseAlarmTest() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), allowLoopbackTargets: false)
        // A contact that passed the rule once but now resolves nowhere public is refused when connecting.
        _ = try fixture.environment.useCases().settings.update([("escalation_contact", "https://no-such-host.invalid/topic")])
        try await Application(router: fixture.router()).test(.router) { client in
            let response = try await client.execute(uri: "/v1/alarm/test", method: .post, headers: fixture.auth, body: ByteBuffer(string: "{}"))
            let text = String(buffer: response.body)
            #expect(response.status == .ok)
            #expect(!text.contains("http_status") && !text.contains("duration_ms") && !text.contains(" ms"), "\(text)")
            #expect(text.contains("not sent: the address is not allowed"), "\(text)")
        }
    }
}

/// The edge is RFC 8259 JSON and documented values only: every lenient reading a probe found is a 400 naming what is
/// wrong, and nothing is stored.
@Suite("A strict edge")
struct StrictEdgeTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static let subscription =
        #"{"endpoint":"https://fcm.googleapis.com/fcm/send/abc","expirationTime":1.5,"keys":{"p256dh":""#
        + OutboundTargetTests.p256dh + #"","auth":""# + OutboundTargetTests.auth + #""}}"#
    static let utf16: [UInt8] = [0xFF, 0xFE] + Array(#"{"type":"water"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }

    static let cases: [(path: String, body: [UInt8], names: String)] = [
        ("/v1/events/log", bytes(#"{"type":"water",}"#), "trailing"),
        ("/v1/events/log", bytes(#"{"type":"water",,"note":"x"}"#), "body"),
        ("/v1/events/log", utf16, "UTF-8"),
        ("/v1/events/log", [0xEF, 0xBB, 0xBF] + bytes(#"{"type":"water"}"#), "body"),
        ("/v1/events/log", bytes(#"{"type":"water"} x"#), "more after"),
        ("/v1/events/log", bytes(#"{"type":"water" /* c */}"#), "body"),
        ("/v1/events/log", bytes(#"{"type":"WATER"}"#), "wire name"),
        ("/v1/events/log", bytes(#"{"type":"water","timestamp":"2026-11-22T01:00:00Z\u202e"}"#), "timestamp"),
        ("/v1/events/log", bytes("{\"type\":\"water\",\"timestamp\":\"2026-11-22T01:00:00Z\u{202E}\"}"), "timestamp"),
        ("/v1/events/log", bytes("{\"type\":\"water\",\"note\":\"a\u{01}b\"}"), "control character"),
        ("/v1/settings", bytes(#"{"cooldown.water": 1e-400}"#), "too small"),
        ("/v1/settings", bytes(#"{"cooldown.water": 1e400}"#), "too large"),
        ("/v1/settings", bytes(#"{"cooldown.water": 01}"#), "body"),
        ("/v1/push/subscriptions", bytes(subscription), "expirationTime"),
    ]

    @Test("lenient JSON, folded enums, underflowing numbers, fractional times and bidi characters are 400s; nothing is stored", arguments: cases)
    func refused(path: String, body: [UInt8], names: String) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await Application(router: fixture.router()).test(.router) { client in
            let method: HTTPRequest.Method = path == "/v1/settings" ? .patch : .post
            let response = try await client.execute(uri: path, method: method, headers: fixture.auth, body: ByteBuffer(bytes: body))
            let text = String(buffer: response.body)
            #expect(response.status == .badRequest, "\(String(decoding: body, as: UTF8.self)): \(response.status) \(text)")
            #expect(text.contains(names), "\(text)")
        }
        let stored = try fixture.database.read {
            try Int.fetchOne($0, sql: "SELECT (SELECT count(*) FROM sleep_events) + (SELECT count(*) FROM settings WHERE key LIKE 'cooldown.%')")
        }
        #expect(stored == 0)
        #expect(try fixture.environment.useCases().alarms.subscriptions().isEmpty)
        fixture.expectNoInternalErrors()
    }
}
