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

/// The sharing pages through the real router of a shared store: a caregiver's Tonight for the person who shares with
/// them, the clinician's list, Settings → Sharing and the audit page.
@Suite("the web app's sharing pages: a caregiver's Tonight, the clinician's list, sharing and the audit", .serialized)
struct SharingPagesTests {
    typealias Routes = SharingRouteTests

    static func form(_ fixture: SharedStoreFixture, _ name: String) -> HTTPFields {
        var headers = fixture.auth(name)
        headers[.contentType] = "application/x-www-form-urlencoded"
        return headers
    }

    /// The value of the first hidden input `name` on a page.
    static func hidden(_ html: String, _ name: String) -> String {
        String(html.split(separator: "name=\"\(name)\" value=\"").dropFirst().first?.split(separator: "\"").first ?? "")
    }

    /// Alice shares `grants` with `grantee`, who accepts.
    static func share(_ client: any TestClientProtocol, _ fixture: SharedStoreFixture, with grantee: String, _ grants: String) async throws {
        let made = ServerFixture.json(
            try await Routes.post(client, "/v1/shares", fixture.auth("alice"), #"{"email":"\#(grantee)@example.org","grants":\#(grants)}"#))
        let token = String((made["invite_url"] as? String)?.split(separator: "=").last ?? "")
        let accepted = try await Routes.post(client, "/v1/invitations/accept", fixture.auth(grantee), #"{"token":"\#(token)"}"#)
        #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
    }

    @Test(
        "a caregiver with log gives Dose 2 from the person's Tonight under the same rules; undo stays theirs; view only has no taps",
        SharedStoreFixture.enabled)
    func caregiversTonight() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol", "dave"])
        let alice = try #require(fixture.people["alice"]?.id)
        let page = "/people/\(alice)/"
        try await fixture.test { client in
            let before = try await Routes.get(client, page, fixture.auth("bob"))
            #expect(before.status == .notFound && String(buffer: before.body).contains("<html"), "a page, and no sign that Alice exists")
            #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose1"}"#).status == .ok)
            try await Self.share(client, fixture, with: "bob", #"["log"]"#)
            try await Self.share(client, fixture, with: "carol", #"["view"]"#)

            // Bob, who takes no medicine himself, lands on his people, with the switch to Alice's Tonight; hers, to him, is hers
            // with his taps.
            let own = try await Routes.get(client, "/", fixture.auth("bob"))
            #expect(own.status == .seeOther && own.headers[.location] == "/people")
            let alicesOwn = try await Routes.get(client, "/", fixture.auth("alice"))
            #expect(alicesOwn.status == .ok && String(buffer: alicesOwn.body).contains("data-live"))
            #expect(!String(buffer: alicesOwn.body).contains("Whose night"), "no switcher, not even an empty one, for someone no one shares with")
            let people = String(buffer: try await Routes.get(client, "/people", fixture.auth("bob")).body)
            #expect(people.contains("aria-label=\"Whose night\"") && people.contains("href=\"\(page)\"") && people.contains("set it up"))
            fixture.time.advance(seconds: 170 * 60)
            let tonight = try await Routes.get(client, page, fixture.auth("bob"))
            var html = String(buffer: tonight.body)
            #expect(tonight.status == .ok && html.contains("Logging for alice@example.org. Each tap is recorded with your name."), "\(html)")
            #expect(html.contains("<a href=\"\(page)\" aria-current=\"page\">alice@example.org</a>"), "the switcher marks whose night it is")
            #expect(html.contains("action=\"\(page)ui/act\"") && !html.contains("action=\"/ui/act\""), "every tap goes to her address")
            #expect(html.contains("data-api=\"/v1/people/\(alice)\"") && !html.contains("href=\"/medications\""))
            #expect(html.contains(">Take Dose 2<"))
            let csrf = Self.hidden(html, "csrf")
            let revision = Self.hidden(html, "revision")

            // D15 holds for him as for her: a page older than tonight's last change does nothing.
            let stale = try await Routes.post(
                client, page + "ui/act", Self.form(fixture, "bob"), "csrf=\(csrf)&action=dose2&spot=primary&revision=\(Int(revision)! - 1)")
            #expect(stale.status == .conflict && String(buffer: stale.body).contains("Tonight changed just before that tap"))
            let taken = try await Routes.post(
                client, page + "ui/act", Self.form(fixture, "bob"), "csrf=\(csrf)&action=dose2&spot=primary&revision=\(revision)")
            #expect(taken.status == .seeOther && taken.headers[.location]?.hasPrefix(page + "?did=dose2") == true, "\(taken.headers)")
            let status = ServerFixture.json(try await Routes.get(client, "/v1/status", fixture.auth("alice")))
            #expect(status["dose2_at"] is String, "\(status)")
            #expect(PeopleSitesTests.phase(try await Routes.get(client, "/v1/status", fixture.auth("bob"))) == "no_dose1", "not his own night")
            let again = try await Routes.post(client, page + "ui/act", Self.form(fixture, "bob"), "csrf=\(csrf)&action=dose2")
            #expect(again.status == .conflict && String(buffer: again.body).contains("already"), "a second Dose 2 is refused by the rule")

            // Undo removes tonight's last action whoever made it, so it stays Alice's.
            html = String(buffer: try await Routes.get(client, taken.headers[.location] ?? page, fixture.auth("bob")).body)
            #expect(!html.contains("value=\"undo\""), "no Undo on his page")
            let undo = try await Routes.post(client, page + "ui/act", Self.form(fixture, "bob"), "csrf=\(csrf)&action=undo")
            #expect(undo.status == .forbidden && String(buffer: undo.body).contains("Undo is alice@example.org&#39;s own"))
            #expect(ServerFixture.json(try await Routes.get(client, "/v1/status", fixture.auth("alice")))["dose2_at"] is String)

            // A forged form token, a stranger and a view-only grantee change nothing.
            let forged = try await Routes.post(client, page + "ui/act", Self.form(fixture, "bob"), "csrf=x&action=log&event=bathroom")
            #expect(forged.status == .forbidden)
            #expect(try await Routes.get(client, page, fixture.auth("dave")).status == .notFound)
            let viewOnly = String(buffer: try await Routes.get(client, page, fixture.auth("carol")).body)
            #expect(viewOnly.contains("Viewing alice@example.org&#39;s night.") && !viewOnly.contains("ui/act\""), "\(viewOnly)")
            // A question asked on his page keeps him on hers: its safe choice goes back to her Tonight.
            let wake = try await Routes.post(client, page + "ui/act", Self.form(fixture, "bob"), "csrf=\(csrf)&action=wake")
            let asked = String(buffer: wake.body)
            #expect(
                asked.contains("class=\"question\"")
                    && asked.contains("<a class=\"button primary\" href=\"\(page)\" data-answer=\"safe\" autofocus>Keep sleeping</a>"),
                "\(wake.status)")
            let carolsCSRF = Self.hidden(String(buffer: try await Routes.get(client, "/settings/sharing", fixture.auth("carol")).body), "csrf")
            let refused = try await Routes.post(client, page + "ui/act", Self.form(fixture, "carol"), "csrf=\(carolsCSRF)&action=log&event=bathroom")
            // Said in words, never the sentence about another site's forms (issue 53).
            let refusal = String(buffer: refused.body)
            #expect(refused.status == .forbidden && refusal.contains("Logging on alice@example.org&#39;s Tonight needs the log grant"), "\(refusal)")
            #expect(!refusal.contains("own pages"))
            #expect(try await Routes.get(client, page + "settings", fixture.auth("bob")).status == .forbidden, "only her Tonight and report")

            let audit = ServerFixture.json(try await Routes.get(client, "/v1/audit", fixture.auth("alice")))["entries"] as? [[String: Any]] ?? []
            let lines = audit.map { "\($0["who"] as? String ?? "?") \($0["action"] as? String ?? "?") \($0["detail"] as? String ?? "?")" }
            #expect(
                lines.contains("bob@example.org logged Dose 2 recorded on Tonight") && lines.contains("carol@example.org viewed Tonight"), "\(lines)")
            #expect(lines.filter { $0.hasPrefix("bob@example.org logged") }.count == 1, "refusals are not logged actions: \(lines)")
            let events = try fixture.environment("alice").useCases().night.status().session?.events ?? []
            #expect(events.first { $0.kind == .dose2 }?.metadata.actedBy == "bob@example.org", "the event records who acted")
            #expect(events.first { $0.kind == .dose1 }?.metadata.actedBy == nil, "her own tap names no one")

            // Revoked: his next request finds no one.
            let shares = ServerFixture.json(try await Routes.get(client, "/v1/shares", fixture.auth("alice")))["shares"] as? [[String: Any]]
            let bobs = try #require(shares?.first { ($0["grantee"] as? [String: Any])?["email"] as? String == "bob@example.org" }?["id"] as? String)
            #expect(try await client.execute(uri: "/v1/shares/\(bobs)", method: .delete, headers: fixture.auth("alice")).status == .ok)
            #expect(try await Routes.get(client, page, fixture.auth("bob")).status == .notFound)
        }
    }

    @Test(
        "the clinician's list: each patient's latest night and 30 nights on target, as their own Insights count them, and the report",
        SharedStoreFixture.enabled)
    func cliniciansList() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 18, 22, 30), names: ["alice", "bob", "carol"])
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in
            // Three nights of Alice's: Dose 2 after 165, 200 and 166 minutes.
            for minutes in [165, 200, 166] {
                #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose1"}"#).status == .ok)
                fixture.time.advance(seconds: TimeInterval(minutes * 60))
                #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose2"}"#).status == .ok)
                fixture.time.advance(seconds: TimeInterval((24 * 60 - minutes) * 60))
            }
            try await Self.share(client, fixture, with: "carol", #"["view","report"]"#)
            try await Self.share(client, fixture, with: "bob", #"["alarms"]"#)
            let own = ServerFixture.json(try await Routes.get(client, "/v1/insights?nights=30", fixture.auth("alice")))
            let ownShare = (own["timing"] as? [String: Any])?["on_target"] as? [String: Any]
            let listed = (ServerFixture.json(try await Routes.get(client, "/v1/people", fixture.auth("carol")))["people"] as? [[String: Any]])?.first
            let recent = listed?["on_target_30"] as? [String: Any]
            #expect(recent?["decided"] as? Int == 3 && recent?["on_target"] as? Int == ownShare?["nights"] as? Int, "\(listed ?? [:])")
            #expect(recent?["percent"] as? Double == ownShare?["percent"] as? Double, "the same figure as her own Insights")
            let latest = listed?["latest_night"] as? [String: Any]
            #expect(latest?["date"] as? String == "2026-11-20" && latest?["interval_minutes"] as? Int == 166, "\(latest ?? [:])")
            let bobs = (ServerFixture.json(try await Routes.get(client, "/v1/people", fixture.auth("bob")))["people"] as? [[String: Any]])?.first
            #expect(bobs?["latest_night"] is NSNull && bobs?["on_target_30"] is NSNull, "alarms alone shows no night: \(bobs ?? [:])")

            let list = String(buffer: try await Routes.get(client, "/people", fixture.auth("carol")).body)
            let percent = NumberText.tenths(try #require(ownShare?["percent"] as? Double))
            #expect(list.contains("Dose 2 on target \(percent)%") && list.contains("Latest night, 2026-11-20"), "\(list)")
            #expect(list.contains("href=\"/people/\(alice)/report/file?nights=30\""))
            #expect(list.contains("aria-label=\"Whose night\"") && !list.contains("aria-current=\"page\">You<"), "People is no one's Tonight")
            let report = try await Routes.get(client, "/people/\(alice)/report/file?nights=30", fixture.auth("carol"))
            #expect(report.status == .ok && report.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(try await Routes.get(client, "/people/\(alice)/report/file?nights=30", fixture.auth("bob")).status == .forbidden)
            let bobsList = String(buffer: try await Routes.get(client, "/people", fixture.auth("bob")).body)
            #expect(bobsList.contains("you can answer their alarms") && !bobsList.contains("ladder") && !bobsList.contains("Their Tonight"))
            // Only a rung of her ladder is told it is one, with its minute.
            let rungs = #"{"rungs":[{"email":"bob@example.org","minutes_after_dose1":225}]}"#
            let placed = try await client.execute(uri: "/v1/ladder", method: .put, headers: fixture.auth("alice"), body: ByteBuffer(string: rungs))
            #expect(placed.status == .ok, "\(String(buffer: placed.body))")
            let onLadder = String(buffer: try await Routes.get(client, "/people", fixture.auth("bob")).body)
            #expect(onLadder.contains("you are on their alarm ladder, told 225 min after their Dose 1 while Dose 2 is pending"), "\(onLadder)")
        }
    }

    @Test(
        "Settings → Sharing invites with a link, refuses by name with what was typed kept, cancels and revokes; the audit page lists it",
        SharedStoreFixture.enabled)
    func sharingSettings() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        try await fixture.test { client in
            let page = String(buffer: try await Routes.get(client, "/settings/sharing", fixture.auth("alice")).body)
            let csrf = Self.hidden(page, "csrf")
            #expect(page.contains("You share with no one.") && page.contains("value=\"log\""))
            let refused = try await Routes.post(
                client, "/ui/shares", Self.form(fixture, "alice"), "csrf=\(csrf)&email=alice%40example.org&grants=view")
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("that is your own address"))
            let made = try await Routes.post(
                client, "/ui/shares", Self.form(fixture, "alice"), "csrf=\(csrf)&email=bob%40example.org&grants=view&grants=alarms")
            let html = String(buffer: made.body)
            #expect(made.status == .ok && html.contains("data-invite-url") && html.contains("/invitation?token=dti_"), "\(html)")
            #expect(html.contains("<strong>bob@example.org</strong>: view and alarms, pending until 2026-11-28 20:00"), "\(html)")
            let id = try #require(
                (ServerFixture.json(try await Routes.get(client, "/v1/shares", fixture.auth("alice")))["invitations"] as? [[String: Any]])?
                    .first?["id"] as? String)
            let cancelled = try await Routes.post(client, "/ui/shares/revoke", Self.form(fixture, "alice"), "csrf=\(csrf)&id=\(id)")
            #expect(cancelled.status == .seeOther && cancelled.headers[.location] == "/settings/sharing?done=cancelled", "\(cancelled.headers)")
            let after = String(buffer: try await Routes.get(client, "/settings/sharing?done=cancelled", fixture.auth("alice")).body)
            #expect(after.contains("Invitation cancelled.") && after.contains("view and alarms, cancelled"))
            // `done` is one of the values the contract lists, or the page is refused with them named.
            let unknown = try await Routes.get(client, "/settings/sharing?done=everything", fixture.auth("alice"))
            let refusal = String(buffer: unknown.body)
            #expect(unknown.status == .badRequest && refusal.contains("cancelled, ladder, revoked"), "\(unknown.status) \(refusal.prefix(300))")
            let other = try await Routes.post(client, "/ui/shares/revoke", Self.form(fixture, "bob"), "csrf=\(csrf)&id=\(id)")
            #expect(other.status == .forbidden, "Alice's form token is not Bob's")
            let audit = String(buffer: try await Routes.get(client, "/settings/audit", fixture.auth("alice")).body)
            #expect(audit.contains("invited bob@example.org to view and alarms") && audit.contains("cancelled the share with bob@example.org"))
            // The ladder: Bob, who holds alarms, gets a minute; a minute outside the window is refused in words.
            try await Self.share(client, fixture, with: "bob", #"["alarms"]"#)
            let withBob = String(buffer: try await Routes.get(client, "/settings/sharing", fixture.auth("alice")).body)
            let field = try #require(withBob.split(separator: "name=\"minutes_").dropFirst().first?.split(separator: "\"").first)
            let outside = try await Routes.post(client, "/ui/ladder", Self.form(fixture, "alice"), "csrf=\(csrf)&minutes_\(field)=241")
            #expect(outside.status == .badRequest && String(buffer: outside.body).contains("150–239"))
            let saved = try await Routes.post(client, "/ui/ladder", Self.form(fixture, "alice"), "csrf=\(csrf)&minutes_\(field)=225")
            #expect(saved.status == .seeOther && saved.headers[.location] == "/settings/sharing?done=ladder")
            let rungs = ServerFixture.json(try await Routes.get(client, "/v1/ladder", fixture.auth("alice")))["rungs"] as? [[String: Any]]
            #expect(rungs?.first?["minutes_after_dose1"] as? Int == 225 && rungs?.count == 1)
            let settings = String(buffer: try await Routes.get(client, "/settings", fixture.auth("alice")).body)
            #expect(settings.contains("href=\"/settings/sharing\""))
        }
    }
}
