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
    /// The role the store is served as (`.ci/run` creates it).
    static let servingRole = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_ROLE"] ?? "dosetap_app"
    static let enabled = ConditionTrait.enabled(
        if: url != nil, Comment(rawValue: "PostgreSQL tests skipped: set DOSETAP_TEST_POSTGRES_URL (.ci/run does)"))

    let time: TestClock
    let store: PostgresStore
    let sites: PeopleSites
    /// The codes, kept in the store as `serve` keeps them on PostgreSQL, so another instance can use them.
    let pairing: PairingCodes
    let operatorHook = Recorder()
    let internalErrors = InternalErrorLog()
    /// Each person's id and API token, by first name.
    let people: [String: (id: String, token: String)]

    init(now: Date, names: [String] = ["alice", "bob"], siteLimit: Int = 20_000, sendsMail: Bool = false, signUp: SignUpPolicy = .closed) throws {
        var location = try PostgresLocation(url: try #require(Self.url))
        location.schema = "sites_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // Made by its owner, served as a role that owns nothing, as `dosetap store grant` sets a hosted one up: every
        // request runs under row-level security.
        let owner = try PostgresStore.open(location)
        try owner.grant(to: Self.servingRole)
        owner.close()
        location.username = Self.servingRole
        location.password = nil
        store = try PostgresStore.open(location)
        pairing = PairingCodes(store: store)
        let time = TestClock(now)
        self.time = time
        var base = AppEnvironment(
            store: .postgres(store, person: RecordStore.nobody), now: { time.now }, machineTimeZoneID: "America/New_York",
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        base.sleep = { _ in }
        base.sendsMail = sendsMail
        base.signUp = signUp
        var people: [String: (String, String)] = [:]
        for name in names {
            let person = try store.addPerson(id: "person-\(name)", email: try EmailAddress("\(name)@example.org"), name: nil, at: now)
            var theirs = base
            theirs.store = base.store.of(person: person.id)
            people[name] = (person.id, try theirs.useCases().devices.pair(name: "\(name)'s phone").token)
        }
        self.people = people
        sites = try #require(
            PeopleSites(
                environment: base, pairing: pairing, deliveries: [operatorHook], requestsPerMinute: 1_000, internalErrors: internalErrors,
                limit: siteLimit))
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
                // Hosted, a browser signs in with a link from the operator: the page says so, never "open the pairing link".
                let words = String(buffer: page.body)
                #expect(
                    page.status == .unauthorized && words.contains("Not signed in") && words.contains("sign-in link")
                        && !words.contains("pairing link"))
            }
            _ = try fixture.environment("bob").useCases().devices.revoke("bob's phone")
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("bob")).status == .unauthorized)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok, "open routes answer from the lobby")
            // A reminder link takes GET and POST, as on a server of one person: any other method is 405 with Allow.
            for method: HTTPRequest.Method in [.put, .delete, .patch] {
                let other = try await client.execute(uri: "/a/not-a-signed-link", method: method)
                #expect(other.status == .methodNotAllowed && other.headers[.allow] == "GET, HEAD, POST", "\(method) \(other.status)")
            }
        }
        let alices = try fixture.environment("alice").store.eventsCSV().split(separator: "\n").filter { $0.contains("dose1") }
        let bobs = try fixture.environment("bob").store.eventsCSV().split(separator: "\n").filter { $0.contains("dose1") }
        #expect(alices.count == 1 && bobs.isEmpty, "one dose, Alice's: \(alices) \(bobs)")
    }

    @Test("a device's requests per minute are counted once across instances: two instances allow the limit, not twice it", SharedStoreFixture.enabled)
    func requestLimitAcrossInstances() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        var base = AppEnvironment(
            store: .postgres(fixture.store, person: RecordStore.nobody), now: { fixture.time.now }, machineTimeZoneID: "America/New_York",
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        base.sleep = { _ in }
        let errors = InternalErrorLog()
        // Two instances with a limit of 6 a minute, as two `serve` processes behind one proxy.
        let instances = try (0..<2).map { _ in
            try #require(
                PeopleSites(
                    environment: base, pairing: PairingCodes(store: fixture.store), deliveries: [], requestsPerMinute: 6, internalErrors: errors))
        }
        func status(_ name: String, at instance: Int) async throws -> TestResponse {
            try await Application(router: instances[instance].router()).test(.router) { client in
                try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth(name))
            }
        }
        for request in 0..<6 {
            let answer = try await status("alice", at: request % 2)
            #expect(answer.status == .ok, "request \(request + 1) of 6, at instance \(request % 2): \(answer.status)")
        }
        fixture.time.set(fixture.time.now.addingTimeInterval(20))
        for instance in 0..<2 {
            let refused = try await status("alice", at: instance)
            #expect(refused.status == .tooManyRequests, "the 7th and 8th, whichever instance answers: \(refused.status)")
            #expect(refused.headers[.retryAfter] == "40", "until the window that began 20 s ago ends")
        }
        #expect(try await status("bob", at: 1).status == .ok, "another person's device has a window of its own")
        fixture.time.set(fixture.time.now.addingTimeInterval(40))
        #expect(try await status("alice", at: 1).status == .ok, "a minute after the window began, a new one")
        #expect(errors.all.isEmpty, "\(errors.all)")
    }

    @Test("a pairing code one instance showed pairs at another instance of the same store, once, for its person", SharedStoreFixture.enabled)
    func pairingCodesAcrossInstances() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let bob = try #require(fixture.people["bob"]?.id)
        // A second instance: its own sites and codes over the same database, as a second `serve` has.
        var base = AppEnvironment(
            store: .postgres(fixture.store, person: RecordStore.nobody), now: { fixture.time.now }, machineTimeZoneID: "America/New_York",
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        base.sleep = { _ in }
        let errors = InternalErrorLog()
        let other = try #require(
            PeopleSites(
                environment: base, pairing: PairingCodes(store: fixture.store), deliveries: [], requestsPerMinute: 1_000, internalErrors: errors))
        let code = await fixture.pairing.issue(now: fixture.time.now, random: .system, for: bob)
        #expect(await fixture.pairing.outstanding == 0, "kept in the database, not in the instance that made it")
        try await Application(router: other.router()).test(.router) { client in
            let paired = try await client.execute(uri: "/pair?code=\(code)", method: .get)
            #expect(paired.status == .seeOther, "\(String(buffer: paired.body).prefix(300))")
        }
        #expect(try fixture.environment("bob").useCases().devices.active().count == 2, "the browser is Bob's, paired at the other instance")
        #expect(try fixture.environment("alice").useCases().devices.active().count == 1)
        try await fixture.test { client in
            let again = try await client.execute(uri: "/pair?code=\(code)", method: .get)
            #expect(again.status == .badRequest && String(buffer: again.body).contains("used up or expired"), "used once, at any instance")
        }
        // A code past its fifteen minutes pairs nowhere.
        let late = await fixture.pairing.issue(now: fixture.time.now, random: .system, for: bob)
        fixture.time.set(fixture.time.now.addingTimeInterval(PairingCodes.lifetime + 1))
        try await Application(router: other.router()).test(.router) { client in
            let expired = try await client.execute(uri: "/pair?code=\(late)", method: .get)
            #expect(expired.status == .badRequest)
        }
        #expect(errors.all.isEmpty, "\(errors.all)")
    }

    @Test(
        "a person's used link replayed from many addresses never locks her out: each address counts its own failures; a guess counts against its address",
        SharedStoreFixture.enabled)
    func accountSignInLimit() throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 12, 0))
        let alice = try #require(fixture.people["alice"]?.id)
        func link(_ person: String) throws -> String {
            let token = SignInLinks.token(.system)
            try fixture.store.issueSignInLink(
                person: person, tokenHash: DeviceTokens.hash(token), at: fixture.time.now, expiresAt: fixture.time.now.addingTimeInterval(3_600))
            return token
        }
        let used = try link(alice)
        let signIn = fixture.environment("alice").useCases().signIn
        _ = try signIn.signIn(token: used, from: "10.0.0.1", deviceName: "Phone")
        // The used link replayed from ten addresses, one attempt each (the probe of issue 56): each is refused, no address
        // reaches its limit, and Alice's next link works at once, from any address.
        for address in 1...SignInLinks.failuresAllowed {
            #expect(throws: DoseError.self) { try signIn.signIn(token: used, from: "10.0.1.\(address)", deviceName: "Phone") }
        }
        _ = try signIn.signIn(token: try link(alice), from: "10.0.2.1", deviceName: "Phone")
        // Replayed ten times from one address, that address waits, and only it.
        for _ in 1...SignInLinks.failuresAllowed {
            #expect(throws: DoseError.self) { try signIn.signIn(token: used, from: "10.0.5.1", deviceName: "Phone") }
        }
        let fresh = try link(alice)
        #expect(throws: DoseError.tooManyRequests(retryAfterSeconds: SignInLinks.failureWindow), "that address waits out the window") {
            try signIn.signIn(token: fresh, from: "10.0.5.1", deviceName: "Phone")
        }
        _ = try signIn.signIn(token: fresh, from: "10.0.2.2", deviceName: "Phone")
        // Guesses reach the lobby, which is no one's: they count against their address only, never an account.
        let lobby = fixture.sites.site(RecordStore.nobody).environment.useCases().signIn
        for _ in 1...3 {
            #expect(throws: DoseError.self) { try lobby.signIn(token: "dts_" + String(repeating: "0", count: 64), from: "10.0.3.1", deviceName: "x") }
        }
        let bob = try #require(fixture.people["bob"]?.id)
        _ = try fixture.environment("bob").useCases().signIn.signIn(token: try link(bob), from: "10.0.4.1", deviceName: "Phone")
        // Past the window the waiting address may try again.
        fixture.time.set(fixture.time.now.addingTimeInterval(TimeInterval(SignInLinks.failureWindow) + 1))
        _ = try fixture.environment("alice").useCases().signIn.signIn(token: try link(alice), from: "10.0.5.1", deviceName: "Phone")
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
        await fixture.sites.jobs.round(waitForDeliveries: true)
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
            #expect(shown.status == .ok, "\(String(buffer: shown.body).split(separator: "<main").last?.prefix(600) ?? "")")
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

