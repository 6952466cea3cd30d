import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import DoseServer

/// D14, D15 and the night's words on the web, through the real router; and no person's text ever becomes markup.
@Suite("Web UI safety: one tap is one action, no re-dosing, refusals inline, text always escaped")
struct WebSafetyTests {
    /// A paired browser's cookie, a form header set and its CSRF token.
    static func browser(_ client: any TestClientProtocol, _ pairing: PairingCodes, now: Date) async throws -> (HTTPFields, HTTPFields, String) {
        let cookie = try await WebTests.pair(client, pairing, now: now)
        let token = WebTests.csrf(in: String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body))
        var headers = cookie
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[HTTPField.Name("Origin")!] = "http://localhost"  // as a browser sends it with every form post
        return (cookie, headers, token)
    }

    /// `fixture`'s router served to `body` with a paired browser (its cookie, form headers and CSRF token); any 500
    /// fails the test.
    static func served(
        _ fixture: ServerFixture, _ body: @escaping @Sendable (any TestClientProtocol, HTTPFields, HTTPFields, String) async throws -> Void
    )
        async throws
    {
        let pairing = PairingCodes()
        try await Application(router: fixture.router(pairing: pairing)).test(.router) { client in
            let (cookie, headers, token) = try await browser(client, pairing, now: fixture.time.now)
            try await body(client, cookie, headers, token)
        }
        fixture.expectNoInternalErrors()
    }

    /// A fixture with Dose 1 at 22:30 and the clock at `now` (the wall clock too), served to `body` with a paired browser.
    static func afterDose1(
        at now: Date, _ body: @escaping @Sendable (ServerFixture, any TestClientProtocol, HTTPFields, HTTPFields, String) async throws -> Void
    )
        async throws
    {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), wallFollowsClock: true)
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(now)
        try await served(fixture) { client, cookie, headers, token in try await body(fixture, client, cookie, headers, token) }
    }

    static func revision(in html: String) -> String { field("revision", in: html) }

    /// The value of the first hidden field `name` on a page ("" without one).
    static func field(_ name: String, in html: String) -> String {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// A page's tap as its form sends it: the action, the page's revision and, on a page drawn after a tap, its instant.
    static func tap(_ fields: [String: String], on page: String, csrf: String) -> ByteBuffer {
        var sent = fields.merging(["revision": revision(in: page), "csrf": csrf]) { mine, _ in mine }
        let after = field("after", in: page)
        if !after.isEmpty { sent["after"] = after }
        return WebTests.form(sent)
    }

    @Test(
        "a double tap after Dose 2 leaves the night as one tap made it: the old page's second tap is stale, the new page's waits out 3 s but for Undo"
    )
    func doubleTap() async throws {
        try await Self.afterDose1(at: WallClock.date(2026, 11, 22, 1, 20)) { fixture, client, cookie, headers, token in
            let before = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(!before.contains("name=\"after\""), "a page opened, not drawn after a tap, holds nothing back")
            let first = Self.tap(["action": "dose2"], on: before, csrf: token)
            var response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: first)
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            #expect(location.contains("did=dose2") && location.contains("after=\(ISO8601.string(fixture.time.now))"))
            // The second tap, sent by the page that was on screen: refused as stale, nothing recorded.
            response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: first)
            #expect(response.status == .conflict && String(buffer: response.body).contains("nothing was done"))
            // The page the tap drew, 0.8 s later: Dose 2 in words where the ring was, nothing to tap in the big button's spot,
            // Undo in the notices, and every form saying which tap drew it.
            fixture.set(WallClock.date(2026, 11, 22, 1, 20, 0.8))
            let after = String(buffer: try await client.execute(uri: location, method: .get, headers: cookie).body)
            #expect(after.contains("Dose 2 taken at 01:20 — 170 min after Dose 1"))
            #expect(after.contains("<h1>Dose 2 taken</h1>") && !after.contains("Night complete"))
            let spot = try #require(after.range(of: "data-spot=\"primary\">")).upperBound
            let spotHTML = String(after[spot...].prefix { $0 != "\n" })
            #expect(!spotHTML.contains("<button") && !spotHTML.contains("<a "), "\(spotHTML)")
            #expect(after.contains("data-settle-ms=\"2200\"") && after.contains("data-settle></div>"))
            #expect(after.contains("name=\"spot\" value=\"undo\"") && after.contains("data-notices"))
            #expect(after.contains("data-confirm=\"early_wake\""))
            // Any tap but Undo from the new page within 3 s of the first does nothing, wherever it lands: Lights Out here.
            for gap in [0.8, 1.2, 1.8, 2.5, 2.999] {
                fixture.set(WallClock.date(2026, 11, 22, 1, 20, gap))
                response = try await client.execute(
                    uri: "/ui/act", method: .post, headers: headers, body: Self.tap(["action": "log", "event": "lights_out"], on: after, csrf: token))
                #expect(response.status == .conflict && String(buffer: response.body).contains("right after the last one"), "at \(gap) s")
            }
            var night = try fixture.environment.useCases().night.status()
            #expect(night.session?.events.filter { $0.kind == .dose2 || $0.kind == .extraDose }.count == 1)
            #expect(night.session?.events.contains { $0.kind == .sleep(.lightsOut) } == false)
            // Undo answers at once: it lives where no tap of the night lands.
            fixture.set(WallClock.date(2026, 11, 22, 1, 20, 1))
            response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: Self.tap(["action": "undo", "spot": "undo"], on: after, csrf: token))
            #expect(response.status == .seeOther && response.headers[.location]?.contains("undid=dose2") == true)
            let undone = String(buffer: try await client.execute(uri: try #require(response.headers[.location]), method: .get, headers: cookie).body)
            #expect(undone.contains("Undone: Dose 2 is no longer recorded."), "an undo says so, so Take Dose 2 is never shown again without a word")
            night = try fixture.environment.useCases().night.status()
            #expect(night.status.dose2At == nil)
        }
    }

    @Test(
        "D15 on the server: a page drawn after a tap takes no tap but Undo for 3 s, and its question no answer for 1 s; a page opened takes one at once",
        arguments: [
            ("control", 0.1, false), ("control", 0.6, false), ("control", 2.5, false), ("control", 2.999, false), ("control", 3.0, true),
            ("answer", 0.3, false), ("answer", 0.999, false), ("answer", 1.0, true), ("opened", 0.1, true),
        ])
    func settle(spot: String, gap: Double, counts: Bool) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 1, 20), wallFollowsClock: true)
        _ = try fixture.environment.useCases(
            at: {
                var clock = fixture.environment.clock()
                clock.now = WallClock.date(2026, 11, 21, 22, 30)
                return clock
            }()
        ).night.perform(NightAction(.dose1), from: .api)
        try await Self.served(fixture) { client, cookie, headers, token in
            var page = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            if spot == "answer" {
                // A grid Wake Up while Dose 2 is pending is answered with D16's question, drawn after that tap.
                let asked = try await client.execute(
                    uri: "/ui/act", method: .post, headers: headers, body: Self.tap(["action": "wake"], on: page, csrf: token))
                page = String(buffer: asked.body)
                #expect(asked.status == .conflict && page.contains("data-question-layer") && page.contains("Keep the night"))
                #expect(page.contains("name=\"spot\" value=\"answer\"") && page.contains("data-answer-ms=\"1000\""))
            } else if spot == "control" {
                let logged = try await client.execute(
                    uri: "/ui/act", method: .post, headers: headers, body: Self.tap(["action": "log", "event": "bathroom"], on: page, csrf: token))
                page = String(buffer: try await client.execute(uri: try #require(logged.headers[.location]), method: .get, headers: cookie).body)
            }
            fixture.set(WallClock.date(2026, 11, 22, 1, 20, gap))
            let fields: [String: String] =
                spot == "answer"
                ? ["action": "wake", "confirm": "end_night", "spot": "answer"] : ["action": "log", "event": "water"]
            let response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.tap(fields, on: page, csrf: token))
            #expect((response.status == .seeOther) == counts, "\(spot) at \(gap) s: \(response.status)")
            let events = try fixture.environment.useCases().night.status().session?.events ?? []
            let recorded = spot == "answer" ? events.contains { $0.kind == .sleep(.wakeFinal) } : events.contains { $0.kind == .sleep(.water) }
            #expect(recorded == counts, "nothing is recorded by a tap that does not count")
        }
    }

    @Test("D17: after an early wake-up and check-in, Tonight shows last night and when a new Dose 1 is possible; no tap records one")
    func noRedosing() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let clock: @Sendable () -> StoreClock = { fixture.environment.clock() }
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 1, 20))
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.dose2), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 1, 30))
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.wake), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 1, 40))
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 1, 50))
        let lastNight = try #require(try fixture.environment.useCases(at: clock()).records.nights(on: SessionKey(parsing: "2026-11-21")!).first)
        try await Self.served(fixture) { client, cookie, headers, token in
            let page = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(page.contains("<h1>A new Dose 1 is possible from 09:20</h1>"), "\(page)")
            #expect(page.contains("Last night: Dose 1 22:30 · Dose 2 01:20."))
            #expect(page.contains("href=\"/details?night=\(lastNight.session.id)\""), "a link to correct that night")
            #expect(!page.contains("value=\"dose1\""), "no Take Dose 1 on Tonight within 8 h of a dose")
            // A tap from an older page, or a hand-made form, is refused too, even when it says new_night.
            for confirm in ["", "new_night"] {
                var fields = ["action": "dose1", "csrf": token]
                if !confirm.isEmpty { fields["confirm"] = confirm }
                let response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(fields))
                #expect(response.status == .conflict)
                let html = String(buffer: response.body)
                #expect(html.contains("Dose 2 was taken at 01:20, 30 min before this Dose 1") && html.contains("possible from 09:20"))
                #expect(!html.contains("new_night") && !html.contains("Start a new night anyway"), "Tonight offers no way past D14")
                #expect(html.contains("<nav class=\"tabs\""), "the refusal is on Tonight, not a page of its own")
                #expect(try fixture.environment.useCases(at: clock()).night.status().session == nil)
            }
            // The page's own API calls (its cookie) are a half-asleep surface as well.
            var json = headers
            json[.contentType] = "application/json"
            json[HTTPField.Name("X-CSRF-Token")!] = token
            let api = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: json, body: ByteBuffer(string: #"{"type": "dose1", "confirm": ["new_night"]}"#))
            #expect(api.status == .conflict)
            #expect((ServerFixture.json(api)["error"] as? [String: Any])?["confirm"] == nil)
            // The API with a device token corrects records: there new_night still records it, with a warning.
            let recorded = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: ByteBuffer(string: #"{"type": "dose1", "confirm": ["new_night"]}"#)
            )
            #expect(recorded.status == .ok)
        }
    }

    @Test("once the window has closed, Skip is the filled button and a late Dose 2 is outlined and asks, offering Skip")
    func safeChoiceAfterClose() async throws {
        try await Self.afterDose1(at: WallClock.date(2026, 11, 22, 2, 35)) { _, client, cookie, headers, token in
            let html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(
                html.contains(
                    "<input type=\"hidden\" name=\"action\" value=\"skip\"><button type=\"submit\" class=\"button primary\">Skip Dose 2</button>"))
            #expect(html.contains("data-offer-skip") && html.contains("<button type=\"submit\" class=\"button\">Take Dose 2 late…</button>"))
            let response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(["action": "dose2", "csrf": token]))
            let asked = String(buffer: response.body)
            #expect(response.status == .unprocessableContent)
            #expect(
                asked.contains("value=\"skip\"><button type=\"submit\" class=\"button primary\" data-answer=\"safe\" autofocus>Skip Dose 2</button>"))
        }
    }

    @Test("a refused bathroom tap shows inline on Tonight with the wait, not a separate page")
    func inlineRefusal() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 23, 0))
        try await Self.served(fixture) { client, _, headers, token in
            let tap = WebTests.form(["action": "log", "event": "bathroom", "csrf": token])
            #expect(try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: tap).status == .seeOther)
            fixture.set(WallClock.date(2026, 11, 21, 23, 0, 20))
            let response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: tap)
            #expect(response.status == .tooManyRequests)
            let html = String(buffer: response.body)
            #expect(html.contains("<p class=\"refusal\" role=\"alert\" data-banner>Bathroom was just logged. Wait"))
            #expect(html.contains("aria-label=\"Log Bathroom\"") && !html.contains("<h1>Not done</h1>"))
        }
    }

    @Test("two browsers paired in the same minute get different names from their user agents; a failed pairing keeps the link")
    func pairing() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        let pairing = PairingCodes()
        let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Mobile Safari/537.36"
        try await Application(router: fixture.router(pairing: pairing)).test(.router) { client in
            for _ in 0..<2 {
                let code = await pairing.issue(now: fixture.time.now, random: .system)
                let response = try await client.execute(uri: "/pair?code=\(code)", method: .get, headers: [.userAgent: android])
                #expect(response.status == .seeOther)
            }
            let names = try fixture.environment.useCases().devices.active().map(\.name).sorted()
            #expect(names == ["Chrome on Android", "Chrome on Android 2", "test"])
            // Full names: the third pairing fails (no free name), and the same link then works once there is room.
            for index in 3...999 {
                _ = try fixture.environment.useCases().devices.pair(name: "Browser \(index)")
            }
            let code = await pairing.issue(now: fixture.time.now, random: .system)
            let long = String(repeating: "x", count: 70)
            _ = try fixture.environment.useCases().devices.pair(name: String(long.prefix(56)))
            let response = try await client.execute(uri: "/pair?code=\(code)", method: .get, headers: [.userAgent: "Chrome/1 Android"])
            #expect(response.status == .seeOther, "a name is always found")
        }
    }

    @Test("serve --tz is the zone of every page")
    func zoneEverywhere() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), timeZoneOverride: TimeZone(identifier: "Asia/Tokyo"))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        _ = try fixture.environment.useCases().medications.log([MedicationInput(medicationID: "modafinil", amount: 100)], confirmations: [])
        try await Self.served(fixture) { client, cookie, _, _ in
            // 22:30 in New York is 12:30 in Tokyo.
            for path in ["/", "/details", "/history", "/medications"] {
                let html = String(buffer: try await client.execute(uri: path, method: .get, headers: cookie).body)
                #expect(html.contains("12:30") && !html.contains("22:30"), "\(path)")
            }
        }
    }

    static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='alert(1)", "</textarea><b>x</b>", "{{csrf}}",
    ]

    @Test("every page renders hostile event notes, device names and medication notes as text", arguments: hostile)
    func hostileStrings(text: String) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let clock: @Sendable () -> StoreClock = { fixture.environment.clock() }
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.dose1, note: text), from: .api)
        _ = try fixture.environment.useCases(at: clock()).night.perform(NightAction(.log(event: "bathroom"), note: text), from: .api)
        _ = try fixture.environment.useCases(at: clock()).medications.log(
            [MedicationInput(medicationID: "modafinil", amount: 100, note: text)], confirmations: [])
        _ = try fixture.environment.useCases(at: clock()).devices.pair(name: text)
        try await Self.served(fixture) { client, cookie, _, _ in
            let checkIn = String(buffer: try await client.execute(uri: "/checkin", method: .get, headers: cookie).body)
            #expect(
                checkIn.contains("name=\"sleep_quality\"") && checkIn.contains(">Can&#39;t function<") && checkIn.contains("had_sleep_paralysis"),
                "the quick questions and the deep dives are on the page, in words")
            for path in [
                "/", "/details", "/history", "/insights", "/settings", "/checkin", "/presleep", "/medications", "/medications?medication=modafinil",
            ] {
                let html = String(buffer: try await client.execute(uri: path, method: .get, headers: cookie).body)
                // The text itself never appears with its < " ' intact: only escaped, where it is shown at all.
                #expect(!html.contains(text) || !text.contains(where: { "<\"'".contains($0) }), "\(path) shows the text unescaped")
                #expect(!html.contains("<script>") && !html.contains("<img") && !html.contains("<b>x"), "\(path)")
                if text == "{{csrf}}", path == "/details" { #expect(html.contains("— {{csrf}}"), "a value is never rendered as a template") }
            }
        }
    }

    @Test("no template uses Mustache's unescaped forms, and CSS and JavaScript live in files, not Swift strings")
    func templatesEscape() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/DoseServer").standardized
        let templates = sources.appendingPathComponent("Resources/Templates")
        let names = try FileManager.default.contentsOfDirectory(atPath: templates.path).filter { $0.hasSuffix(".mustache") }
        #expect(names.count >= 14)
        for name in names {
            let text = try String(contentsOf: templates.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name) renders unescaped text")
        }
        let web = sources.appendingPathComponent("Web")
        for name in try FileManager.default.contentsOfDirectory(atPath: web.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: web.appendingPathComponent(name), encoding: .utf8)
            #expect(
                !text.contains("<div") && !text.contains("<form") && !text.contains("addEventListener") && !text.contains("body +="),
                "\(name) builds markup in Swift")
        }
    }

    @Test("every template file is in the library, and a page whose template is missing fails as a bug, never as an empty page")
    func missingTemplate() throws {
        let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/DoseServer/Resources/Templates"
        )
        .standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: templates.path).filter { $0.hasSuffix(".mustache") }
        #expect(Set(files.map { String($0.dropLast(".mustache".count)) }) == Set(Templates.sources.map(\.0)))
        #expect(throws: Templates.MissingTemplate.self) {
            try Templates.page("no-such-page", NoticePage(frame: Frame("x", current: ""), heading: "x", message: "x", link: nil))
        }
    }

    @Test("a page whose template fails answers 500 with its request id, and the log has the error's type and the path, nothing more")
    func failedTemplateIsA500() async throws {
        let router = Router(context: DoseRequestContext.self)
        let internalErrors = InternalErrorLog()
        router.add(middleware: ErrorMiddleware(internalErrors: internalErrors, routes: RouteTable()))
        router.get("/broken") { _, _ in
            try Templates.page("no-such-page", NoticePage(frame: Frame("x", current: ""), heading: "x", message: "canary-note-7731", link: nil))
        }
        let lines = Recorded<String>()
        let logger = Logger(label: "dosetap") { _ in RecordingLogHandler(lines: lines) }
        try await Application(router: router, logger: logger).test(.router) { client in
            let response = try await client.execute(uri: "/broken", method: .get)
            #expect(response.status == .internalServerError)
            let body = String(buffer: response.body)
            #expect(body.contains("500_INTERNAL") && !body.contains("canary-note-7731"))
            let error = try #require(ServerFixture.json(response)["error"] as? [String: Any])
            let id = try #require(error["request_id"] as? String)
            let logged = lines.values.filter { $0.hasPrefix("error ") }
            // hb.request.id is Hummingbird's own name for the same id.
            #expect(logged == ["error request failed error=MissingTemplate hb.request.id=\(id) path=/broken request_id=\(id)"], "\(lines.values)")
        }
        #expect(internalErrors.all.count == 1 && internalErrors.all[0].hasSuffix("MissingTemplate"))
    }

    @Test("the check-in form records a headache (severity, place, migraine) even when the pain switch was left off")
    func checkInHeadache() async throws {
        try await Self.afterDose1(at: WallClock.date(2026, 11, 22, 7, 30)) { fixture, client, cookie, headers, token in
            let page = String(buffer: try await client.execute(uri: "/checkin", method: .get, headers: cookie).body)
            #expect(page.contains("name=\"headache\" value=\"migraine\"") && page.contains("name=\"headache_location\" value=\"temples\""))
            let answers = ["csrf": token, "sleep_quality": "3", "headache": "migraine", "headache_location": "temples", "congestion": "stuffy_nose"]
            let response = try await client.execute(uri: "/ui/checkin", method: .post, headers: headers, body: WebTests.form(answers))
            #expect(response.status == .ok || response.status == .seeOther)
            let night = String(buffer: try await client.execute(uri: "/v1/sessions/2026-11-21", method: .get, headers: fixture.auth).body)
            #expect(
                night.contains("\"severity\":\"migraine\"") && night.contains("\"location\":\"temples\"") && night.contains("\"is_migraine\":true"),
                "\(night)")
            #expect(night.contains("\"has_respiratory_symptoms\":true") && night.contains("\"congestion\":\"stuffy_nose\""))
        }
    }

    @Test("Pair another device shows the one-time link and its QR code, drawn in escaped SVG")
    func pairAnotherShowsQRCode() async throws {
        try await Self.afterDose1(at: WallClock.date(2026, 11, 21, 22, 40)) { _, client, _, headers, token in
            let response = try await client.execute(uri: "/ui/devices/pair", method: .post, headers: headers, body: WebTests.form(["csrf": token]))
            let html = String(buffer: response.body)
            let link = try #require(html.range(of: "<p class=\"link\"><a href=\"").map { String(html[$0.upperBound...].prefix { $0 != "\"" }) })
            let code = try QRCode(link)
            #expect(html.contains("<svg class=\"qr\" viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\" role=\"img\""))
            #expect(html.contains("<path d=\"\(code.svgPath)\""))
        }
    }
}
