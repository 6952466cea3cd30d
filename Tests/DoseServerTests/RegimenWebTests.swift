import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// Tonight once nightly (D19): one dose, no window, no Dose 2 button, and a Dose 2 sent anyway is refused in words.
@Suite("Tonight once nightly, through the real router")
struct RegimenWebTests {
    @Test("once nightly: 'Take tonight's dose', then the dose in words with Wake Up; no window, ring, snooze or Dose 2; a Dose 2 is refused")
    func onceNightlyTonight() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().settings.update([("regimen", "once_nightly"), ("dose1_mg", "6000")])
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            var html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(html.contains("Take tonight&#39;s dose") || html.contains("Take tonight's dose"), "\(html)")
            #expect(html.contains("6 g, once nightly") && html.contains("not taken yet") && html.contains("no Dose 2 alarm"))
            let token = WebTests.csrf(in: html)
            let headers = WebTests.formHeaders(cookie)
            var response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(["action": "dose1", "csrf": token]))
            #expect(response.status == .seeOther)
            fixture.set(WallClock.date(2026, 11, 22, 1, 10))
            html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(html.contains("Tonight&#39;s dose taken") || html.contains("Tonight's dose taken"))
            #expect(html.contains("once nightly, no Dose 2"))
            #expect(
                !html.contains("Take Dose 2") && !html.contains("Snooze") && !html.contains("data-variant=\"window\"")
                    && !html.contains("Dose 2 window"))
            #expect(html.contains("Wake Up") || html.contains("Wake up"), "the night's next step is waking, asked about within 2 hours")
            response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(["action": "dose2", "confirm": "early", "csrf": token]))
            #expect(response.status == .unprocessableContent)
            #expect(
                String(buffer: response.body).contains("Tonight&#39;s regimen is XYWAV once nightly: there is no Dose 2 to take, skip or snooze."))
            let status = try fixture.environment.useCases().night.status().status
            #expect(status.dose2At == nil && status.outcome == .doseTaken)
            let history = String(buffer: try await client.execute(uri: "/history", method: .get, headers: cookie).body)
            #expect(history.contains("The dose 22:30 · 6 g once"), "History names the one dose and its amount: \(history)")
        }
        fixture.expectNoInternalErrors()
    }
}
