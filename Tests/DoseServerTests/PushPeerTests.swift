import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseServer

/// The push service stand-in, read through DoseTap's own JSON type.
struct PushPeer {
    let service: PushService

    init(_ specs: [String]) throws { service = try PushService(specs) }

    /// The subscription `name` as the browser would send it, with DoseTap's role.
    func subscription(_ name: String, role: PushRole = .alarm) throws -> PushSubscriptionRecord {
        guard case .object(var object)? = JSONValue.parse(Data((service.subscriptions[name] ?? "").utf8)) else {
            throw PushService.Failure.didNotStart(name)
        }
        object["role"] = .string(role.rawValue)
        return try BodyDecoder.decode(PushSubscriptionBody.self, from: .object(object)).subscription(targets: OutboundTargets(allowLoopback: true))
    }

    /// Every request received, oldest first.
    var requests: [JSONValue] {
        let text = (try? String(contentsOf: service.log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { JSONValue.parse(Data($0.utf8)) }
    }

    func requests(to name: String) -> [JSONValue] { requests.filter { $0["subscription"]?.stringValue == name } }
}

@Suite("Web Push against an independent push service (http_ece and cryptography from PyPI)")
struct PushPeerTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)

    static func subscribe(_ peer: PushPeer, _ name: String, role: PushRole = .alarm, device: String, _ fixture: ServerFixture) throws {
        let app = fixture.environment.useCases()
        let owner = try app.devices.all().first { $0.name == device } ?? app.devices.pair(name: device).device
        _ = try app.alarms.subscribe(try peer.subscription(name, role: role), device: owner.id)
    }

    @Test(
        "reminders arrive encrypted and signed: the peer decrypts them, TTL runs to the window's close, a Topic per night, three actions; the contact's has none"
    )
    func reminders() async throws {
        let peer = try PushPeer(["phone=", "partner="])
        let fixture = try ServerFixture(now: Self.dose1)
        _ = try fixture.environment.useCases().settings.update([("escalation_enabled", "true")])
        try Self.subscribe(peer, "phone", device: "bedside phone", fixture)
        try Self.subscribe(peer, "partner", role: .contact, device: "partner's phone", fixture)
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [], push: PushOptions(backoff: [], sleep: { _ in }))
        try ReminderEngineTests.act(fixture, .dose1, at: Self.dose1)
        fixture.set(WallClock.date(2026, 11, 22, 1, 0))
        try await engine.tick()
        let first = try #require(peer.requests(to: "phone").first)
        #expect(first["error"] == nil, "the peer verified the VAPID JWT and decrypted the body: \(first)")
        #expect(first["ttl"] == "5400" && first["urgency"] == "high" && first["encoding"] == "aes128gcm")
        let session = try #require(try fixture.environment.useCases().night.status().session)
        #expect(first["topic"]?.stringValue == "dosetap-night-" + String(session.id.rawValue.filter { $0.isLetter || $0.isNumber }.prefix(18)))
        let payload = try #require(first["payload"])
        #expect(payload["kind"] == "window_open" && payload["body"] == "The Dose 2 window is open.")
        guard case .array(let actions)? = payload["actions"] else { throw PushService.Failure.didNotStart("no actions") }
        #expect(actions.compactMap { $0["action"]?.stringValue } == ["take", "snooze", "skip"])
        #expect(actions.allSatisfy { ($0["url"]?.stringValue ?? "").hasPrefix("/a/\($0["action"]?.stringValue ?? "").") })
        #expect(peer.requests(to: "partner").isEmpty, "the contact hears nothing but escalations")

        fixture.set(WallClock.date(2026, 11, 22, 2, 15))
        try await engine.tick()
        let warning = try #require(peer.requests(to: "phone").last)
        #expect(warning["payload"]?["kind"] == "warning_15_min" && warning["ttl"] == "900" && warning["topic"] == first["topic"])
        let told = peer.requests(to: "partner")
        #expect(told.count == 1 && told.first?["error"] == nil)
        #expect(told.first?["payload"]?["kind"] == "escalation" && told.first?["payload"]?["actions"] == .array([]))
        #expect(told.first?["payload"]?["body"]?.stringValue?.contains("Dose 1 was at 22:30") == true)
        #expect(told.first?["topic"] == "dosetap-escalation")