extension PeopleSitesTests {
    @Test(
        "every route a grant could open, API and pages, walked as Alice, each one-grant grantee, a revoked grantee, a stranger and no one",
        SharedStoreFixture.enabled)
    func sharedRouteMatrix() async throws {
        let grantees: [String: [String]] = ["viewer": ["view"], "reporter": ["report"], "ringer": ["alarms"], "logger": ["log"]]
        let fixture = try SharedStoreFixture(
            now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "revoked", "stranger"] + grantees.keys.sorted())
        let alice = try #require(fixture.people["alice"]?.id)
        let canary = "canary-\(UUID().uuidString.prefix(8))"
        let own = try fixture.environment("alice").useCases()
        _ = try own.night.perform(NightAction(.dose1, note: canary), from: .api)
        for (name, grants) in grantees.merging(["revoked": ["view", "report", "alarms", "log"]], uniquingKeysWith: { $1 }) {
            let url = try own.sharing.invite(email: "\(name)@example.org", grants: grants, base: "http://localhost").url
            _ = try fixture.environment(name).useCases().sharing.answer(token: String(url.split(separator: "=").last ?? ""), accept: true)
        }
        let revokedShare = try #require(try own.sharing.given().shares.first { $0.grantee.email == "revoked@example.org" })
        _ = try own.sharing.revoke(revokedShare.id)
        let eventID = try #require(try own.night.status().session?.events.first?.id.rawValue)
        let nightID = try #require(try own.night.status().session?.id.rawValue)

