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

/// The mail queue of a shared store (issue 56): invitations that say nothing about who has an account, messages sent
/// once across instances to a real SMTP server (aiosmtpd), retried after a temporary refusal, given up after a permanent
/// one, and limited per address.
@Suite("mail: the queue, its senders and invitations by mail", .serialized)
struct MailQueueTests {
    static let now = WallClock.date(2026, 11, 29, 21, 0)

    static func sender(_ fixture: SharedStoreFixture, _ peer: SMTPPeer) throws -> MailSender {
        var client = SMTPClient(settings: try SMTPSettings.parse(url: "smtp://127.0.0.1:\(peer.port)", from: "dosetap@example.org"))
        client.timeout = .seconds(10)
        return MailSender(store: fixture.store, client: client, environment: fixture.environment("alice"))
    }

    static func queue(_ fixture: SharedStoreFixture, to address: String, id: String) throws -> Bool {
        let job = OutgoingMail.signIn(
            to: address, link: "https://dosetap.example/signin?token=\(id)", expiresAt: fixture.time.now.addingTimeInterval(3_600), id: id)
        return try fixture.store.queueMail(job, at: fixture.time.now, hourlyLimit: OutgoingMail.hourlyLimit)
    }

    @Test(
        "an invitation to an address without an account answers exactly as one to an address with one; each mail asks what its reader can do",
        SharedStoreFixture.enabled)
    func invitationsTellNothing() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, names: ["alice", "bob"], sendsMail: true)
        try await fixture.test { client in
            var answers: [[String: Any]] = []
            for address in ["bob@example.org", "dave@example.org"] {
                let made = try await SharingRouteTests.post(
                    client, "/v1/shares", fixture.auth("alice"), #"{"email":"\#(address)","grants":["view"]}"#)
                #expect(made.status == .created, "\(address): \(String(buffer: made.body))")
                answers.append(ServerFixture.json(made))
            }
            let shapes = answers.map { answer in
                answer.filter { !["id", "invite_url", "email"].contains($0.key) }.mapValues { "\($0)" }
            }
            #expect(shapes[0] == shapes[1], "the same answer whoever the address is: \(answers)")
            #expect(Set(answers[0].keys) == Set(answers[1].keys))
        }
        let claimed = try fixture.store.claimMail(owner: "test", now: fixture.time.now, lease: 60, limit: 10)
        let bobs = try #require(claimed.first { $0.recipient == "bob@example.org" })
        let daves = try #require(claimed.first { $0.recipient == "dave@example.org" })
        #expect(claimed.count == 2 && bobs.kind == .invitation && daves.kind == .invitation)
        #expect(bobs.text.contains("where you are signed in") && !bobs.text.contains("no account"))
        #expect(daves.text.contains("no account on this DoseTap yet. Ask whoever runs it to add dave@example.org"))
        for job in [bobs, daves] {
            #expect(job.text.contains("alice@example.org invited you to view") && job.text.contains("/invitation?token=dti_"), "\(job.text)")
            #expect(job.html.contains("<a href=\"http") && !job.html.contains("<img"), "a link, and nothing that reports a reading")
        }
    }

    @Test("queued mail goes once though two instances send at once; the body, which holds a link, is gone once sent", SharedStoreFixture.enabled)
    func sentOnceAcrossInstances() async throws {
        let fixture = try SharedStoreFixture(now: Self.now)
        let peer = try SMTPPeer([])
        for index in 0..<6 { #expect(try Self.queue(fixture, to: "person\(index)@example.org", id: "mail-\(index)")) }
        let (first, second) = (try Self.sender(fixture, peer), try Self.sender(fixture, peer))
        async let one = first.round()
        async let two = second.round()
        let claimed = await one + two
        #expect(claimed == 6)
        let received = peer.messages.compactMap { $0["rcpt_tos"] as? [String] }.flatMap { $0 }
        #expect(received.sorted() == (0..<6).map { "person\($0)@example.org" }.sorted(), "each once: \(received)")
        #expect(Set(peer.messages.compactMap { $0["message-id"] as? String }).count == 6)
        let again = await first.round() + second.round()
        #expect(again == 0, "nothing is sent again")
        let queue = try fixture.store.mailQueue()
        #expect(queue.count == 6 && queue.allSatisfy { $0.state == "sent" && $0.attempts == 1 && $0.lastError == nil }, "\(queue)")
        #expect(try fixture.store.claimMail(owner: "x", now: fixture.time.now.addingTimeInterval(86_400), lease: 60, limit: 10).isEmpty)
    }

    @Test(
        "a temporary refusal is tried again after the backoff, not before; a permanent one is given up at once, its reason kept",
        SharedStoreFixture.enabled)
    func retriesAndFailures() async throws {
        let fixture = try SharedStoreFixture(now: Self.now)
        let peer = try SMTPPeer(["--rcpt-reply", "451 4.3.0 try later", "--rcpt-reply", "550 5.1.1 no such user"])
        let sender = try Self.sender(fixture, peer)
        #expect(try Self.queue(fixture, to: "later@example.org", id: "mail-later"))
        #expect(await sender.round() == 1)
        var entry = try #require(try fixture.store.mailQueue().first)
        #expect(entry.state == "pending" && entry.attempts == 1 && entry.lastError?.contains("451") == true, "\(entry)")
        #expect(entry.nextAttemptAt == fixture.time.now.addingTimeInterval(MailSender.backoff[0]))
        fixture.time.set(fixture.time.now.addingTimeInterval(MailSender.backoff[0] - 1))
        #expect(await sender.round() == 0, "not before its time")
        fixture.time.set(fixture.time.now.addingTimeInterval(1))
        #expect(await sender.round() == 1)
        entry = try #require(try fixture.store.mailQueue().first)
        #expect(entry.state == "failed" && entry.attempts == 2 && entry.lastError?.contains("550") == true, "\(entry)")
        #expect(peer.messages.isEmpty)
    }

    @Test(
        "an address is sent five messages an hour at most; a sign-in link past that is refused before the old link stops working",
        SharedStoreFixture.enabled)
    func hourlyLimit() throws {
        let fixture = try SharedStoreFixture(now: Self.now)
        let people = PeopleService(store: fixture.store, clock: fixture.environment("alice").useCases().clock)
        for _ in 0..<OutgoingMail.hourlyLimit { _ = try people.mailSignInLink(for: "bob@example.org", base: "https://dosetap.example") }
        #expect(throws: DoseError.tooManyRequests(retryAfterSeconds: 3_600)) {
            _ = try people.mailSignInLink(for: "bob@example.org", base: "https://dosetap.example")
        }
        #expect(!(try Self.queue(fixture, to: "bob@example.org", id: "one-more")), "the queue holds the limit too")
        #expect(try Self.queue(fixture, to: "carol@example.org", id: "another-address"), "another address has its own hour")
        fixture.time.set(fixture.time.now.addingTimeInterval(3_601))
        #expect(try Self.queue(fixture, to: "bob@example.org", id: "next-hour"))
        _ = try people.remove("bob@example.org", confirmation: PeopleService.removalPhrase("bob@example.org"))
        #expect(try fixture.store.mailQueue().map(\.recipient) == ["carol@example.org"], "Bob's mail went with him")
    }
}