        let log = AlarmLogResponse(try fixture.environment.useCases().alarms.log(session: session.id), sessionID: session.id, zone: WallClock.newYork)
        #expect(log.lines.contains("01:00 window open → push (1 device)"))
        #expect(log.lines.contains("02:15 escalation to contact → push (1 device)"))
    }

    @Test("retries and removals follow the answers: 429 then 500 then 201 is delivered on the third try; 404 and 410 remove the subscription")
    func answers() async throws {
        let peer = try PushPeer(["busy=429,500,201", "gone=404", "expired=410"])
        let fixture = try ServerFixture(now: Self.dose1)
        for name in ["busy", "gone", "expired"] { try Self.subscribe(peer, name, device: name, fixture) }
        let options = PushOptions(backoff: [.zero, .zero, .zero], sleep: { _ in })
        let report = await AlarmChannels(environment: fixture.environment, configured: [], push: options).test()
        #expect(peer.requests(to: "busy").map { $0["status"] } == [429, 500, 201])
        #expect(peer.requests(to: "gone").map { $0["status"] } == [404])
        #expect(peer.requests(to: "expired").map { $0["status"] } == [410])
        #expect(peer.requests.allSatisfy { $0["error"] == nil }, "every request verified and decrypted")
        #expect(try fixture.environment.useCases().alarms.subscriptions().map(\.deviceName) == ["busy"])
        guard case .array(let results)? = JSONValue(response: report)["channels"] else { throw PushService.Failure.didNotStart("no channels") }
        func result(_ target: String) -> JSONValue? { results.first { $0["target"]?.stringValue == target } }
        #expect(result("busy")?["accepted"] == true && result("busy")?["attempts"] == 3 && result("busy")?["http_status"] == 201)
        #expect(result("gone")?["accepted"] == false && result("gone")?["http_status"] == 404)
        #expect(result("expired")?["accepted"] == false && result("expired")?["http_status"] == 410)
        #expect(JSONValue(response: report)["all_accepted"] == false)
    }

    @Test("the VAPID token expires by the environment's wall clock, not the night's: a wall clock two days back is refused")
    func signedByWallClock() async throws {
        let peer = try PushPeer(["phone=201"])
        let fixture = try ServerFixture(now: Self.dose1)
        try Self.subscribe(peer, "phone", device: "phone", fixture)
        let options = PushOptions(backoff: [], sleep: { _ in })
        // The night's clock is months from the real time either way; only the wall clock decides the token's expiry.
        _ = await AlarmChannels(environment: fixture.environment, configured: [], push: options).test()
        var stale = fixture.environment
        stale.wallClock = { Date().addingTimeInterval(-2 * 86_400) }
        _ = await AlarmChannels(environment: stale, configured: [], push: options).test()
        let received = peer.requests(to: "phone")
        #expect(received.count == 2)
        #expect(received.first?["error"] == nil, "signed by the real time: verified")
        #expect(received.last?["error"]?.stringValue?.contains("exp is not within 24 hours") == true, "\(received)")
    }

    @Test("a service that keeps failing is retried only while the notice is useful, each TTL what is left of it")
    func usefulLife() async throws {
        let peer = try PushPeer(["down=500,500,500,500,500,500"])
        let fixture = try ServerFixture(now: Self.dose1)
        try Self.subscribe(peer, "down", device: "down", fixture)
        // Each wait moves the injected clock on (and only this one subscription waits): the test notice is useful for
        // 60 s, so after waits of 25 s the attempts come at 0, 25 and 50 s, and a fourth, at 75 s, is never made.
        let clock = fixture.time
        let options = PushOptions(backoff: Array(repeating: .seconds(25), count: 5), sleep: { clock.advance(seconds: Double($0.components.seconds)) })
        let report = await AlarmChannels(environment: fixture.environment, configured: [], push: options).test()
        #expect(peer.requests(to: "down").map { $0["ttl"] } == ["60", "35", "10"])
        #expect(try fixture.environment.useCases().alarms.subscriptions().map(\.deviceName) == ["down"], "a failing service does not remove it")
        #expect(JSONValue(response: report)["all_accepted"] == false)
    }
}
