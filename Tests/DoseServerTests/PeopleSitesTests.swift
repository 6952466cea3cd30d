import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DoseServer
@testable import DoseStore

/// A shared PostgreSQL store of two people served for everyone, on a test clock: the router every request enters by,
/// each person's device token, and the operator's recorder standing in for `serve --webhook`.
final class SharedStoreFixture: Sendable {
    static let url = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_URL"]
    static let enabled = ConditionTrait.enabled(
        if: url != nil, Comment(rawValue: "PostgreSQL tests skipped: set DOSETAP_TEST_POSTGRES_URL (.ci/run does)"))

    let time: TestClock
    let store: PostgresStore
    let sites: PeopleSites
    let pairing = PairingCodes()
    let operatorHook = Recorder()
    let internalErrors = InternalErrorLog()
    /// Each person's id and API token, by first name.
    let people: [String: (id: String, token: String)]

    init(now: Date, names: [String] = ["alice", "bob"]) throws {
        var location = try PostgresLocation(url: try #require(Self.url))
        location.schema = "sites_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        store = try PostgresStore.open(location)
        let time = TestClock(now)
        self.time = time
        var base = AppEnvironment(
            store: .postgres(store, person: RecordStore.nobody), now: { time.now }, machineTimeZoneID: "America/New_York",
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        base.sleep = { _ in }
        var people: [String: (String, String)] = [:]
        for name in names {
            let person = try store.addPerson(id: "person-\(name)", email: try EmailAddress("\(name)@example.org"), name: nil, at: now)
            var theirs = base
            theirs.store = base.store.of(person: person.id)
            people[name] = (person.id, try theirs.useCases().devices.pair(name: "\(name)'s phone").token)
        }
        self.people = people
        sites = try #require(
            PeopleSites(environment: base, pairing: pairing, deliveries: [operatorHook], requestsPerMinute: 1_000, internalErrors: internalErrors))
    }

    func auth(_ name: String) -> HTTPFields { [.authorization: "Bearer \(people[name]?.token ?? "")", .contentType: "application/json"] }

    /// The environment of one person's site.
    func environment(_ name: String) -> AppEnvironment { sites.site(people[name]?.id ?? "").environment }

    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: sites.router()).test(.router) { client in try await body(client) }
        #expect(internalErrors.all.isEmpty, "answered 500: \(internalErrors.all)")
    }
}

@Suite("serve for everyone of a shared store: each request reaches its own person's records", .serialized)
struct PeopleSitesTests {
    static func phase(_ response: TestResponse) -> String? { ServerFixture.json(response)["phase"] as? String }