        // Every route a grant opens, and some of Alice's that none does, under both prefixes.
        var walk: [(HTTPRequest.Method, String, Set<Grant>)] = []
        for (table, prefix) in [(SharedRoutes.opened, "/v1/people/\(alice)/"), (SharedRoutes.pages, "/people/\(alice)/")] {
            var routes: [String: (HTTPRequest.Method, Set<Grant>)] = [:]
            for (grant, opened) in table {
                for (method, route) in opened { routes["\(method) \(route)", default: (method, [])].1.insert(grant) }
            }
            for (key, (method, grants)) in routes {
                let route = String(key.split(separator: " ", maxSplits: 1).dropFirst().first ?? "")
                walk.append(
                    (
                        method, prefix + route.replacingOccurrences(of: ":date", with: "2026-11-21").replacingOccurrences(of: ":id", with: nightID),
                        grants
                    ))
            }
        }
        for (method, route) in [(HTTPRequest.Method.get, "settings"), (.post, "clear-all"), (.get, "export/events.csv"), (.post, "undo")] {
            walk.append((method, "/v1/people/\(alice)/\(route)", []))
        }
        for (method, route) in [(HTTPRequest.Method.get, "settings"), (.get, "medications"), (.post, "ui/clear-all"), (.get, "history/delete")] {
            walk.append((method, "/people/\(alice)/\(route)", []))
        }
        #expect(walk.count >= 25)
        let routes = walk
        try await fixture.test { client in
            // Each person's own form token (a grantee's pages for Alice carry theirs), so a refusal is the grant's.
            var tokens: [String: String] = [:]
            for who in ["stranger", "revoked"] + grantees.keys.sorted() {
                let page = String(buffer: try await client.execute(uri: "/settings/sharing", method: .get, headers: fixture.auth(who)).body)
                tokens[who] = String(page.split(separator: "name=\"csrf\" value=\"").dropFirst().first?.split(separator: "\"").first ?? "")
            }
            for (method, path, opening) in routes {
                for who in ["nobody", "stranger", "revoked"] + grantees.keys.sorted() {
                    let body = ByteBuffer(string: path.hasPrefix("/v1/") ? "{}" : "csrf=\(tokens[who] ?? "")&action=log&event=bathroom")
                    let grants = Set((grantees[who] ?? []).compactMap(Grant.init(rawValue:)) + (grantees[who] == ["log"] ? [.view] : []))
                    // The event stream of a grant that opens it never ends; the sharing tests read it elsewhere.
                    if path.hasSuffix("/stream"), !grants.isDisjoint(with: opening) { continue }
                    var headers = who == "nobody" ? HTTPFields() : fixture.auth(who)
                    if !path.hasPrefix("/v1/") { headers[.contentType] = "application/x-www-form-urlencoded" }
                    let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
                    let text = String(buffer: response.body)
                    let expected: HTTPResponse.Status? =
                        switch who {
                        case "nobody": .unauthorized
                        case "stranger", "revoked": .notFound
                        default: grants.isDisjoint(with: opening) ? .forbidden : nil
                        }
                    if let expected {
                        #expect(response.status == expected, "\(method) \(path) as \(who): \(response.status)")
                        // A refusal may repeat the address asked for; it shows nothing else of hers.
                        for secret in [canary, eventID, nightID] where !path.contains(secret) {
                            #expect(!text.contains(secret), "\(method) \(path) as \(who) refused, yet showed Alice's \(secret)")
                        }
                    } else {
                        #expect(![.unauthorized, .forbidden, .notFound].contains(response.status), "\(method) \(path) as \(who): \(response.status)")
                    }
                }
            }
        }
        let audit = try own.sharing.audit()
        #expect(!audit.contains { $0.actor?.email == "stranger@example.org" }, "a stranger leaves no trace in Alice's audit")
        #expect(!audit.contains { $0.actor?.email == "revoked@example.org" && ["viewed", "logged", "acknowledged"].contains($0.action) })
    }
}

