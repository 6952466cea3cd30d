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

/// The escalation ladder through the real router and each person's reminder engine, on a test clock: Alice's partner
/// at the 15-minute warning, her parent 5 minutes later.
@Suite("the escalation ladder: rungs in order, each told once on their own channels, stopped by an answer, re-checked at send", .serialized)
struct LadderTests {
    typealias Routes = SharingRouteTests

    /// Alice (Dose 1 at 22:30) with Bob and Carol holding alarms and on her ladder at 225 and 230 minutes.
    static func ladder(_ client: any TestClientProtocol, _ fixture: SharedStoreFixture) async throws {
        for name in ["bob", "carol"] { try await SharingPagesTests.share(client, fixture, with: name, #"["alarms"]"#) }
        let body = #"{"rungs":[{"email":"Bob@example.org","minutes_after_dose1":225},{"email":"carol@example.org","minutes_after_dose1":230}]}"#
        let set = try await client.execute(uri: "/v1/ladder", method: .put, headers: fixture.auth("alice"), body: ByteBuffer(string: body))
        #expect(set.status == .ok, "\(String(buffer: set.body))")
        let rungs = (ServerFixture.json(set)["rungs"] as? [[String: Any]])?.map {
            "\(($0["person"] as? [String: Any])?["email"] as? String ?? "?")@\($0["minutes_after_dose1"] as? Int ?? 0)"
        }
        #expect(rungs == ["bob@example.org@225", "carol@example.org@230"])
        #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose1"}"#).status == .ok)
    }

    /// Ticks Alice's engine at `minutes` after her Dose 1 and returns who the ladder told by then, in order.
    static func told(_ fixture: SharedStoreFixture, at minutes: Double) async throws -> [String] {
        fixture.time.set(WallClock.date(2026, 11, 21, 22, 30).addingTimeInterval(minutes * 60))
        try await fixture.sites.site(fixture.people["alice"]?.id ?? "").engine.tick()
        return fixture.operatorHook.all.filter { $0.kind == .escalation }.compactMap(\.person)
    }

    @Test("refusals by name: someone without alarms, a minute outside the window, out of order, a stranger", SharedStoreFixture.enabled)
    func refusals() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        try await fixture.test { client in
            try await SharingPagesTests.share(client, fixture, with: "bob", #"["alarms"]"#)
            try await SharingPagesTests.share(client, fixture, with: "carol", #"["view"]"#)
            for (rungs, problem) in [
                (#"[{"email":"carol@example.org","minutes_after_dose1":225}]"#, "you do not share alarms with carol@example.org"),
                (#"[{"email":"dave@example.org","minutes_after_dose1":225}]"#, "you do not share alarms with dave@example.org"),
                (#"[{"email":"bob@example.org","minutes_after_dose1":240}]"#, "150–239"),
                (#"[{"email":"bob@example.org","minutes_after_dose1":149}]"#, "150–239"),
                (#"[{"email":"bob@example.org","minutes_after_dose1":"soon"}]"#, "minutes_after_dose1"),
                (#"[{"email":"bob@example.org"}]"#, "minutes_after_dose1"),
            ] {
                let refused = try await client.execute(
                    uri: "/v1/ladder", method: .put, headers: fixture.auth("alice"), body: ByteBuffer(string: #"{"rungs":\#(rungs)}"#))
                #expect(refused.status == .badRequest && Routes.message(refused).contains(problem), "\(rungs): \(Routes.message(refused))")
            }
            let empty = ServerFixture.json(try await Routes.get(client, "/v1/ladder", fixture.auth("alice")))["rungs"] as? [Any]
            #expect(empty?.isEmpty == true, "a refusal changed nothing")
        }
    }

    @Test("no answer: the partner at 225, the parent at 230, each once, on their own channels, named in Alice's audit", SharedStoreFixture.enabled)
    func wholeLadder() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        try await fixture.test { client in try await Self.ladder(client, fixture) }
        #expect(try await Self.told(fixture, at: 224.9).isEmpty)
        #expect(try await Self.told(fixture, at: 225) == ["person-bob"])
        #expect(try await Self.told(fixture, at: 227) == ["person-bob"], "once")
        #expect(try await Self.told(fixture, at: 230) == ["person-bob", "person-carol"])
        #expect(try await Self.told(fixture, at: 235) == ["person-bob", "person-carol"])
        let bobs = try #require(fixture.operatorHook.all.first { $0.kind == .escalation })
        #expect(bobs.message.contains("alice@example.org's Dose 2 has not been taken") && bobs.message.contains("window closes at"))
        #expect(bobs.tokens.isEmpty && bobs.audience == .sleeper, "it rings on Bob's own alarm channels, with no dose button")
        let audit = try fixture.environment("alice").useCases().sharing.audit().filter { $0.action == "alerted" }.compactMap(\.actor?.email)
        #expect(audit.sorted() == ["bob@example.org", "carol@example.org"])
    }

    @Test(
        "mailed alerts: Bob chose them on his People page and gets one copy by mail at 225, once; Carol, who did not, gets none",
        SharedStoreFixture.enabled)
    func mailedCopies() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"], sendsMail: true)
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in
            try await Self.ladder(client, fixture)
            let page = String(buffer: try await Routes.get(client, "/people", fixture.auth("bob")).body)
            #expect(page.contains("Mail me their alerts too"), "the choice is offered with alarms and mail on")
            let csrf = SharingPagesTests.hidden(page, "csrf")
            let chosen = try await Routes.post(
                client, "/ui/people/mail-alerts", SharingPagesTests.form(fixture, "bob"), "csrf=\(csrf)&id=\(alice)&on=true")
            #expect(chosen.status == .seeOther)
            let again = try await Routes.post(
                client, "/ui/people/mail-alerts", SharingPagesTests.form(fixture, "bob"), "csrf=\(csrf)&id=\(alice)&on=true")
            #expect(again.status == .seeOther, "a second tap of the same choice changes nothing")
            #expect(String(buffer: try await Routes.get(client, "/people", fixture.auth("bob")).body).contains("Stop mailing them"))
            let stranger = try await Routes.post(
                client, "/ui/people/mail-alerts", SharingPagesTests.form(fixture, "bob"), "csrf=\(csrf)&id=person-nobody&on=true")
            #expect(stranger.status == .notFound)
        }
        #expect(try await Self.told(fixture, at: 225) == ["person-bob"])
        #expect(try await Self.told(fixture, at: 227) == ["person-bob"])
        #expect(try await Self.told(fixture, at: 231) == ["person-bob", "person-carol"])
        // The invitations were mailed too; the alerts are what the ladder added.
        let mail = try fixture.store.claimMail(owner: "test", now: fixture.time.now, lease: 60, limit: 10).filter { $0.kind == .alert }
        #expect(mail.map(\.recipient) == ["bob@example.org"], "one copy, to Bob only: \(mail.map(\.recipient))")
        #expect(mail.first?.kind == .alert && mail.first?.text.contains("alice@example.org's Dose 2 has not been taken") == true)
        #expect(mail.first?.text.contains("never rely on it alone") == true)
    }

    @Test("Bob answers at 227: Carol is never told; a revoked rung is not told either", SharedStoreFixture.enabled)
    func answeredAndRevoked() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in try await Self.ladder(client, fixture) }
        #expect(try await Self.told(fixture, at: 225) == ["person-bob"])
        fixture.time.set(WallClock.date(2026, 11, 21, 22, 30).addingTimeInterval(227 * 60))
        try await fixture.test { client in
            let answered = try await Routes.post(client, "/v1/people/\(alice)/alarm/ack", fixture.auth("bob"), "{}")
            #expect(answered.status == .ok, "\(String(buffer: answered.body))")
        }
        #expect(try await Self.told(fixture, at: 230) == ["person-bob"], "Bob's answer stopped the rest")

        let second = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        try await second.test { client in try await Self.ladder(client, second) }
        #expect(try await Self.told(second, at: 225) == ["person-bob"])
        let shares = try second.environment("alice").useCases().sharing.given().shares
        _ = try second.environment("alice").useCases().sharing.revoke(try #require(shares.first { $0.grantee.email == "carol@example.org" }).id)
        #expect(try await Self.told(second, at: 231) == ["person-bob"], "Carol's grant is read at the moment of sending")
    }

    @Test(
        "the instance's upkeep alone tells the ladder, reading the ladders only of people on one with a night under way",
        SharedStoreFixture.enabled)
    func byUpkeep() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        try await fixture.test { client in try await Self.ladder(client, fixture) }
        _ = try fixture.environment("bob").useCases().night.perform(NightAction(.dose1), from: .api)
        let dose1 = WallClock.date(2026, 11, 21, 22, 30)
        #expect(try fixture.store.peopleWithALadder(around: dose1.addingTimeInterval(225 * 60)) == ["person-alice"], "Bob's night has no ladder")
        #expect(try fixture.store.peopleWithALadder(around: dose1.addingTimeInterval(12 * 3_600)).isEmpty, "nor is any night under way then")
        var state = UpkeepState()
        func told(at minutes: Double) async -> [String] {
            fixture.time.set(dose1.addingTimeInterval(minutes * 60))
            await fixture.sites.upkeepRound(&state, now: fixture.time.now, waitForDeliveries: true)
            return fixture.operatorHook.all.filter { $0.kind == .escalation }.compactMap(\.person)
        }
        #expect(await told(at: 224.9).isEmpty)
        #expect(await told(at: 225) == ["person-bob"])
        #expect(await told(at: 227) == ["person-bob"], "once")
        #expect(await told(at: 230) == ["person-bob", "person-carol"])
    }

    @Test("Dose 2 taken before the first rung: no one is told", SharedStoreFixture.enabled)
    func takenInTime() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        try await fixture.test { client in try await Self.ladder(client, fixture) }
        fixture.time.set(WallClock.date(2026, 11, 21, 22, 30).addingTimeInterval(200 * 60))
        _ = try fixture.environment("alice").useCases().night.perform(NightAction(.dose2), from: .api)
        #expect(try await Self.told(fixture, at: 231).isEmpty)
    }
}
