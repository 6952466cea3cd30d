import DoseApp
import DoseCore
import DoseServer
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Insights through the real router: the API, the page, the planner's apply and the report show one computation.
@Suite("Insights, planner and report over HTTP")
struct InsightsRouteTests {
    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// Records nights from 2026-11-`firstDay` with Dose 1 at 22:30 and Dose 2 after each interval (nil: skipped), each
    /// with a check-in of sleep quality 1–5 the next morning; leaves the clock at 20:00 after the last night.
    static func record(
        _ fixture: ServerFixture, _ client: any TestClientProtocol, intervals: [Double?], firstDay: Int = 1, quality: (Int) -> Int = { 3 + $0 % 3 }
    )
        async throws
    {
        for (index, interval) in intervals.enumerated() {
            let dose1 = WallClock.date(2026, 11, firstDay + index, 22, 30)
            fixture.set(dose1)
            var response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: body(#"{"type": "dose1"}"#))
            #expect(response.status == .ok || response.status == .created)
            if let interval {
                fixture.set(dose1.addingTimeInterval(interval * 60))
                let late = interval >= 240 ? #", "confirm": ["late"]"# : ""
                response = try await client.execute(
                    uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: body(#"{"type": "dose2"\#(late)}"#))
            } else {
                fixture.set(dose1.addingTimeInterval(200 * 60))
                response = try await client.execute(uri: "/v1/doses/skip", method: .post, headers: fixture.auth, body: body(#"{"sequence": 2}"#))
            }
            #expect(response.status == .ok || response.status == .created, "night \(index): \(String(buffer: response.body))")
            fixture.set(dose1.addingTimeInterval(9 * 3600))
            response = try await client.execute(
                uri: "/v1/checkins", method: .post, headers: fixture.auth, body: body(#"{"sleep_quality": \#(quality(index))}"#))
            #expect(response.status == .ok || response.status == .created, "check-in \(index): \(String(buffer: response.body))")
        }
        fixture.set(WallClock.date(2026, 11, firstDay + intervals.count, 20, 0))
    }

    @Test("every figure is the same on every surface: API, Insights page and report, for three generated sets of nights", arguments: [1, 2, 3])
    func surfacesAgree(seed: Int) async throws {
        var generator = SeededGenerator(seed: UInt64(seed))
        let intervals: [Double?] = (0..<12).map { _ in
            Int.random(in: 0..<8, using: &generator) == 0 ? nil : Double(Int.random(in: 150...239, using: &generator))
        }
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 20, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            try await Self.record(fixture, client, intervals: intervals)
            let api = ServerFixture.json(try await client.execute(uri: "/v1/insights?nights=30", method: .get, headers: fixture.auth))
            // The API against DoseCore computed here from the same stored nights.
            let records = try fixture.environment.useCases().insights.insights(nights: 30)
            let expected = JSONValue(response: InsightsResponse(records.insights, planner: records.planner)).rendered()
            let apiText = String(data: try JSONSerialization.data(withJSONObject: api, options: [.sortedKeys]), encoding: .utf8)!
            let expectedText = String(
                data: try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: Data(expected.utf8)), options: [.sortedKeys]),
                encoding: .utf8)!
            #expect(apiText == expectedText)
            let taken = intervals.compactMap { $0 }
            let onTime = taken.filter { abs($0 - 165) <= 10 }.count
            let timing = try #require(api["timing"] as? [String: [String: Any]])
            #expect(timing["on_target"]?["nights"] as? Int == onTime && api["nights_decided"] as? Int == 12)
            // The page and the report print every figure as the API's numbers, in the same words.
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            let page = String(buffer: try await client.execute(uri: "/insights?nights=30", method: .get, headers: cookie).body)
            let report = String(buffer: try await client.execute(uri: "/report/file?nights=30", method: .get, headers: cookie).body)
            for figure in InsightFigure.all(records.insights) {
                #expect(page.contains("<dt>\(figure.name)</dt><dd>\(figure.value)"), "page: \(figure.name) \(figure.value)")
                #expect(report.contains("<dt>\(figure.name)</dt><dd>\(figure.value)"), "report: \(figure.name) \(figure.value)")
            }
            let percent = try #require(timing["on_target"]?["percent"] as? Double)
            #expect(page.contains(String(format: "%.1f%%", percent)) && report.contains(String(format: "%.1f%%", percent)))
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the planner's suggestion is applied only as suggested, only with confirmation, and the target changes")
    func plannerApply() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 20, 0))
        try await fixture.test { client in
            // Seven steady nights near 195 minutes against the 165 target: the planner nudges up to 180.
            try await Self.record(fixture, client, intervals: [195, 192, 198, 195, 190, 200, 196])
            let insights = ServerFixture.json(try await client.execute(uri: "/v1/insights", method: .get, headers: fixture.auth))
            let planner = try #require(insights["planner"] as? [String: Any])
            #expect(planner["kind"] as? String == "nudge_up" && planner["suggested_target"] as? Int == 180 && planner["change"] as? Bool == true)
            #expect((planner["safety_warning"] as? String)?.contains("prescriber") == true)
            var response = try await client.execute(
                uri: "/v1/insights/planner", method: .post, headers: fixture.auth, body: Self.body(#"{"target_interval": 180}"#))
            #expect(response.status == .badRequest && ServerFixture.json(response).description.contains("confirm"))
            response = try await client.execute(
                uri: "/v1/insights/planner", method: .post, headers: fixture.auth, body: Self.body(#"{"target_interval": 195, "confirm": true}"#))
            #expect(response.status == .badRequest && String(buffer: response.body).contains("the current suggestion: 180"))
            response = try await client.execute(
                uri: "/v1/insights/planner", method: .post, headers: fixture.auth,
                body: Self.body(#"{"target_interval": 180, "confirm": true, "x": 1}"#))
            #expect(response.status == .badRequest && String(buffer: response.body).contains("x"))
            var settings = ServerFixture.json(try await client.execute(uri: "/v1/settings", method: .get, headers: fixture.auth))
            #expect(settings["target_interval"] as? String == "165", "refusals change nothing")
            response = try await client.execute(
                uri: "/v1/insights/planner", method: .post, headers: fixture.auth, body: Self.body(#"{"target_interval": 180, "confirm": true}"#))
            #expect(response.status == .ok)
            settings = ServerFixture.json(try await client.execute(uri: "/v1/settings", method: .get, headers: fixture.auth))
            #expect(settings["target_interval"] as? String == "180")
            // Applied again, the suggestion has moved on: the same request is refused rather than repeated.
            response = try await client.execute(
                uri: "/v1/insights/planner", method: .post, headers: fixture.auth, body: Self.body(#"{"target_interval": 180, "confirm": true}"#))
            #expect(response.status == .badRequest)
        }
    }

    @Test(
        "queries: nights 7/30/90 or from/to; anything else is refused by name",
        arguments: [
            ("/v1/insights?nights=14", 400), ("/v1/insights?nights=seven", 400), ("/v1/insights?from=2026-11-05&to=2026-11-01", 400),
            ("/v1/insights?nights=7&from=2026-11-01", 400), ("/v1/insights?period=7", 400), ("/v1/insights?to=", 400), ("/v1/insights?nights=7", 200),
            ("/v1/insights?from=2026-11-01&to=2026-11-05", 200), ("/v1/insights?nights=90", 200),
        ])
    func queries(uri: String, status: Int) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 20, 0))
        try await fixture.test { client in
            let response = try await client.execute(uri: uri, method: .get, headers: fixture.auth)
            #expect(Int(response.status.code) == status, "\(uri): \(String(buffer: response.body))")
            if status == 200 { #expect(ServerFixture.json(response)["state"] as? String == "insufficient_data") }
        }
    }

    @Test("the report file: self-contained, no script, its own CSP, a print stylesheet for the chosen paper, download by name")
    func reportFile() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 20, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            try await Self.record(fixture, client, intervals: [165, 170, nil, 250])
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            var response = try await client.execute(uri: "/report/file?nights=7&paper=letter&download=1", method: .get, headers: cookie)
            let html = String(buffer: response.body)
            #expect(response.status == .ok)
            #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            #expect(response.headers[.contentDisposition] == "attachment; filename=\"DoseTap_Report_2026-10-30_to_2026-11-05.html\"")
            #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("href=") && !html.contains("@import"))
            #expect(html.contains("@page { size: letter;") && html.contains("<svg class=\"chart interval\""))
            #expect(html.contains("Dose 2 skipped") && html.contains("after the window closed"), "notable events")
            #expect(html.contains("not medical advice"))
            response = try await client.execute(uri: "/report/file?paper=legal", method: .get, headers: cookie)
            #expect(response.status == .badRequest)
            let page = String(buffer: try await client.execute(uri: "/report?nights=7", method: .get, headers: cookie).body)
            #expect(page.contains("/report/file?from=2026-10-30&amp;to=2026-11-05&amp;paper=a4"))
            // A page's form sends a blank date field as empty: absent, the default period.
            response = try await client.execute(uri: "/insights?from=&to=", method: .get, headers: cookie)
            #expect(response.status == .ok && String(buffer: response.body).contains("Last 30 nights"))
            let details = String(buffer: try await client.execute(uri: "/insights", method: .get, headers: cookie).body)
            #expect(
                details.contains("aria-labelledby=\"interval-chart-title interval-chart-desc\"")
                    && details.contains("<table><caption>Interval per night"))
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the Insights page applies the planner only with the box ticked, and says what changed")
    func plannerPage() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 20, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            try await Self.record(fixture, client, intervals: [195, 192, 198, 195, 190, 200, 196])
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            let html = String(buffer: try await client.execute(uri: "/insights", method: .get, headers: cookie).body)
            #expect(html.contains("Change the target from 165 to 180 min") && html.contains("required"))
            var headers = cookie
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[HTTPField.Name("Origin")!] = "http://localhost"
            let token = WebTests.csrf(in: html)
            var response = try await client.execute(
                uri: "/ui/planner", method: .post, headers: headers, body: WebTests.form(["csrf": token, "target_interval": "180"]))
            #expect(response.status == .badRequest && String(buffer: response.body).contains("not confirmed"))
            response = try await client.execute(
                uri: "/ui/planner", method: .post, headers: headers, body: WebTests.form(["csrf": token, "target_interval": "180", "confirm": "yes"]))
            #expect(response.status == .ok && String(buffer: response.body).contains("Target changed from 165 to 180 minutes"))
            #expect(try fixture.environment.useCases().settings.current().targetIntervalMinutes == 180)
        }
        fixture.expectNoInternalErrors()
    }
}

/// A small deterministic generator (SplitMix64) so a generated test repeats exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
