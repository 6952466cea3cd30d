import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DoseServer

@Suite("Reminder action links: signed, one-time, through the same rules, never confirming")
struct ActionLinkTests {
    /// Tonight with Dose 1 at 22:30 (window 01:00–02:30).
    static func night() throws -> ServerFixture {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        return fixture
    }

    static func path(of url: String) -> String { String(url[url.range(of: "/a/")!.lowerBound...]) }

    static func token(_ fixture: ServerFixture, _ action: ActionLink.Action, session: String? = nil, expires: Date? = nil) throws -> String {
        let clock = fixture.environment.clock()
        let signer = ActionLinkSigner(secretHex: try fixture.environment.useCases(at: clock).devices.linkSecret())
        let sessionID = try session ?? fixture.environment.useCases(at: clock).night.status().session!.id.rawValue
        return signer.token(
            for: ActionLink(
                action: action, sessionID: sessionID, expiresAt: expires ?? clock.now.addingTimeInterval(3600),
                nonce: ActionLinkSigner.nonce(.system)))
    }

    @Test("a reminder carries three links; opening one changes nothing; its button acts once, from the link source")
    func reminderLinks() async throws {
        let fixture = try Self.night()
        let recorder = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [recorder], linkBase: "http://bedroom.local:8080")
        fixture.set(WallClock.date(2026, 11, 22, 1, 0))
        try await engine.tick()
        let notice = try #require(recorder.all.first)
        #expect(notice.kind == .windowOpen)
        #expect(Set(notice.links.keys) == Set(ActionLink.Action.allCases))
        #expect(Set(notice.links.values).count == 3)
        for (action, url) in notice.links { #expect(url.hasPrefix("http://bedroom.local:8080/a/\(action.rawValue).")) }
        let take = Self.path(of: notice.links[.take]!)
        try await fixture.test { client in
            var response = try await client.execute(uri: take, method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("<form method=\"post\" action=\"\(take)\""))
            #expect(try fixture.environment.useCases().night.status().status.dose2At == nil, "opening a link does not act")
            fixture.set(WallClock.date(2026, 11, 22, 1, 5))
            response = try await client.execute(uri: take, method: .post)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains("Dose 2 recorded at 01:05"))
            let session = try #require(try fixture.environment.useCases().night.status().session)
            #expect(session.events.last?.kind == .dose2 && session.events.last?.source == .link)
            // A second tap answers what the first did (issue 32): done, and nothing more recorded; opening it says it is used.
            response = try await client.execute(uri: take, method: .post)
            #expect(response.status == .ok && String(buffer: response.body).contains("Already done"))
            response = try await client.execute(uri: take, method: .get)
            #expect(response.status == .badRequest && String(buffer: response.body).contains("already used"))
            #expect(try fixture.environment.useCases().night.status().session?.events.filter { $0.kind == .dose2 }.count == 1)
            // The rules still apply to the other links: no snooze after Dose 2.
            response = try await client.execute(uri: Self.path(of: notice.links[.snooze]!), method: .post)
            #expect(response.status.code == 422)
        }
    }

    @Test("an early take through a link is refused with the risk in words, cannot be confirmed, and is not spent")
    func neverConfirms() async throws {
        let fixture = try Self.night()
        fixture.set(WallClock.date(2026, 11, 22, 0, 40))
        let take = "/a/" + (try Self.token(fixture, .take))
        try await fixture.test { client in
            var response = try await client.execute(uri: take, method: .post)
            #expect(response.status.code == 422)
            let page = String(buffer: response.body)
            #expect(page.contains("Too early for Dose 2: the window opens at 01:00, in 20 min. Taking Dose 2 early is risky"))
            #expect(!page.contains("confirm &#39;early&#39;"), "a link cannot confirm, so it does not offer to")
            #expect(page.contains("cannot confirm"))
            #expect(try fixture.environment.useCases().night.status().status.dose2At == nil)
            // Extra form fields are not read: a link has no way to carry a confirmation.
            response = try await client.execute(
                uri: take, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "confirm=early"))
            #expect(response.status.code == 422)
            fixture.set(WallClock.date(2026, 11, 22, 1, 1))
            response = try await client.execute(uri: take, method: .post)
            #expect(response.status == .ok, "a refused link was not spent")
        }
    }

    @Test(
        "altered, expired, other-night and cleared-away links are refused and change nothing",
        arguments: ["signature", "spelling", "action", "expired", "other night", "garbage", "cleared"])
    func refused(_ case: String) async throws {
        let fixture = try Self.night()
        fixture.set(WallClock.date(2026, 11, 22, 1, 10))
        var token = try Self.token(fixture, .skip)
        var expected = "not a DoseTap reminder link"
        switch `case` {
        case "signature": token = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
        case "spelling":
            // The same signature bytes spelled differently: the last character's two low bits are unused.
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let lastCharacter = try #require(token.last)
            let last = try #require(alphabet.firstIndex(of: lastCharacter))
            token = String(token.dropLast()) + String(alphabet[last ^ 1])
        case "action": token = "take" + token.dropFirst("skip".count)
        case "expired":
            token = try Self.token(fixture, .skip, expires: WallClock.date(2026, 11, 22, 1, 9))
            expected = "expired"
        case "other night":
            token = try Self.token(fixture, .skip, session: "another-night")
            expected = "night that has ended"
        case "garbage": token = "take.c2Vzc2lvbg.9999999999.00.AAAA"
        default:
            _ = try fixture.environment.useCases().transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
            _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        }
        let before = try fixture.environment.useCases().night.status().session?.events
        try await fixture.test { [token, expected] client in
            let response = try await client.execute(uri: "/a/" + token, method: .post)
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains(expected))
        }
        #expect(try fixture.environment.useCases().night.status().session?.events == before)
    }

    @Test("a link issued to a device names it under the signature; once the device is revoked the link is refused (403) and takes nothing")
    func revokedDeviceLink() async throws {
        let fixture = try Self.night()
        fixture.set(WallClock.date(2026, 11, 22, 1, 5))
        let clock = fixture.environment.clock()
        let signer = ActionLinkSigner(secretHex: try fixture.environment.useCases(at: clock).devices.linkSecret())
        let phone = try fixture.environment.useCases().devices.pair(name: "lost phone").device
        let session = try fixture.environment.useCases().night.status().session!.id.rawValue
        let link = ActionLink(
            action: .take, sessionID: session, expiresAt: clock.now.addingTimeInterval(3600), nonce: ActionLinkSigner.nonce(.system))
        let issued = signer.token(for: link.issued(to: phone.id))
        #expect(try signer.link(from: issued, now: clock.now) == link.issued(to: phone.id))
        #expect(try signer.link(from: signer.token(for: link), now: clock.now).deviceID == nil, "a link of the operator's channels names no device")
        // Another device's name under the same signature is a changed link.
        var parts = issued.split(separator: ".").map(String.init)
        parts[4] = "b3RoZXI"  // "other", base64url
        #expect(throws: DoseError.self) { try signer.link(from: parts.joined(separator: "."), now: clock.now) }

        _ = try fixture.environment.useCases().devices.revoke(phone.id)
        try await fixture.test { client in
            for method in [HTTPRequest.Method.get, .post] {
                let response = try await client.execute(uri: "/a/" + issued, method: method, headers: [.accept: "application/json"])
                #expect(response.status == .forbidden && String(buffer: response.body).contains("revoked"), "\(method)")
            }
        }
        #expect(try fixture.environment.useCases().night.status().session?.events.contains { $0.kind == .dose2 } == false)
    }

    @Test("two taps of one link at once: one is recorded, both answer done, never a 500", arguments: 0..<8)
    func racingTaps(round: Int) async throws {
        let fixture = try Self.night()
        fixture.set(WallClock.date(2026, 11, 22, 1, 5))
        let take = "/a/" + (try Self.token(fixture, .take))
        try await fixture.test { client in
            async let first = client.execute(uri: take, method: .post, headers: [.accept: "application/json"])
            async let second = client.execute(uri: take, method: .post, headers: [.accept: "application/json"])
            let answers = try await [first, second]
            #expect(answers.allSatisfy { $0.status == .ok }, "round \(round): \(answers.map { "\($0.status) \(String(buffer: $0.body))" })")
            #expect(answers.allSatisfy { ServerFixture.json($0)["done"] as? Bool == true })
        }
        #expect(try fixture.environment.useCases().night.status().session?.events.filter { $0.kind == .dose2 }.count == 1)
    }
}

@Suite("What the log may keep of a request")
struct LoggablePathTests {
    @Test(
        "a reminder link's token never reaches the log, even in part; other paths are kept",
        arguments: [
            ("/a/take.eyJzIjoiYWJjIn0.c2lnbmF0dXJl", "/a/(a reminder link)"), ("/a/", "/a/(a reminder link)"), ("/v1/status", "/v1/status"),
            ("/details", "/details"),
        ])
    func redacted(path: String, logged: String) {
        #expect(ErrorMiddleware.loggable(path) == logged)
        if path.hasPrefix("/a/") && path.count > 3 { #expect(!logged.contains(String(path.dropFirst(3).prefix(6)))) }
    }
}
