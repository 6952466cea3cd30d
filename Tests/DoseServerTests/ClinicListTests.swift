import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// A clinic's list (issue 56) through the real router of a shared store served as the role that owns nothing: Dora holds
/// view or report from three people and sees them ordered by what needs attention, and can find one by name.
@Suite("a clinic's list: the people who share with you, the ones needing attention first", .serialized)
struct ClinicListTests {
    typealias Routes = SharingRouteTests
    static let start = WallClock.date(2026, 11, 20, 22, 30)

    /// `owner` shares `grants` with `grantee`, who accepts.
    static func share(_ client: any TestClientProtocol, _ fixture: SharedStoreFixture, _ owner: String, with grantee: String, _ grants: String)
        async throws
    {
        let made = ServerFixture.json(
            try await Routes.post(client, "/v1/shares", fixture.auth(owner), #"{"email":"\#(grantee)@example.org","grants":\#(grants)}"#))
        let token = String((made["invite_url"] as? String)?.split(separator: "=").last ?? "")
        #expect(try await Routes.post(client, "/v1/invitations/accept", fixture.auth(grantee), #"{"token":"\#(token)"}"#).status == .ok)
    }

    static func take(_ fixture: SharedStoreFixture, _ name: String, _ action: NightAction.Kind) throws {
        _ = try fixture.environment(name).useCases().night.perform(NightAction(action), from: .api)
    }

    @Test(
        "a missed Dose 2 tonight first, then five days without a night, then a steady patient; the page says why; a name finds one",
        SharedStoreFixture.enabled)
    func orderedByConcern() async throws {
        let fixture = try SharedStoreFixture(now: Self.start, names: ["alice", "bob", "carol", "dora"])
        // Bob's one night, then four of Carol's on target, then Alice's Dose 1 tonight with the window closed 250 minutes on.
        try Self.take(fixture, "bob", .dose1)
        fixture.time.advance(seconds: 165 * 60)
        try Self.take(fixture, "bob", .dose2)
        for _ in 1...4 {
            fixture.time.advance(seconds: (24 * 60 - 165) * 60)
            try Self.take(fixture, "carol", .dose1)
            fixture.time.advance(seconds: 165 * 60)
            try Self.take(fixture, "carol", .dose2)
        }
        fixture.time.advance(seconds: (24 * 60 - 165) * 60)
        try Self.take(fixture, "alice", .dose1)
        fixture.time.advance(seconds: 250 * 60)
        let ids = ["alice", "bob", "carol"].map { fixture.people[$0]!.id }
        try await fixture.test { client in
            try await Self.share(client, fixture, "carol", with: "dora", #"["view","report"]"#)
            try await Self.share(client, fixture, "bob", with: "dora", #"["report"]"#)
            try await Self.share(client, fixture, "alice", with: "dora", #"["view"]"#)
            let listed = try #require(
                ServerFixture.json(try await Routes.get(client, "/v1/people", fixture.auth("dora")))["people"] as? [[String: Any]])
            #expect(listed.compactMap { $0["id"] as? String } == ids, "Alice, then Bob, then Carol: \(listed)")
            let concerns = listed.map { $0["last_7_nights"] as? [String: Any] ?? [:] }
            #expect(concerns[0]["missed"] as? Int == 1 && concerns[0]["needs_attention"] as? Bool == true, "\(concerns[0])")
            #expect(concerns[1]["days_since_last_night"] as? Int == 5 && concerns[1]["needs_attention"] as? Bool == true, "\(concerns[1])")
            #expect(
                concerns[2]["nights"] as? Int == 4 && concerns[2]["missed"] as? Int == 0 && concerns[2]["needs_attention"] as? Bool == false,
                "\(concerns[2])")

            let page = String(buffer: try await Routes.get(client, "/people", fixture.auth("dora")).body)
            let cards = page.components(separatedBy: "data-person>").dropFirst()
            #expect(cards.count == 3 && page.contains("2 people need attention and come first."))
            #expect(cards.first?.contains("Dose 2 missed 1×") == true && cards.first?.contains("needs attention") == true, "\(cards.first ?? "")")
            #expect(Array(cards)[1].contains("No Dose 1 logged for 5 days"))
            #expect(
                Array(cards)[2].contains("no Dose 2 early, late or missed (4 nights with Dose 1)") && !Array(cards)[2].contains("needs attention"))

            let found = String(buffer: try await Routes.get(client, "/people?name=CAR", fixture.auth("dora")).body)
            #expect(found.components(separatedBy: "data-person>").count == 2 && found.contains("carol@example.org"), "one card: Carol's")
            let none = String(buffer: try await Routes.get(client, "/people?name=zed", fixture.auth("dora")).body)
            #expect(none.contains("No one here matches “zed”.") && !none.contains("data-person>"))
            let answer = try await Routes.get(client, "/v1/people?name=bob", fixture.auth("dora"))
            let api = ServerFixture.json(answer)["people"] as? [[String: Any]]
            #expect(api?.compactMap { $0["id"] as? String } == [ids[1]], "\(String(buffer: answer.body))")
            let long = try await Routes.get(client, "/v1/people?name=" + String(repeating: "a", count: 101), fixture.auth("dora"))
            #expect(long.status == .badRequest && Routes.message(long).contains("up to 100 characters"), "\(Routes.message(long))")
        }
    }
}
