import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// A titration plan on the web and the API (D19): entered in Settings and setup, a fast step confirmed by a box shown
/// only once it is refused, Tonight saying the step's amounts, the report listing the plan.
@Suite("Titration plans, through the real router")
struct TitrationWebTests {
    static let fastPlan = "2026-11-24 4.5 g + 3.5 g"

    @Test("Settings: a fast step is refused beside the box, with the box to confirm it; confirmed, Tonight shows the step's amounts")
    func settingsPage() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            var html = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(html.contains("<textarea id=\"titration\" name=\"titration\""), "\(html)")
            #expect(!html.contains("confirm_fast_titration"), "the confirmation is offered only after a refusal")
            #expect(html.contains("Tonight: XYWAV, twice nightly: 2.25 g at bedtime, 2.25 g 150–240 minutes later."))
            let token = WebTests.csrf(in: html)
            let headers = WebTests.formHeaders(cookie)
            var response = try await client.execute(
                uri: "/ui/settings", method: .post, headers: headers, body: WebTests.form(["titration": Self.fastPlan, "csrf": token]))
            #expect(response.status == .badRequest)
            html = String(buffer: response.body)
            #expect(html.contains("raises the nightly amount by 3.5 g at once, from 4.5 g to 8 g"), "\(html)")
            #expect(html.contains("name=\"confirm_fast_titration\"") && html.contains(Self.fastPlan), "the plan is kept as typed")
            #expect(try fixture.environment.useCases().settings.current().titrationPlan.steps.isEmpty, "nothing changed")
            response = try await client.execute(
                uri: "/ui/settings", method: .post, headers: headers,
                body: WebTests.form(["titration": Self.fastPlan, "confirm_fast_titration": "yes", "csrf": token]))
            #expect(response.status == .seeOther)
            #expect(try fixture.environment.useCases().settings.current().titrationPlan.text == Self.fastPlan)

            fixture.set(WallClock.date(2026, 11, 24, 21, 0))
            html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(html.contains("Take Dose 1 (4.5 g) at bedtime; Dose 2 (3.5 g) follows"), "\(html)")
            #expect(html.contains("(titration step of 2026-11-24)"))
            let report = String(buffer: try await client.execute(uri: "/report/file?nights=30", method: .get, headers: cookie).body)
            #expect(report.contains("Titration plan") && report.contains(Self.fastPlan + " (before the first step: 2.25 g + 2.25 g)"))
        }
        fixture.expectNoInternalErrors()
    }

    @Test("setup's medication step holds the plan; a fast one is refused beside it until its box is ticked")
    func setupStep() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            var html = String(buffer: try await client.execute(uri: "/welcome?step=2", method: .get, headers: cookie).body)
            #expect(html.contains("name=\"titration\""))
            let token = WebTests.csrf(in: html)
            let headers = WebTests.formHeaders(cookie)
            let answers = [
                "step": "2", "medication_product": "xywav", "regimen": "twice_nightly", "dose1_g": "2.25", "dose2_g": "2.25",
                "titration": Self.fastPlan, "concentration_mg_per_ml": "500", "bottle_ml": "180", "csrf": token,
            ]
            var response = try await client.execute(uri: "/ui/welcome", method: .post, headers: headers, body: WebTests.form(answers))
            #expect(response.status == .badRequest)
            html = String(buffer: response.body)
            #expect(html.contains("3.5 g at once") && html.contains("name=\"confirm_fast_titration\""), "\(html)")
            var confirmed = answers
            confirmed["confirm_fast_titration"] = "yes"
            response = try await client.execute(uri: "/ui/welcome", method: .post, headers: headers, body: WebTests.form(confirmed))
            #expect(response.status == .seeOther)
            #expect(try fixture.environment.useCases().settings.current().titrationPlan.text == Self.fastPlan)
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the API: PATCH /v1/settings refuses a fast step with 422_TITRATION_TOO_FAST until 'confirm' names it")
    func api() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        let app = Application(router: fixture.router())
        try await app.test(.router) { client in
            func patch(_ body: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/settings", method: .patch, headers: fixture.auth, body: ByteBuffer(string: body))
            }
            var response = try await patch(#"{"titration": "\#(Self.fastPlan)"}"#)
            #expect(response.status == .unprocessableContent)
            var body = ServerFixture.json(response)
            #expect((body["error"] as? [String: Any])?["code"] as? String == "422_TITRATION_TOO_FAST", "\(body)")
            #expect((body["error"] as? [String: Any])?["confirm"] as? String == "fast_titration", "\(body)")
            response = try await patch(#"{"titration": "\#(Self.fastPlan)", "confirm": ["early"]}"#)
            #expect(response.status == .badRequest)
            response = try await patch(#"{"titration": "\#(Self.fastPlan)", "confirm": ["fast_titration"]}"#)
            #expect(response.status == .ok)
            body = ServerFixture.json(response)
            #expect(body["titration"] as? String == Self.fastPlan, "\(body)")
            let status = ServerFixture.json(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth))
            #expect((status["regimen"] as? [String: Any])?["doses_mg"] as? [Int] == [2250, 2250], "the step starts on 24 November")
        }
        fixture.expectNoInternalErrors()
    }
}