@Suite("sharing on a shared store: invitations, grants that open exactly their routes, revocation, the audit", .serialized)
struct SharingRouteTests {
    static func post(_ client: any TestClientProtocol, _ uri: String, _ headers: HTTPFields, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, _ headers: HTTPFields) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: headers)
    }

    static func message(_ response: TestResponse) -> String {
        ((ServerFixture.json(response)["error"] as? [String: Any])?["message"] as? String) ?? ""
    }

    @Test(
        "Alice shares `log` with Bob: refusals first, then Bob records her dose under the rules, named in her audit; revoked, he sees nothing",
        SharedStoreFixture.enabled)
    func logShare() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in
            for (body, problem) in [
                (#"{"email":"alice@example.org","grants":["view"]}"#, "your own address"),
                (#"{"email":"bob@example.org","grants":["admin"]}"#, "'admin' is not a grant"),
                (#"{"email":"bob@example.org","grants":[]}"#, "no grant was given"),
                (#"{"email":"bob@example.org"}"#, "grants"),
                (#"{"email":"not an address","grants":["view"]}"#, "email"),
            ] {
                let refused = try await Self.post(client, "/v1/shares", fixture.auth("alice"), body)
                #expect(refused.status == .badRequest && Self.message(refused).contains(problem), "\(body): \(Self.message(refused))")
            }
            let made = try await Self.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"Bob@Example.org","grants":["log"]}"#)
            #expect(made.status == .created)
            let invitation = ServerFixture.json(made)
            #expect(invitation["grants"] as? [String] == ["view", "log"], "log includes view: \(invitation)")
            #expect(invitation["state"] as? String == "pending" && invitation["expires_at"] as? String == "2026-11-29T03:30:00.000Z")
            let url = try #require(invitation["invite_url"] as? String)
            let token = String(try #require(url.split(separator: "=").last))
            #expect(token.hasPrefix("dti_") && token.count == 68)
            let again = try await Self.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"bob@example.org","grants":["view"]}"#)
            #expect(again.status == .badRequest && Self.message(again).contains("already has a pending invitation"))

            // Before Bob accepts, Alice does not exist for him, exactly as someone who never existed.
            let early = try await Self.get(client, "/v1/people/\(alice)/status", fixture.auth("bob"))
            let never = try await Self.get(client, "/v1/people/no-such-person/status", fixture.auth("bob"))
            #expect(early.status == .notFound && never.status == .notFound)
            #expect(
                Self.message(early).replacingOccurrences(of: alice, with: "X")
                    == Self.message(never).replacingOccurrences(of: "no-such-person", with: "X"))

            let wrongPerson = try await Self.post(client, "/v1/invitations/accept", fixture.auth("carol"), #"{"token":"\#(token)"}"#)
            #expect(wrongPerson.status == .badRequest && Self.message(wrongPerson).contains("made for another address"))
            let own = try await Self.post(client, "/v1/invitations/accept", fixture.auth("alice"), #"{"token":"\#(token)"}"#)
            #expect(own.status == .badRequest && Self.message(own).contains("your own invitation"))
            let accepted = try await Self.post(client, "/v1/invitations/accept", fixture.auth("bob"), #"{"token":"\#(token)"}"#)
            #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
            let twice = try await Self.post(client, "/v1/invitations/accept", fixture.auth("bob"), #"{"token":"\#(token)"}"#)
            #expect(twice.status == .badRequest && Self.message(twice).contains("cannot be used"))

            let listed = ServerFixture.json(try await Self.get(client, "/v1/people", fixture.auth("bob")))["people"] as? [[String: Any]]
            #expect(listed?.map { $0["email"] as? String } == ["alice@example.org"] && listed?.first?["grants"] as? [String] == ["view", "log"])

            // With `log`, Bob records Alice's Dose 1; Dose 2 now is refused by the same rule that would refuse her.
            let dose1 = try await Self.post(client, "/v1/people/\(alice)/doses/take", fixture.auth("bob"), #"{"type":"dose1"}"#)
            #expect(dose1.status == .ok, "\(String(buffer: dose1.body))")
            #expect((ServerFixture.json(dose1)["metadata"] as? [String: Any])?["acted_by"] as? String == "bob@example.org")
            let tooEarly = try await Self.post(client, "/v1/people/\(alice)/doses/take", fixture.auth("bob"), #"{"type":"dose2"}"#)
            #expect(tooEarly.status == .unprocessableContent && ServerFixture.code(tooEarly) == "422_WINDOW_NOT_OPEN")
            #expect(PeopleSitesTests.phase(try await Self.get(client, "/v1/status", fixture.auth("alice"))) == "before_window")
            #expect(PeopleSitesTests.phase(try await Self.get(client, "/v1/status", fixture.auth("bob"))) == "no_dose1", "his own night")
            #expect(PeopleSitesTests.phase(try await Self.get(client, "/v1/people/\(alice)/status", fixture.auth("bob"))) == "before_window")

            // Each grant opens exactly its routes: insights are a read, open with view (SPEC §5.6), the exports need report.
            #expect(try await Self.get(client, "/v1/people/\(alice)/insights?nights=30", fixture.auth("bob")).status == .ok)
            for (method, route) in [
                (HTTPRequest.Method.get, "export/sessions.csv"), (.get, "settings"), (.post, "clear-all"), (.get, "export/events.csv"),
                (.post, "undo"),
            ] {
                let closed = try await client.execute(
                    uri: "/v1/people/\(alice)/\(route)", method: method, headers: fixture.auth("bob"), body: ByteBuffer(string: "{}"))
                #expect(closed.status == .forbidden, "\(method) \(route): \(closed.status)")
            }
            let stranger = try await Self.get(client, "/v1/people/\(alice)/status", fixture.auth("carol"))
            #expect(stranger.status == .notFound)

            let audit = ServerFixture.json(try await Self.get(client, "/v1/audit", fixture.auth("alice")))["entries"] as? [[String: Any]] ?? []
            let lines = audit.map { "\($0["who"] as? String ?? "?") \($0["action"] as? String ?? "?") \($0["detail"] as? String ?? "?")" }
            #expect(lines.contains("bob@example.org logged a dose"), "\(lines)")
            #expect(
                lines.contains("bob@example.org viewed tonight's status") && lines.contains("bob@example.org accepted accepted view and log"),
                "\(lines)")
            #expect(lines.contains("alice@example.org shared invited bob@example.org to view and log"), "\(lines)")
            #expect((ServerFixture.json(try await Self.get(client, "/v1/audit", fixture.auth("bob")))["entries"] as? [Any])?.isEmpty == true)

            // Revoked: the next request of Bob's finds no one.
            let shares = ServerFixture.json(try await Self.get(client, "/v1/shares", fixture.auth("alice")))
            let shareID = try #require((shares["shares"] as? [[String: Any]])?.first?["id"] as? String)
            let revoked = try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: fixture.auth("alice"))
            #expect(revoked.status == .ok)
            #expect(try await Self.get(client, "/v1/people/\(alice)/status", fixture.auth("bob")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: fixture.auth("alice")).status == .notFound)
            #expect(try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: fixture.auth("bob")).status == .notFound)
        }
    }

    @Test("an invitation expires after 7 days; a declined one cannot be accepted; view does not log", SharedStoreFixture.enabled)
    func expiryAndDecline() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in
            func invite(_ email: String, _ grants: String) async throws -> String {
                let made = ServerFixture.json(
                    try await Self.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"\#(email)","grants":\#(grants)}"#))
                return String((made["invite_url"] as? String)?.split(separator: "=").last ?? "")
            }
            let bobs = try await invite("bob@example.org", #"["view"]"#)
            let carols = try await invite("carol@example.org", #"["view","report"]"#)
            #expect(try await Self.post(client, "/v1/invitations/decline", fixture.auth("carol"), #"{"token":"\#(carols)"}"#).status == .ok)
            let afterDecline = try await Self.post(client, "/v1/invitations/accept", fixture.auth("carol"), #"{"token":"\#(carols)"}"#)
            #expect(afterDecline.status == .badRequest)
            fixture.time.advance(seconds: SharingService.lifetime + 60)
            let late = try await Self.post(client, "/v1/invitations/accept", fixture.auth("bob"), #"{"token":"\#(bobs)"}"#)
            #expect(late.status == .badRequest && Self.message(late).contains("cannot be used"))
            let fresh = try await invite("bob@example.org", #"["view"]"#)
            #expect(try await Self.post(client, "/v1/invitations/accept", fixture.auth("bob"), #"{"token":"\#(fresh)"}"#).status == .ok)
            #expect(try await Self.get(client, "/v1/people/\(alice)/sessions", fixture.auth("bob")).status == .ok)
            let logging = try await Self.post(client, "/v1/people/\(alice)/doses/take", fixture.auth("bob"), #"{"type":"dose1"}"#)
            #expect(logging.status == .forbidden && Self.message(logging).contains("it needs log"), "\(Self.message(logging))")
            let states = (ServerFixture.json(try await Self.get(client, "/v1/shares", fixture.auth("alice")))["invitations"] as? [[String: Any]])?
                .map { "\($0["email"] as? String ?? "") \($0["state"] as? String ?? "") \($0["expired"] as? Bool ?? false)" }
            // Newest first; the first two were made at one instant, so their order is their ids'.
            #expect(states?.first == "bob@example.org accepted false", "\(states ?? [])")
            #expect(Set(states ?? []) == ["bob@example.org accepted false", "carol@example.org declined false", "bob@example.org cancelled false"])
        }
    }

    @Test("on a SQLite file, which is one person's, sharing is refused with the reason; a method no grant opens answers 405")
    func sqliteRefuses() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/v1/shares", #"{"email":"bob@example.org","grants":["view"]}"#), (.get, "/v1/shares", ""),
                (.get, "/v1/people", ""), (.get, "/v1/audit", ""), (.post, "/v1/invitations/accept", #"{"token":"dti_0"}"#),
            ] {
                let refused = try await client.execute(uri: path, method: method, headers: fixture.auth, body: ByteBuffer(string: body))
                #expect(refused.status == .forbidden && Self.message(refused).contains("needs a shared PostgreSQL store"), "\(method) \(path)")
            }
            let shared = try await Self.get(client, "/v1/people/someone/status?x=1", fixture.auth)
            #expect(shared.status == .forbidden && Self.message(shared).contains("needs a shared PostgreSQL store"))
            let trace = try await client.execute(uri: "/v1/people/someone/alarm/log?date=2000-01-01", method: .trace, headers: fixture.auth)
            #expect(trace.status == .methodNotAllowed && trace.headers[.allow] == "GET, HEAD", "as the router answers its own routes")
            for page in ["/people", "/settings/sharing", "/settings/audit", "/people/someone/"] {
                let refused = try await client.execute(uri: page, method: .get, headers: fixture.auth)
                #expect(refused.status == .forbidden && String(buffer: refused.body).contains("needs a shared PostgreSQL store"), "\(page)")
            }
            #expect(
                !String(buffer: try await client.execute(uri: "/settings", method: .get, headers: fixture.auth).body).contains("/settings/sharing"))
        }
    }

    @Test("the invitation page shows who shares and what each grant allows, and its buttons accept once", SharedStoreFixture.enabled)
    func invitationPage() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            let made = ServerFixture.json(
                try await Self.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"bob@example.org","grants":["view","alarms"]}"#))
            let token = String((made["invite_url"] as? String)?.split(separator: "=").last ?? "")
            let page = try await Self.get(client, "/invitation?token=\(token)", fixture.auth("bob"))
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("alice@example.org shares with you") && html.contains("Alarms: be told"), "\(html)")
            #expect(!html.contains("Log: record"), "only the grants given are listed")
            let csrf = try #require(html.split(separator: "name=\"csrf\" value=\"").dropFirst().first?.split(separator: "\"").first)
            var headers = fixture.auth("bob")
            headers[.contentType] = "application/x-www-form-urlencoded"
            let accepted = try await client.execute(
                uri: "/ui/invitation", method: .post, headers: headers, body: ByteBuffer(string: "csrf=\(csrf)&token=\(token)&answer=accept"))
            #expect(accepted.status == .ok && String(buffer: accepted.body).contains("alice@example.org now shares with you: view and alarms."))
            let again = try await Self.get(client, "/invitation?token=\(token)", fixture.auth("bob"))
            #expect(again.status == .badRequest && String(buffer: again.body).contains("cannot be used"))
            let forged = try await client.execute(
                uri: "/ui/invitation", method: .post, headers: headers, body: ByteBuffer(string: "csrf=wrong&token=\(token)&answer=accept"))
            #expect(forged.status == .forbidden)
        }
    }
}
