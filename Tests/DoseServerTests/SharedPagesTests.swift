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

/// Issue 53's pages for those a person shares with: a clinician's History, Details, Insights and report under
/// `/people/{id}/`, the refusal that names a missing grant, the person's zone, who gave Dose 2, and the invitation's link.
@Suite("a person's pages for those they share with: what each grant opens, in the person's zone, naming who gave Dose 2", .serialized)
struct SharedPagesTests {
    typealias Routes = SharingRouteTests

    @Test(
        "view opens Details and History, report Insights and the report, under /people/{id}/, with nothing of the person's own to change",
        SharedStoreFixture.enabled)
    func clinicianPages() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "carol", "dave"])
        let alice = try #require(fixture.people["alice"]?.id)
        let base = "/people/\(alice)"
        _ = try fixture.environment("alice").useCases().settings.update([("time_zone", "America/New_York")])
        _ = try fixture.environment("carol").useCases().settings.update([("time_zone", "Europe/London")])
        try await fixture.test { client in
            #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose1"}"#).status == .ok)
            fixture.time.advance(seconds: 170 * 60)
            #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose2"}"#).status == .ok)
            try await SharingPagesTests.share(client, fixture, with: "carol", #"["view","report"]"#)
            try await SharingPagesTests.share(client, fixture, with: "dave", #"["view"]"#)

            let history = try await Routes.get(client, base + "/history", fixture.auth("carol"))
            var html = String(buffer: history.body)
            #expect(history.status == .ok && html.contains("<title>alice@example.org: History · DoseTap</title>"), "\(history.status)")
            // Her tabs, under her address, the ones the share opens; none of Settings.
            for tab in ["/", "/details", "/history", "/insights"] { #expect(html.contains("href=\"\(base)\(tab)\""), "\(tab)") }
            #expect(!html.contains("href=\"\(base)/settings\"") && !html.contains("Delete this night") && !html.contains("Clear old nights"))
            #expect(html.contains("href=\"\(base)/details?night="), "each night links to her Details")
            // Her times, in her zone, said as hers.
            #expect(html.contains("Times are alice@example.org&#39;s, in America/New_York (yours: Europe/London)."))
            let night = try #require(html.range(of: "href=\"\(base)/details?night=")).upperBound
            let id = String(html[night...].prefix { $0 != "\"" })

            let details = try await Routes.get(client, base + "/details?night=\(id)", fixture.auth("carol"))
            html = String(buffer: details.body)
            #expect(details.status == .ok && html.contains("Night of 2026-11-21") && html.contains("01:20"))
            #expect(!html.contains("Correct the time"), "corrections are hers alone")

            let insights = try await Routes.get(client, base + "/insights", fixture.auth("carol"))
            html = String(buffer: insights.body)
            #expect(insights.status == .ok && html.contains("<h1>Insights</h1>") && html.contains("href=\"\(base)/report?from="))
            #expect(!html.contains("/ui/planner"), "the planner changes her target: hers alone")
            #expect(html.contains("action=\"\(base)/insights\"") && html.contains("href=\"\(base)/insights?nights=7\""))
            let report = try await Routes.get(client, base + "/report?nights=30", fixture.auth("carol"))
            #expect(report.status == .ok && String(buffer: report.body).contains("href=\"\(base)/report/file?"))

            // View alone: her Insights (reads with view or report, SPEC §5.6), without the report's link; her report says
            // which grant it needs, in words, never the sentence about another site's forms.
            let viewed = try await Routes.get(client, base + "/insights", fixture.auth("dave"))
            html = String(buffer: viewed.body)
            #expect(viewed.status == .ok && html.contains("<h1>Insights</h1>") && !html.contains("/report?"), "\(viewed.status)")
            for page in ["/report?nights=30", "/report/file?nights=30&format=pdf"] {
                let refused = try await Routes.get(client, base + page, fixture.auth("dave"))
                html = String(buffer: refused.body)
                #expect(refused.status == .forbidden && html.contains("Seeing alice@example.org&#39;s report needs the report grant"), "\(html)")
                #expect(html.contains("their share gives you view") && !html.contains("own pages"))
            }
            #expect(try await Routes.get(client, base + "/history", fixture.auth("dave")).status == .ok)
            #expect(try await Routes.get(client, base + "/history", fixture.auth("alice")).status == .notFound, "no one shares Alice with herself")
        }
    }

    @Test(
        "a caregiver's Dose 2 says who gave it: on the person's own Tonight and Details by name, on the caregiver's as 'you'",
        SharedStoreFixture.enabled)
    func givenBy() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob"])
        let alice = try #require(fixture.people["alice"]?.id)
        try await fixture.test { client in
            #expect(try await Routes.post(client, "/v1/doses/take", fixture.auth("alice"), #"{"type":"dose1"}"#).status == .ok)
            try await SharingPagesTests.share(client, fixture, with: "bob", #"["log"]"#)
            fixture.time.advance(seconds: 170 * 60)
            let taken = try await Routes.post(client, "/v1/people/\(alice)/doses/take", fixture.auth("bob"), #"{"type":"dose2"}"#)
            #expect(taken.status == .ok)
            let hers = String(buffer: try await Routes.get(client, "/", fixture.auth("alice")).body)
            #expect(hers.contains("Dose 2 given by bob@example.org at 01:20 — 170 min after Dose 1"), "\(hers)")
            let details = String(buffer: try await Routes.get(client, "/details", fixture.auth("alice")).body)
            #expect(details.contains("given by bob@example.org at 01:20"))
            let his = String(buffer: try await Routes.get(client, "/people/\(alice)/", fixture.auth("bob")).body)
            #expect(his.contains("Dose 2 given by you at 01:20"))
        }
    }

    @Test("an invitation's link is shown with Copy, Share and a QR code that encodes it", SharedStoreFixture.enabled)
    func invitationLink() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob"])
        try await fixture.test { client in
            let page = String(buffer: try await Routes.get(client, "/settings/sharing", fixture.auth("alice")).body)
            let csrf = SharingPagesTests.hidden(page, "csrf")
            var headers = fixture.auth("alice")
            headers[.contentType] = "application/x-www-form-urlencoded"
            let made = try await Routes.post(client, "/ui/shares", headers, "csrf=\(csrf)&email=bob%40example.org&grants=view")
            let html = String(buffer: made.body)
            let link = try #require(html.range(of: "data-invite-url>")).upperBound
            let url = String(html[link...].prefix { $0 != "<" })
            #expect(url.contains("/invitation?token="))
            #expect(html.contains("data-copy=\"\(url)\"") && html.contains("data-share=\"\(url)\""))
            let code = try QRCode(url)
            #expect(html.contains("aria-label=\"QR code of the invitation link\"") && html.contains(code.svgPath))
        }
    }
}
