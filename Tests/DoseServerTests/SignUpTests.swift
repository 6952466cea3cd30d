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

/// The sign-up page of a DoseTap served with `--sign-up domain=DOMAIN` and `--smtp` (issue 56): anyone at the domain
/// asks for a link by mail, the answer is the same whether or not the address has an account, and the link signs its
/// reader in, making the account first if there is none.
@Suite("the sign-up page of a domain", .serialized)
struct SignUpTests {
    static let now = WallClock.date(2026, 11, 30, 9, 0)
    static let origin = "http://localhost"
    static let clinic = SignUpPolicy.domain("clinic.example.org")

    static func post(_ path: String, _ body: String, _ client: any TestClientProtocol, origin: String? = Self.origin) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let origin { headers[HTTPField.Name("Origin")!] = origin }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// Asks the page for a link for `address`.
    static func ask(_ address: String, _ client: any TestClientProtocol, origin: String? = Self.origin) async throws -> TestResponse {
        let encoded = address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? address
        return try await post("/signup", "email=\(encoded)", client, origin: origin)
    }

    /// The newest link mailed to `address`, whole, from the queue the mailer would send.
    static func mailedLink(to address: String, _ fixture: SharedStoreFixture) throws -> String {
        let mails = try fixture.store.claimMail(owner: "test", now: fixture.time.now, lease: 60, limit: 50).filter { $0.recipient == address }
        let mail = try #require(mails.last, "a mail to \(address)")
        #expect(mail.subject == "Your DoseTap link" && mail.html.contains("/signup/confirm?token=dtu_"), "\(mail.subject)")
        return String(try #require(mail.text.split(separator: "\n").first { $0.contains("/signup/confirm?token=") }))
    }

    /// The token of the newest link mailed to `address`.
    static func mailedToken(to address: String, _ fixture: SharedStoreFixture) throws -> String {
        String(try #require(try mailedLink(to: address, fixture).split(separator: "=").last))
    }

    static func mails(to address: String, _ fixture: SharedStoreFixture) throws -> Int {
        try fixture.store.mailQueue().filter { $0.recipient == address }.count
    }

    @Test(
        "Dana, invited by no one, asks with her clinic address; the mailed link shows one button, and pressing it makes her account and signs this browser in",
        SharedStoreFixture.enabled)
    func newAccount() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        try await fixture.test { client in
            let form = try await client.execute(uri: "/signup", method: .get)
            let formWords = String(buffer: form.body)
            #expect(form.status == .ok && formWords.contains("Your address at clinic.example.org") && formWords.contains("Mail me a link"))

            #expect(try await Self.ask("dana@clinic.example.org", client, origin: nil).status == .forbidden, "a post from nowhere mails nothing")
            #expect(try await Self.ask("dana@clinic.example.org", client, origin: "http://evil.example").status == .forbidden)
            #expect(try Self.mails(to: "dana@clinic.example.org", fixture) == 0)

            let asked = try await Self.ask(" Dana@Clinic.Example.org ", client)
            let answer = String(buffer: asked.body)
            #expect(
                asked.status == .ok && answer.contains("A link is on its way to <strong>dana@clinic.example.org</strong>"), "\(answer.prefix(600))")
            // A half-asleep second tap, or a reload, a moment later: the same answer, and nothing more is mailed.
            fixture.time.advance(seconds: 1)
            let again = try await Self.ask("dana@clinic.example.org", client)
            #expect(again.status == .ok && String(buffer: again.body).contains("A link is on its way to"))
            #expect(try Self.mails(to: "dana@clinic.example.org", fixture) == 1)
            #expect(try fixture.store.person(named: "dana@clinic.example.org") == nil, "asking made no account")

            let token = try Self.mailedToken(to: "dana@clinic.example.org", fixture)
            let page = try await client.execute(uri: "/signup/confirm?token=\(token)", method: .get)
            let pageWords = String(buffer: page.body)
            #expect(page.status == .ok && pageWords.contains("Make my account") && pageWords.contains("dana@clinic.example.org"))
            #expect(try fixture.store.person(named: "dana@clinic.example.org") == nil, "opening the link made nothing")

            #expect(try await Self.post("/signup/confirm", "token=\(token)", client, origin: nil).status == .forbidden)
            #expect(try fixture.store.person(named: "dana@clinic.example.org") == nil)

            let made = try await Self.post("/signup/confirm", "token=\(token)", client)
            #expect(made.status == .seeOther && made.headers[.location] == "/welcome", "\(made.headers)")
            let cookie = try #require(made.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let dana = try #require(try fixture.store.person(named: "dana@clinic.example.org"))
            let welcome = try await client.execute(uri: "/welcome", method: .get, headers: [.cookie: cookie])
            #expect(welcome.status == .ok, "the new account's browser is signed in")
            #expect(try fixture.sites.site(dana.id).environment.useCases().devices.all().count == 1)

            let replayed = try await Self.post("/signup/confirm", "token=\(token)", client)
            #expect(replayed.status == .badRequest && String(buffer: replayed.body).contains("this link does not work here"))
            let reopened = try await client.execute(uri: "/signup/confirm?token=\(token)", method: .get)
            #expect(reopened.status == .badRequest, "a used link's page offers no button")
            #expect(try fixture.store.people().count == 3)
            let audit = try fixture.store.operatorReading(at: fixture.time.now, window: 60, aliveWithin: 60).audit
            #expect(
                audit.filter { $0.detail.contains("dana@") }.map { "\($0.actor) \($0.action)" } == [
                    "the sign-up page (domain=clinic.example.org) added"
                ])
        }
    }

    @Test(
        "an address with an account and one without get the same answer; the mail's link signs Carol in on a new device, once",
        SharedStoreFixture.enabled)
    func sameAnswer() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        let carol = try fixture.store.addPerson(id: "person-carol", email: try EmailAddress("carol@clinic.example.org"), name: "Carol", at: Self.now)
        try await fixture.test { client in
            let known = try await Self.ask("carol@clinic.example.org", client)
            let unknown = try await Self.ask("erin@clinic.example.org", client)
            #expect(known.status == unknown.status)
            #expect(
                String(buffer: known.body).replacingOccurrences(of: "carol@", with: "someone@")
                    == String(buffer: unknown.body).replacingOccurrences(of: "erin@", with: "someone@"), "the same page, but for the address")

            let token = try Self.mailedToken(to: "carol@clinic.example.org", fixture)
            let page = try await client.execute(uri: "/signup/confirm?token=\(token)", method: .get)
            #expect(page.status == .ok && String(buffer: page.body).contains("Sign in on this browser"), "her own mailbox learns she has an account")
            let signedIn = try await Self.post("/signup/confirm", "token=\(token)", client)
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/", "\(signedIn.headers)")
            let cookie = try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let status = try await client.execute(uri: "/v1/status", method: .get, headers: [.cookie: cookie])
            #expect(status.status == .ok)
            let carols = fixture.sites.site(carol.id).environment.useCases()
            #expect(try carols.devices.all().count == 1)
            #expect(try carols.sharing.audit().contains { $0.action == "signed_in" && $0.detail.contains("with a link from the sign-up page") })
            #expect(try await Self.post("/signup/confirm", "token=\(token)", client).status == .badRequest, "the link works once")
            #expect(try carols.devices.all().count == 1)
            #expect(try fixture.store.people().count == 3, "no account was made for Carol's address")
        }
    }

    @Test(
        "a closed page, a page without mail, an address outside the domain or no address at all: refused by name, nothing mailed",
        SharedStoreFixture.enabled)
    func refusals() async throws {
        for (policy, mail, words) in [
            (SignUpPolicy.closed, true, "does not take sign-ups"), (.invited, true, "does not take sign-ups"),
            (Self.clinic, false, "cannot send mail"),
        ] {
            let fixture = try SharedStoreFixture(now: Self.now, sendsMail: mail, signUp: policy)
            try await fixture.test { client in
                let form = try await client.execute(uri: "/signup", method: .get)
                #expect(form.status == .forbidden && String(buffer: form.body).contains(words), "\(policy) \(mail)")
                #expect(try await Self.ask("dana@clinic.example.org", client).status == .forbidden)
                let notSignedIn = String(buffer: try await client.execute(uri: "/", method: .get).body)
                #expect(notSignedIn.contains("Not signed in") && !notSignedIn.contains("/signup"), "nothing offers a closed page")
                #expect(try Self.mails(to: "dana@clinic.example.org", fixture) == 0)
            }
        }
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        try await fixture.test { client in
            let notSignedIn = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(notSignedIn.contains("href=\"/signup\"") && notSignedIn.contains("addresses at clinic.example.org"))
            for (typed, words) in [
                ("dana@example.org", "dana@example.org is not an address at clinic.example.org"),
                ("dana@sub.clinic.example.org", "is not an address at clinic.example.org"), ("not an address", "e-mail address such as"),
                ("", "it is empty"),
            ] {
                let refused = try await Self.ask(typed, client)
                let page = String(buffer: refused.body)
                #expect(
                    refused.status == .badRequest && page.contains(words) && page.contains("aria-invalid=\"true\""),
                    "\(typed): \(refused.status) \(page.split(separator: "<main").last?.prefix(700) ?? "")")
                #expect(typed.isEmpty || page.contains("value=\"\(typed)\""), "the address is shown back to be corrected")
            }
            #expect(try fixture.store.mailQueue().isEmpty)
        }
    }

    @Test(
        "a changed, expired or another DoseTap's link makes nothing, and ten failures from one address make it wait",
        SharedStoreFixture.enabled)
    func badLinks() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        try await fixture.test { client in
            #expect(try await Self.ask("dana@clinic.example.org", client).status == .ok)
            let token = try Self.mailedToken(to: "dana@clinic.example.org", fixture)
            let changed = String(token.dropLast()) + (token.last == "A" ? "B" : "A")
            let foreign = SignUpLinkSigner(secretHex: String(repeating: "4d", count: 32)).token(
                for: SignUpLink(email: "dana@clinic.example.org", expiresAt: Self.now.addingTimeInterval(3600), nonce: "00"))
            for bad in [changed, foreign, "dts_" + String(repeating: "a", count: 64), ""] {
                #expect(try await client.execute(uri: "/signup/confirm?token=\(bad)", method: .get).status == .badRequest)
                #expect(try await Self.post("/signup/confirm", "token=\(bad)", client).status == .badRequest)
            }
            // A link of an address the domain no longer covers (the operator changed it) is refused by what now holds.
            let secret = try fixture.store.serverSecret(purpose: "sign_up", at: Self.now) { "" }
            let elsewhere = SignUpLinkSigner(secretHex: secret).token(
                for: SignUpLink(email: "dana@example.org", expiresAt: Self.now.addingTimeInterval(3600), nonce: "01"))
            let moved = try await Self.post("/signup/confirm", "token=\(elsewhere)", client)
            #expect(moved.status == .forbidden && String(buffer: moved.body).contains("can no longer make an account here"))

            // One request and four failures from this address so far; six more, and the next try waits, even with a good link.
            for _ in 0..<6 { #expect(try await Self.post("/signup/confirm", "token=\(changed)", client).status == .badRequest) }
            #expect(try await Self.ask("dana@clinic.example.org", client).status == .tooManyRequests)
            #expect(try await Self.post("/signup/confirm", "token=\(token)", client).status == .tooManyRequests)
            fixture.time.advance(seconds: TimeInterval(SignInLinks.failureWindow) + 1)
            #expect(try await Self.ask("dana@clinic.example.org", client).status == .ok, "15 minutes later the address may ask again")

            fixture.time.advance(seconds: SignUpLinkSigner.lifetime)
            #expect(try await Self.post("/signup/confirm", "token=\(token)", client).status == .badRequest, "a day later the link has expired")
            #expect(try fixture.store.person(named: "dana@clinic.example.org") == nil)
        }
    }

    @Test(
        "the mailed link points at --public-url when it is given, not at the address the request came to (a Host anyone can forge)",
        SharedStoreFixture.enabled)
    func publicAddress() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        try await fixture.test { client in
            let form: HTTPFields = [
                .contentType: "application/x-www-form-urlencoded", HTTPField.Name("Origin")!: Self.origin,
            ]
            // Without --public-url the request's own address is all there is, as before.
            let carolAsked = try await client.execute(
                uri: "/signup", method: .post, headers: form, body: ByteBuffer(string: "email=carol%40clinic.example.org"))
            #expect(carolAsked.status == .ok)
            #expect(try Self.mailedLink(to: "carol@clinic.example.org", fixture).hasPrefix("http://localhost/signup/confirm?token=dtu_"))

            fixture.sites.publicURL = "https://dosetap.example.org"
            let danaAsked = try await client.execute(
                uri: "/signup", method: .post, headers: form, body: ByteBuffer(string: "email=dana%40clinic.example.org"))
            #expect(danaAsked.status == .ok)
            #expect(try Self.mailedLink(to: "dana@clinic.example.org", fixture).hasPrefix("https://dosetap.example.org/signup/confirm?token=dtu_"))
        }
    }

    @Test(
        "the account, its device, the used link and the audits are one transaction: a failure at the device leaves none, and the link still works",
        SharedStoreFixture.enabled)
    func oneTransaction() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, sendsMail: true, signUp: Self.clinic)
        try await fixture.test { client in
            #expect(try await Self.ask("dana@clinic.example.org", client).status == .ok)
            let token = try Self.mailedToken(to: "dana@clinic.example.org", fixture)
            let alicesPhone = try #require(try fixture.environment("alice").useCases().devices.all().first)
            let clash = DeviceRecord(
                id: alicesPhone.id, name: "Dana's phone", tokenHash: String(repeating: "d", count: 64), createdAt: Self.now, revokedAt: nil)
            #expect(throws: (any Error).self) {
                try fixture.store.signUp(
                    email: try EmailAddress("dana@clinic.example.org"), person: "dana-partial", device: clash, linkHash: DeviceTokens.hash(token),
                    expiresAt: Self.now.addingTimeInterval(3600), at: Self.now, by: .terminal, audited: "made", taken: .deviceNotRegistered)
            }
            #expect(try fixture.store.person(named: "dana@clinic.example.org") == nil && fixture.store.rowsOf("dana-partial") == 0)
            #expect(try fixture.store.owner(of: .signInLink(hash: DeviceTokens.hash(token))) == nil, "the link is not kept as used")
            let audit = try fixture.store.operatorReading(at: Self.now, window: 60, aliveWithin: 60).audit
            #expect(!audit.contains { $0.detail.contains("dana") })
            #expect(try await Self.post("/signup/confirm", "token=\(token)", client).status == .seeOther, "the link still works")
            #expect(try fixture.store.person(named: "dana@clinic.example.org") != nil)
        }
    }
}
