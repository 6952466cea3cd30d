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

/// The operator's page (issue 56) through the real router of a shared store served as the role that owns nothing: only
/// an operator opens it, it reads across people only what running the service needs, and every change is audited.
@Suite("the operator's page: people, invitations, mail, reminder lateness, instances, the database, the audit", .serialized)
struct OperatorPagesTests {
    typealias Routes = SharingRouteTests
    static let now = WallClock.date(2026, 11, 29, 21, 0)

    static func page(_ client: any TestClientProtocol, _ fixture: SharedStoreFixture, _ name: String) async throws -> (
        status: HTTPResponse.Status, html: String
    ) {
        let response = try await Routes.get(client, "/operator", fixture.auth(name))
        return (response.status, String(buffer: response.body))
    }

    static func post(_ client: any TestClientProtocol, _ fixture: SharedStoreFixture, _ path: String, _ fields: String) async throws
        -> TestResponse
    {
        let csrf = SharingPagesTests.hidden(try await page(client, fixture, "alice").html, "csrf")
        return try await Routes.post(client, path, SharingPagesTests.form(fixture, "alice"), "csrf=\(csrf)&" + fields)
    }

    @Test(
        "only an operator opens it; adding someone makes their link, a bad address adds no one, removal needs the phrase, and each change is audited",
        SharedStoreFixture.enabled)
    func peopleAndAudit() async throws {
        let fixture = try SharedStoreFixture(now: Self.now, names: ["alice", "bob", "carol"])
        let people = PeopleService(store: fixture.store, clock: fixture.environment("alice").useCases().clock)
        _ = try people.setOperator("alice@example.org", true)
        try await fixture.test { client in
            let refused = try await Self.page(client, fixture, "bob")
            #expect(refused.status == .forbidden && refused.html.contains("dosetap person operator"), "\(refused.html.prefix(300))")
            let settings = String(buffer: try await Routes.get(client, "/settings", fixture.auth("bob")).body)
            #expect(!settings.contains("href=\"/operator\""), "no way in shown to someone who is not an operator")
            #expect(String(buffer: try await Routes.get(client, "/settings", fixture.auth("alice")).body).contains("href=\"/operator\""))

            // Carol invites an address with no account: Alice sees that it waits, not what it grants.
            let invited = try await Routes.post(client, "/v1/shares", fixture.auth("carol"), #"{"email":"dave@example.org","grants":["report"]}"#)
            #expect(invited.status == .created)
            let first = try await Self.page(client, fixture, "alice")
            #expect(first.status == .ok)
            for words in [
                "bob@example.org", "carol@example.org", "dave@example.org</strong> from carol@example.org, until",
                "No reminder fired in the last 24 hours.",
                "PostgreSQL 1", "\(SchemaVersions.postgres) migrations, the last v\(SchemaVersions.postgres)_", "connections: ", "made an operator",
            ] {
                #expect(first.html.contains(words), "\(words): \(first.html.split(separator: "<h2>Reminders").last?.prefix(900) ?? "")")
            }
            #expect(!first.html.contains("report"), "the grants stay between the two people")

            let added = try await Self.post(client, fixture, "/operator/people", "email=Erin%40Example.org&name=Erin")
            let addedPage = String(buffer: added.body)
            #expect(added.status == .ok && addedPage.contains("Added Erin (erin@example.org)") && addedPage.contains("/signin?token=dts_"))
            #expect(try fixture.store.person(named: "erin@example.org") != nil)
            let link = String(try #require(addedPage.split(separator: "data-signin-url>").dropFirst().first?.split(separator: "<").first))
            let signIn = try await client.execute(
                uri: "/signin", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("Origin")!: "http://localhost"],
                body: ByteBuffer(string: "token=\(link.split(separator: "=").last!)"))
            #expect(signIn.status == .seeOther, "the link the page shows signs Erin in")
            let erinsCookie = try #require(signIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))

            let count = try fixture.store.people().count
            let bad = try await Self.post(client, fixture, "/operator/people", "email=not-an-address")
            #expect(bad.status == .badRequest && String(buffer: bad.body).contains("not-an-address"))
            #expect(try fixture.store.people().count == count, "a refusal adds no one")
            let twice = try await Self.post(client, fixture, "/operator/people", "email=bob%40example.org")
            #expect(twice.status == .badRequest && String(buffer: twice.body).contains("already has a person"))

            let bob = try #require(fixture.people["bob"]?.id)
            let unconfirmed = try await Self.post(client, fixture, "/operator/remove", "id=\(bob)&confirm=Delete")
            #expect(unconfirmed.status == .badRequest && String(buffer: unconfirmed.body).contains("Delete bob@example.org and all their data"))
            #expect(try fixture.store.person(named: bob) != nil, "not removed without the phrase")
            let own = try await Self.post(client, fixture, "/operator/remove", "id=\(fixture.people["alice"]!.id)&confirm=x")
            #expect(own.status == .badRequest)
            let removed = try await Self.post(client, fixture, "/operator/remove", "id=\(bob)&confirm=Delete+bob%40example.org+and+all+their+data")
            #expect(removed.status == .seeOther && removed.headers[.location] == "/operator?done=removed")
            #expect(try fixture.store.person(named: bob) == nil && fixture.store.rowsOf(bob) == 0)
            #expect(try await Routes.get(client, "/v1/status", fixture.auth("bob")).status == .unauthorized)

            let after = try await Routes.get(client, "/operator?done=removed", fixture.auth("alice"))
            let audit = try fixture.store.operatorReading(at: fixture.time.now, window: 86_400, aliveWithin: 90).audit
            #expect(
                audit.prefix(4).map { "\($0.actor) \($0.action) \($0.detail.split(separator: ",").first ?? "")" } == [
                    "alice@example.org removed a removed person [person-b]", "alice@example.org link_shown Erin (erin@example.org)",
                    "alice@example.org added Erin (erin@example.org)", "the terminal (dosetap person) operator_on alice@example.org",
                ], "\(audit)")
            #expect(audit.first?.detail.hasSuffix(" rows") == true)
            #expect(
                audit.allSatisfy { !($0.actor + $0.detail).contains("bob@example.org") }
                    && audit.contains { $0.detail == "a removed person [person-b]" },
                "the audit keeps that Bob was added and removed, not his address: \(audit)")
            #expect(String(buffer: after.body).contains("Removed, with every record of theirs"))
            let erins = try await client.execute(uri: "/operator", method: .get, headers: [.cookie: erinsCookie])
            #expect(erins.status == .forbidden, "Erin is a person, not an operator")
        }
    }

    @Test(
        "reminder lateness is read from the jobs fired in the last 24 hours, across people, as the 50th and 99th percentile",
        SharedStoreFixture.enabled)
    func lateness() async throws {
        let fixture = try SharedStoreFixture(now: Self.now)
        _ = try PeopleService(store: fixture.store, clock: fixture.environment("alice").useCases().clock).setOperator("alice@example.org", true)
        for name in ["alice", "bob"] { _ = try fixture.environment(name).useCases().night.perform(NightAction(.dose1), from: .api) }
        // Each of the first reminders fired 3 s late, then the next ones 12 s late.
        let planned = try (ReminderJobsTests.planned(fixture, "alice") + ReminderJobsTests.planned(fixture, "bob")).map { key in
            ISO8601.parse(String(key.split(separator: "@").last!))!
        }.sorted()
        let firstTwo = Array(Set(planned)).sorted().prefix(2)
        fixture.time.set(firstTwo[firstTwo.startIndex].addingTimeInterval(3))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        fixture.time.set(firstTwo[firstTwo.startIndex + 1].addingTimeInterval(12))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        let fired = fixture.operatorHook.all
        #expect(!fired.isEmpty)
        let reading = try fixture.store.operatorReading(at: fixture.time.now, window: 86_400, aliveWithin: 90)
        let latenesses = fired.map { $0.fireAt <= firstTwo[firstTwo.startIndex] ? 3.0 : 12.0 }
        #expect(reading.remindersFired == fired.count, "\(reading.remindersFired) of \(fired.count)")
        #expect(reading.latenessP99.map { abs($0 - (latenesses.max() ?? 0)) < 0.5 } == true, "\(String(describing: reading.latenessP99))")
        let words = OperatorPages.lateness(reading)
        #expect(
            words.contains("\(fired.count) reminders fired in the last 24 hours") && words.contains("Late: the 99th percentile is over 2 s"),
            "\(words)")
        // A day later they are out of the window.
        let later = try fixture.store.operatorReading(at: fixture.time.now.addingTimeInterval(86_401), window: 86_400, aliveWithin: 90)
        #expect(later.remindersFired == 0 && later.latenessP50 == nil)
        try await fixture.test { client in
            let html = try await Self.page(client, fixture, "alice").html
            #expect(html.contains("data-lateness>\(words)"))
        }
    }
}
