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

/// Issue 53's words on the person's own pages: a night ended without Dose 2 said one way everywhere, amounts that
/// never imply a dose not taken, once nightly without Dose 2's facts, and the medication chosen in Settings.
@Suite("one word for a night ended without Dose 2; amounts as taken; Settings' medication", .serialized)
struct NightWordsWebTests {
    /// A night with Dose 1 at 22:30 ended by a wake-up (end_night) at 00:10, then checked in: ended without Dose 2.
    static func endedNight() throws -> ServerFixture {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let night = fixture.environment.useCases().night
        _ = try night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 0, 10))
        _ = try fixture.environment.useCases().night.perform(NightAction(.wake, confirmations: [.endNight]), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 7, 0))
        _ = try fixture.environment.useCases().night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
        return fixture
    }

    @Test("a night ended without Dose 2 says so on History, Details, Insights and the report; never 'Night complete' or slept through")
    func endedWithoutDose2() async throws {
        let fixture = try Self.endedNight()
        let night = try #require(try fixture.environment.useCases().records.nights(on: SessionKey(parsing: "2026-11-21")!).first)
        #expect(!night.session.events.contains { $0.source == .system }, "the night was ended: it never ran out")
        try await WebSafetyTests.served(fixture) { client, cookie, _, _ in
            let history = String(buffer: try await client.execute(uri: "/history", method: .get, headers: cookie).body)
            #expect(history.contains("<span class=\"badge\">Ended without Dose 2</span>"), "\(history)")
            #expect(history.contains("2.25 g, Dose 2 not taken") && !history.contains("2.25 g + 2.25 g"), "one dose was taken, and said so")
            let details = String(
                buffer: try await client.execute(uri: "/details?night=\(night.session.id)", method: .get, headers: cookie).body)
            #expect(details.contains("Ended without Dose 2: the night was ended at 00:10 before Dose 2 was taken or skipped"))
            #expect(details.contains("not taken: ended without Dose 2") && !details.contains("Night complete") && !details.contains("slept"))
            let insights = ServerFixture.json(try await client.execute(uri: "/v1/insights?nights=7", method: .get, headers: fixture.auth))
            let notable = insights["notable"] as? [[String: Any]] ?? []
            #expect(notable.contains { $0["kind"] as? String == "ended_without_dose2" }, "among the notable nights: \(notable)")
            let timing = (insights["timing"] as? [String: Any])?["ended_without_dose2"] as? [String: Any]
            #expect(timing?["nights"] as? Int == 1, "counted as a missed Dose 2, not undecided: \(insights["timing"] ?? "")")
            let report = String(buffer: try await client.execute(uri: "/report/file?nights=7", method: .get, headers: cookie).body)
            #expect(report.contains("<td data-label=\"Dose 2\">not taken</td>") && report.contains("ended without Dose 2"))
            #expect(report.contains("<td data-label=\"Flags\">—</td>"), "the Flags column holds flags, never the amounts")
            #expect(report.contains("Ended without Dose 2: the night was ended before Dose 2 was taken or skipped"), "a notable night")
        }
    }

    @Test("once nightly, Details has the dose and no Dose 2, window or snoozes")
    func onceNightlyDetails() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().settings.update([("medication_product", "lumryz"), ("dose1_mg", "6000")])
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 21, 23, 0))
        try await WebSafetyTests.served(fixture) { client, cookie, _, _ in
            let details = String(buffer: try await client.execute(uri: "/details", method: .get, headers: cookie).body)
            #expect(details.contains("<dt>The dose</dt><dd>22:30</dd>"), "\(details)")
            #expect(!details.contains("<dt>Dose 2</dt>") && !details.contains("<dt>Window</dt>") && !details.contains("<dt>Snoozes</dt>"))
        }
    }

    @Test("Settings chooses the product, the regimen and the amounts in grams; Lumryz brings once nightly; a bad amount saves nothing")
    func medicationInSettings() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        try await WebSafetyTests.served(fixture) { client, cookie, headers, token in
            let page = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(page.contains(#"name="medication_product" value="lumryz" data-kinds="once_nightly""#))
            #expect(page.contains(#"name="regimen" value="twice_nightly" checked"#) && page.contains(#"id="dose1_g" name="dose1_g""#))
            // Lumryz chosen with the regimen left as the page showed it: once nightly comes with it.
            var fields = ["csrf": token, "medication_product": "lumryz", "regimen": "twice_nightly", "dose1_g": "6", "dose2_g": "2.25"]
            var response = try await client.execute(uri: "/ui/settings", method: .post, headers: headers, body: WebTests.form(fields))
            #expect(response.status == .seeOther, "\(String(buffer: response.body))")
            var settings = try fixture.environment.useCases().settings.current()
            #expect(settings.medicationProduct == "lumryz" && settings.regimenKind == .onceNightly && settings.dose1Milligrams == 6000)
            // An amount that does not read is named, and nothing is saved.
            fields["dose1_g"] = "six"
            response = try await client.execute(uri: "/ui/settings", method: .post, headers: headers, body: WebTests.form(fields))
            #expect(response.status == .badRequest && String(buffer: response.body).contains("dose1_g"))
            settings = try fixture.environment.useCases().settings.current()
            #expect(settings.dose1Milligrams == 6000)
        }
    }
}