    @Test(
        "a device's token reaches its own person; no token, a stranger's, a revoked one answer 401 as on any server",
        SharedStoreFixture.enabled)
    func tokensChooseThePerson() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            let taken = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth("alice"), body: ByteBuffer(string: #"{"type":"dose1"}"#))
            #expect(taken.status == .ok)
            #expect(Self.phase(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("alice"))) == "before_window")
            #expect(Self.phase(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("bob"))) == "no_dose1")
            let bobsHistory = ServerFixture.json(try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.auth("bob")))
            #expect(
                (bobsHistory["groups"] as? [Any])?.isEmpty == true && bobsHistory["total_nights"] as? Int == 0,
                "Alice's night is not Bob's: \(bobsHistory)")
            for headers: HTTPFields in [[:], [.authorization: "Bearer dtp_\(String(repeating: "0", count: 64))"], [.cookie: "dosetap_device=dtp_x"]] {
                let refused = try await client.execute(uri: "/v1/status", method: .get, headers: headers)
                #expect(refused.status == .unauthorized && ServerFixture.code(refused) == "401_DEVICE_NOT_REGISTERED")
                let page = try await client.execute(uri: "/", method: .get, headers: headers)
                #expect(page.status == .unauthorized && String(buffer: page.body).contains("Not paired"))
            }
            _ = try fixture.environment("bob").useCases().devices.revoke("bob's phone")
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("bob")).status == .unauthorized)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok, "open routes answer from the lobby")
        }
        let alices = try fixture.environment("alice").store.eventsCSV().split(separator: "\n").filter { $0.contains("dose1") }
        let bobs = try fixture.environment("bob").store.eventsCSV().split(separator: "\n").filter { $0.contains("dose1") }
        #expect(alices.count == 1 && bobs.isEmpty, "one dose, Alice's: \(alices) \(bobs)")
    }

    @Test("a pairing code pairs a device of the person whose page asked for it, and of no one else", SharedStoreFixture.enabled)
    func pairingCodesKeepTheirPerson() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let bob = try #require(fixture.people["bob"]?.id)
        let code = await fixture.pairing.issue(now: fixture.time.now, random: .system, for: bob)
        try await fixture.test { client in
            let paired = try await client.execute(uri: "/pair?code=\(code)", method: .get)
            #expect(paired.status == .seeOther)
            let cookie = try #require(paired.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let names = try fixture.environment("bob").useCases().devices.active().map(\.name)
            #expect(names.count == 2, "Bob's phone and the browser just paired: \(names)")
            #expect(try fixture.environment("alice").useCases().devices.active().count == 1, "Alice gained no device")
            _ = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth("alice"), body: ByteBuffer(string: #"{"type":"dose1"}"#))
            #expect(Self.phase(try await client.execute(uri: "/v1/status", method: .get, headers: [.cookie: cookie])) == "no_dose1")
            let again = try await client.execute(uri: "/pair?code=\(code)", method: .get)
            #expect(again.status == .badRequest && String(buffer: again.body).contains("used up or expired"))
        }
        // A code a person's page made is theirs alone: reserved for anyone else, it is refused and stays good.
        let alices = await fixture.pairing.issue(now: fixture.time.now, random: .system, for: fixture.people["alice"]?.id)
        #expect(await fixture.pairing.reserve(alices, for: bob, now: fixture.time.now) == nil)
        #expect(await fixture.pairing.owner(of: alices, now: fixture.time.now) == .some(fixture.people["alice"]?.id))
    }

    @Test(
        "each person's reminders reach the operator's webhook naming them; a reminder link acts on its own night only",
        SharedStoreFixture.enabled)
    func remindersAndLinks() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        for name in ["alice", "bob"] { _ = try fixture.environment(name).useCases().night.perform(NightAction(.dose1), from: .api) }
        fixture.time.set(WallClock.date(2026, 11, 22, 1, 0))
        for name in ["alice", "bob"] { try await fixture.sites.site(fixture.people[name]?.id ?? "").engine.tick() }
        let notices = fixture.operatorHook.all
        #expect(notices.map(\.kind) == [.windowOpen, .windowOpen])
        #expect(Set(notices.compactMap(\.person)) == ["person-alice", "person-bob"])
        for notice in notices {
            #expect(notice.json["person_id"] == .string(notice.person ?? "none"))
        }
        let alices = try #require(notices.first { $0.person == "person-alice" })
        let skip = try #require(alices.tokens[.skip] ?? alices.tokens.values.first)
        let forged = ActionLinkSigner(secretHex: String(repeating: "ab", count: 32)).token(
            for: ActionLink(action: .snooze, sessionID: "no-such-night", expiresAt: fixture.time.now.addingTimeInterval(600), nonce: "n"))
        try await fixture.test { client in
            let shown = try await client.execute(uri: "/a/\(skip)", method: .get)
            #expect(shown.status == .ok, "\(String(buffer: shown.body).prefix(300))")
            let nobodys = try await client.execute(uri: "/a/\(forged)", method: .get)
            #expect(nobodys.status == .badRequest && String(buffer: nobodys.body).contains("not a DoseTap reminder link"))
            // Bob's night with a link signed by another key: his site checks it and refuses it.
            let bobsNight = try #require(notices.first { $0.person == "person-bob" }?.sessionID)
            let misSigned = ActionLinkSigner(secretHex: String(repeating: "cd", count: 32)).token(
                for: ActionLink(action: .snooze, sessionID: bobsNight, expiresAt: fixture.time.now.addingTimeInterval(600), nonce: "n"))
            #expect(try await client.execute(uri: "/a/\(misSigned)", method: .post).status == .badRequest)
            #expect(Self.phase(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("bob"))) != "snoozed")
        }
    }

    @Test(
        "every route, walked with no token, a stranger's, and another person's, shows nothing of Alice's and changes nothing of hers",
        SharedStoreFixture.enabled)
    func routeMatrix() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let canary = "canary-\(UUID().uuidString.prefix(8))"
        let routes = fixture.sites.router().routes.map { ($0.path.description, $0.method) }
        #expect(routes.count >= 60)
        try await fixture.test { client in
            let taken = ServerFixture.json(
                try await client.execute(
                    uri: "/v1/doses/take", method: .post, headers: fixture.auth("alice"),
                    body: ByteBuffer(string: #"{"type":"dose1","note":"\#(canary)"}"#)))
            let eventID = try #require(taken["id"] as? String)
            let session = try #require(
                ServerFixture.json(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("alice")))["session_id"] as? String
            )
            let before = try fixture.environment("alice").store.eventsCSV()
            #expect(before.contains(canary))
            for route in routes {
                let path = route.0.replacingOccurrences(of: ":date", with: "2026-11-21").replacingOccurrences(of: ":id", with: eventID)
                    .replacingOccurrences(of: ":token", with: "x")
                for (who, headers) in [
                    ("no token", HTTPFields()), ("a stranger", [.authorization: "Bearer dtp_\(String(repeating: "1", count: 64))"]),
                    ("Bob", fixture.auth("bob")),
                    // The event stream never ends for a signed-in device; it is Bob's own site's hub, which Alice's
                    // site never tells (the reminders test shows each site's notices stay its own).
                ] where !(who == "Bob" && path == "/v1/stream") {
                    let response = try await client.execute(uri: path, method: route.1, headers: headers, body: ByteBuffer(string: "{}"))
                    let body = String(buffer: response.body)
                    for secret in [eventID, session, canary] {
                        #expect(!body.contains(secret), "\(route.1) \(path) as \(who) answered \(response.status) showing Alice's \(secret)")
                    }
                    if who != "Bob", !DoseTapServer.isOpen(path) {
                        #expect(response.status == .unauthorized, "\(route.1) \(path) as \(who) answered \(response.status)")
                    }
                }
            }
            #expect(try fixture.environment("alice").store.eventsCSV() == before, "nothing anyone else sent changed Alice's night")
        }
    }
}
