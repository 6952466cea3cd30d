import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// Making an account from an invitation (issue 56): the operator's sign-up policy decides, the mail carries the link,
/// and accepting makes the account, signs the browser in and makes the share in one step.
@Suite("sign-up from an invitation", .serialized)
struct JoinTests {
    static let now = WallClock.date(2026, 11, 29, 21, 0)
    static let origin = "http://localhost"

    /// Alice invites `address` to `view`; the invitation's token, from the mail when mail is on, else from the answer.
    static func invite(_ address: String, _ fixture: SharedStoreFixture, _ client: any TestClientProtocol) async throws -> String {
        let made = try await SharingRouteTests.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"\#(address)","grants":["view"]}"#)
        #expect(made.status == .created, "\(String(buffer: made.body))")
        let url = try #require(ServerFixture.json(made)["invite_url"] as? String)
        return String(try #require(url.split(separator: "=").last))
    }

    static func join(_ token: String, _ client: any TestClientProtocol, origin: String? = Self.origin) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let origin { headers[HTTPField.Name("Origin")!] = origin }
        return try await client.execute(uri: "/join", method: .post, headers: headers, body: ByteBuffer(string: "token=\(token)"))
    }

    @Test(
        "invited sign-up: the mail's link shows one button; pressing it makes Dave's account, signs him in and shares Alice's records",
        SharedStoreFixture.enabled)
    func invitedMayJoin() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: .invited)
        try await fixture.test { client in
            let token = try await Self.invite("dave@example.org", fixture, client)
            let mail = try #require(try fixture.store.claimMail(owner: "test", now: fixture.time.now, lease: 60, limit: 10).first)
            #expect(
                mail.text.contains("make your DoseTap account for dave@example.org") && mail.text.contains("/join?token=\(token)"), "\(mail.text)")
            let page = try await client.execute(uri: "/join?token=\(token)", method: .get)
            let words = String(buffer: page.body)
            #expect(page.status == .ok && words.contains("Make my account and accept") && words.contains("dave@example.org"), "\(words.prefix(400))")
            #expect(try fixture.store.person(named: "dave@example.org") == nil, "opening the page made nothing")

            let refused = try await Self.join(token, client, origin: nil)
            #expect(refused.status == .forbidden, "a post with no evidence of where it came from makes nothing")
            #expect(try fixture.store.person(named: "dave@example.org") == nil)

            let joined = try await Self.join(token, client)
            #expect(joined.status == .seeOther && joined.headers[.location] == "/people/\(fixture.people["alice"]!.id)/", "\(joined.headers)")
            let cookie = try #require(joined.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let dave = try #require(try fixture.store.person(named: "dave@example.org"))
            let people = ServerFixture.json(try await client.execute(uri: "/v1/people", method: .get, headers: [.cookie: cookie]))
            let listed = try #require(people["people"] as? [[String: Any]])
            #expect(listed.map { $0["email"] as? String } == ["alice@example.org"] && listed.first?["grants"] as? [String] == ["view"])
            #expect(try fixture.environment("alice").useCases().sharing.given().shares.map(\.grantee.id) == [dave.id])

            let again = try await Self.join(token, client)
            #expect(again.status == .badRequest, "the invitation is used: nothing more is made")
            #expect(try fixture.store.people().count == 3)
        }
    }

    @Test(
        "closed sign-up, an address outside the domain, or one that has an account: no account is made, and the page says what to do",
        SharedStoreFixture.enabled)
    func refusals() async throws {
        for (policy, address, status, words) in [
            (SignUpPolicy.closed, "dave@example.org", HTTPResponse.Status.forbidden, "ask them to add dave@example.org"),
            (.domain("clinic.example.org"), "dave@example.org", .forbidden, "ask them to add dave@example.org"),
            (.invited, "bob@example.org", .badRequest, "already has an account here"),
        ] {
            let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: policy)
            try await fixture.test { client in
                let token = try await Self.invite(address, fixture, client)
                let mail = try #require(try fixture.store.claimMail(owner: "test", now: fixture.time.now, lease: 60, limit: 10).first)
                #expect(!mail.text.contains("/join?"), "\(policy) \(address): the mail does not offer what cannot be done")
                let page = try await client.execute(uri: "/join?token=\(token)", method: .get)
                #expect(page.status == status && String(buffer: page.body).contains(words), "\(policy) \(address): \(page.status)")
                let posted = try await Self.join(token, client)
                #expect(posted.status == status, "\(policy) \(address): \(posted.status)")
                #expect(try fixture.store.people().count == 2, "no one was added")
            }
        }
    }

    @Test(
        "the account, its device, the share and the audits are one transaction: a failure at the device leaves none of them, and the invitation still works",
        SharedStoreFixture.enabled)
    func oneTransaction() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: .invited)
        try await fixture.test { client in
            let token = try await Self.invite("dave@example.org", fixture, client)
            let alicesPhone = try #require(try fixture.environment("alice").useCases().devices.all().first)
            // A device whose id is already Alice's phone's: its insert fails after the person was inserted.
            let clash = DeviceRecord(
                id: alicesPhone.id, name: "Dave's phone", tokenHash: String(repeating: "d", count: 64), createdAt: fixture.time.now, revokedAt: nil)
            #expect(throws: (any Error).self) {
                try fixture.store.join(
                    invitationTokenHash: DeviceTokens.hash(token), person: "dave-partial", device: clash, at: fixture.time.now, by: .terminal,
                    audited: (own: "made", inviter: "accepted"))
            }
            #expect(try fixture.store.person(named: "dave@example.org") == nil && fixture.store.person(named: "dave-partial") == nil)
            #expect(try fixture.store.rowsOf("dave-partial") == 0)
            #expect(try fixture.environment("alice").useCases().sharing.given().invitations.first?.state == .pending)
            let audit = try fixture.store.operatorReading(at: fixture.time.now, window: 60, aliveWithin: 60).audit
            #expect(!audit.contains { $0.detail.contains("dave") }, "nothing of the failed attempt is audited: \(audit)")

            let joined = try await Self.join(token, client)
            #expect(joined.status == .seeOther, "the invitation is still good afterwards")
            let dave = try #require(try fixture.store.person(named: "dave@example.org"))
            #expect(try fixture.environment("alice").useCases().sharing.given().shares.map(\.grantee.id) == [dave.id])
            let after = try fixture.store.operatorReading(at: fixture.time.now, window: 60, aliveWithin: 60).audit
            #expect(
                after.filter { $0.detail.contains("dave@example.org") }.map { "\($0.actor) \($0.action)" } == ["sign-up from an invitation added"])
        }
    }

    @Test("a domain's sign-up lets an invitee at that domain make an account", SharedStoreFixture.enabled)
    func domainMayJoin() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, signUp: .domain("clinic.example.org"))
        try await fixture.test { client in
            let token = try await Self.invite("carol@clinic.example.org", fixture, client)
            #expect(try await Self.join(token, client).status == .seeOther)
            #expect(try fixture.store.person(named: "carol@clinic.example.org") != nil)
        }
    }
}
