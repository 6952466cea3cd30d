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

@Suite("Web UI against the real router")
struct WebTests {
    /// Pairs a browser through a one-time link; returns its cookie header.
    static func pair(_ client: any TestClientProtocol, _ pairing: PairingCodes, now: Date) async throws -> HTTPFields {
        let code = await pairing.issue(now: now, random: .system)
        let response = try await client.execute(uri: "/pair?code=\(code)", method: .get)
        #expect(response.status == .seeOther)
        let cookie = try #require(response.headers[.setCookie])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let again = try await client.execute(uri: "/pair?code=\(code)", method: .get)
        #expect(again.status == .badRequest, "a pairing link works once")
        return [.cookie: String(cookie.split(separator: ";")[0])]
    }

    static func csrf(in html: String) -> String {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return "" }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The paired cookie with what a page's form post sends: urlencoded, from this origin.
    static func formHeaders(_ cookie: HTTPFields) -> HTTPFields {
        var headers = cookie
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[HTTPField.Name("Origin")!] = "http://localhost"
        return headers
    }

    static func form(_ fields: [String: String]) -> ByteBuffer {
        ByteBuffer(
            string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&"))
    }

    @Test("pair, take Dose 1 through the form, see the undo snackbar, undo, take it again; an early Dose 2 asks with the risk in words")
    func night() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            var unpaired = try await client.execute(uri: "/", method: .get)
            #expect(unpaired.status == .unauthorized)
            #expect(String(buffer: unpaired.body).contains("Not paired"))
            var cookie = try await Self.pair(client, pairing, now: fixture.time.now)
            var page = try await client.execute(uri: "/", method: .get, headers: cookie)
            var html = String(buffer: page.body)
            #expect(page.status == .ok)
            #expect(html.contains("Take Dose 1"))
            #expect(!html.contains("<script>") && !html.contains(" style=") && !html.contains(" onclick="), "no inline script or style")
            let token = Self.csrf(in: html)
            #expect(token.count == 40)

            let headers = Self.formHeaders(cookie)
            var response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "dose1"]))
            #expect(response.status == .forbidden, "no CSRF token")
            response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "dose1", "csrf": token]))
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            page = try await client.execute(uri: location, method: .get, headers: cookie)
            html = String(buffer: page.body)
            #expect(html.contains("Dose 1 recorded."))
            #expect(html.contains("data-undo-until"))
            response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "undo", "csrf": token]))
            #expect(response.status == .seeOther)
            html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(html.contains("Take Dose 1"))
            _ = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "dose1", "csrf": token]))

            fixture.set(WallClock.date(2026, 11, 22, 0, 18))
            html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            // Before the window the countdown and the opening time are the focus: no filled Dose 2 button; an early dose is
            // an outlined choice that asks (D15, issue 31).
            #expect(html.contains("<p class=\"spot-text\">Dose 2 opens at 01:00</p>"))
            #expect(html.contains("data-risk=\"Dose 2&#39;s window opens at 01:00. Taking Dose 2 before then is unsafe; wait for the window.\""))
            #expect(html.contains("<button type=\"submit\" class=\"button\">Take Dose 2 early…</button>"))
            let current = try #require(html.range(of: "data-variant=\"before_window\""))
            #expect(!html[current.upperBound...].prefix(600).contains("class=\"button primary\""), "no filled button before the window")
            response = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "dose2", "csrf": token]))
            #expect(response.status == .unprocessableContent)
            html = String(buffer: response.body)
            // Asked on Tonight itself: the risk in words, Cancel filled, "Take it anyway" outlined.
            #expect(html.contains("Too early for Dose 2: the window opens at 01:00, in 42 min.") && html.contains("role=\"alertdialog\""))
            #expect(html.contains("<a class=\"button primary\" href=\"/\" data-answer=\"safe\" autofocus>Cancel</a>"))
            #expect(html.contains("<button type=\"submit\" class=\"button\" data-answer=\"risky\">Take it anyway</button>"))
            response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "dose2", "confirm": "early", "csrf": token]))
            #expect(response.status == .seeOther)
            let status = try fixture.environment.useCases().night.status().status
            #expect(status.dose2At != nil)
            #expect(status.warnings.contains("Dose 2 was taken early tonight."))

            response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: Self.form(["action": "log", "event": "bathroom", "csrf": token]))
            #expect(response.status == .seeOther)
            for path in ["/details", "/history", "/insights", "/settings", "/checkin", "/presleep", "/medications"] {
                let page = try await client.execute(uri: path, method: .get, headers: cookie)
                #expect(page.status == .ok, "\(path)")
                #expect(String(buffer: page.body).contains("<main id=\"main\">"))
            }
            cookie = [:]
            unpaired = try await client.execute(uri: "/history", method: .get, headers: cookie)
            #expect(unpaired.status == .unauthorized)
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the support bundle from Settings: every redacted file on a page first, then the zip only from its button")
    func supportBundle() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1, note: "canary-web-note"), from: .api)
        fixture.set(WallClock.date(2026, 11, 21, 23, 0))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await Self.pair(client, pairing, now: fixture.time.now)
            let settings = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(settings.contains(#"href="/settings/support""#))
            let review = String(buffer: try await client.execute(uri: "/settings/support", method: .get, headers: cookie).body)
            for name in ["readme.txt", "events.csv", "medications.csv", "app_metadata.json", "debug_log.txt"] {
                #expect(review.contains("<h2>\(name) "), "the page shows \(name)")
            }
            #expect(review.contains(",dose1_taken,") && review.contains("2000-01-01T"), "the events, moved to 2000-01-01")
            #expect(!review.contains("canary-web-note") && !review.contains("2026-11-2"), "no note and no real date on the page")
            let headers = Self.formHeaders(cookie)
            let token = Self.csrf(in: review)
            var response = try await client.execute(uri: "/ui/support-bundle", method: .post, headers: headers, body: Self.form(["csrf": token]))
            #expect(response.status == .badRequest, "not without the review page's button")
            response = try await client.execute(
                uri: "/ui/support-bundle", method: .post, headers: headers, body: Self.form(["csrf": token, "reviewed": "yes"]))
            #expect(response.status == .ok && response.headers[.contentType] == "application/zip")
            #expect(response.headers[.contentDisposition]?.contains("attachment") == true)
            let zip = Array(buffer: response.body)
            #expect(zip.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a zip")
            response = try await client.execute(
                uri: "/ui/support-bundle", method: .post, headers: headers,
                body: Self.form(["csrf": token, "reviewed": "yes", "include_database": "yes"]))
            #expect(response.status == .ok && Array(buffer: response.body).count > zip.count, "the raw database goes in only when ticked")
        }
        fixture.expectNoInternalErrors()
    }

    @Test("History's chosen nights and Clear Old: each shows what goes and asks first; all or nothing; the open night is never offered")
    func deleteSeveral() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 22, 30))
        // Nights dated 2026-11-01 … 05 closed by their check-ins, and tonight's (the 20th) open.
        for day in [1, 2, 3, 4, 5, 20] {
            fixture.set(WallClock.date(2026, 11, day, 22, 30))
            _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
            if day < 20 {
                fixture.set(WallClock.date(2026, 11, day + 1, 7, 0))
                _ = try fixture.environment.useCases().night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
            }
        }
        fixture.set(WallClock.date(2026, 11, 20, 23, 0))
        let records = fixture.environment.useCases().records
        @Sendable func dates() throws -> [String] {
            try records.history(HistoryQuery()).groups.flatMap(\.nights).map(\.session.date.description).sorted()
        }
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await Self.pair(client, pairing, now: fixture.time.now)
            let history = String(buffer: try await client.execute(uri: "/history", method: .get, headers: cookie).body)
            #expect(history.contains(#"name="date" value="2026-11-05""#), "an ended night can be chosen")
            #expect(!history.contains(#"name="date" value="2026-11-20""#), "tonight's open night is not offered")
            #expect(history.contains(#"<select id="older_than" name="older_than">"#))

            // Two chosen nights: the page names them and their count, and deletes nothing yet.
            var html = String(
                buffer: try await client.execute(uri: "/history/delete?date=2026-11-04&date=2026-11-02", method: .get, headers: cookie).body)
            #expect(html.contains("Delete 2 nights (2026-11-02 to 2026-11-04), 4 events?"), "\(html)")
            #expect(html.contains(#"<input type="hidden" name="date" value="2026-11-02"><input type="hidden" name="date" value="2026-11-04">"#))
            #expect(try dates().count == 6)

            let token = Self.csrf(in: html)
            let headers = Self.formHeaders(cookie)
            // With tonight's date among them, nothing is deleted.
            var response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: ByteBuffer(string: "csrf=\(token)&date=2026-11-02&date=2026-11-20"))
            #expect(response.status == .badRequest)
            #expect(try dates().count == 6)
            response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: ByteBuffer(string: "csrf=\(token)&date=2026-11-02&date=2026-11-04"))
            #expect(response.status == .seeOther)
            #expect(try dates() == ["2026-11-01", "2026-11-03", "2026-11-05", "2026-11-20"])

            // Clear Old: nights older than 16 days before the 20th are those dated before the 4th.
            html = String(buffer: try await client.execute(uri: "/history/delete?older_than=16", method: .get, headers: cookie).body)
            #expect(html.contains("Delete 2 nights (2026-11-01 to 2026-11-03), 4 events?"), "\(html)")
            #expect(html.contains(#"<input type="hidden" name="before" value="2026-11-04">"#))
            for bad in ["older_than=0", "older_than=soon", "older_than=30&date=2026-11-05", ""] {
                response = try await client.execute(uri: "/history/delete?\(bad)", method: .get, headers: cookie)
                #expect(response.status == .badRequest, "\(bad)")
            }
            response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: ByteBuffer(string: "csrf=\(token)&before=2026-11-04"))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/history?deleted=2%20nights%20(2026-11-01%20to%202026-11-03),%204%20events")
            #expect(try dates() == ["2026-11-05", "2026-11-20"])
            // Without the page's token nothing is deleted.
            response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: ByteBuffer(string: "before=2026-11-30"))
            #expect(response.status == .forbidden)
            #expect(try dates() == ["2026-11-05", "2026-11-20"])
        }
        fixture.expectNoInternalErrors()
    }

    @Test(
        "history filters and pages; deleting a night asks first; settings save all-or-none with the quick-log grid; devices; Clear All in two steps")
    func management() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 19, 22, 30))
        // Three nights: the 19th and 20th closed by their check-ins, the 21st open.
        for day in 19...21 {
            fixture.set(WallClock.date(2026, 11, day, 22, 30))
            _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
            fixture.set(WallClock.date(2026, 11, day, 23, 0))
            _ = try fixture.environment.useCases().night.perform(NightAction(.log(event: day == 20 ? "water" : "bathroom")), from: .api)
            if day < 21 {
                fixture.set(WallClock.date(2026, 11, day + 1, 7, 0))
                _ = try fixture.environment.useCases().night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
            }
        }
        fixture.set(WallClock.date(2026, 11, 21, 23, 30))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await Self.pair(client, pairing, now: fixture.time.now)
            var html = String(buffer: try await client.execute(uri: "/history", method: .get, headers: cookie).body)
            #expect(html.contains("2026-11-19") && html.contains("2026-11-20") && html.contains("2026-11-21"))
            #expect(html.firstRange(of: "2026-11-21")!.lowerBound < html.firstRange(of: "2026-11-19")!.lowerBound, "newest first")
            html = String(buffer: try await client.execute(uri: "/history?sort=oldest&from=2026-11-20", method: .get, headers: cookie).body)
            #expect(!html.contains(#"value="2026-11-19""#))
            #expect(html.firstRange(of: #"value="2026-11-20""#)!.lowerBound < html.firstRange(of: "<h2>2026-11-21")!.lowerBound)
            html = String(buffer: try await client.execute(uri: "/history?filter=water", method: .get, headers: cookie).body)
            #expect(html.contains("</time> Water") && !html.contains("</time> Bathroom"))
            var response = try await client.execute(uri: "/history?sort=sideways", method: .get, headers: cookie)
            #expect(response.status == .badRequest && String(buffer: response.body).contains("newest, oldest, az, za"))

            let token = Self.csrf(in: String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body))
            let headers = Self.formHeaders(cookie)
            html = String(buffer: try await client.execute(uri: "/history/delete?date=2026-11-19", method: .get, headers: cookie).body)
            #expect(html.contains("Delete the night of 2026-11-19 (3 events)?") && html.contains("cannot be undone"))
            #expect(try fixture.environment.useCases().records.nights(on: SessionKey(parsing: "2026-11-19")!).count == 1, "asking deletes nothing")
            response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: Self.form(["date": "2026-11-19", "csrf": token]))
            #expect(response.status == .seeOther && response.headers[.location] == "/history?deleted=the%20night%20of%202026-11-19%20(3%20events)")
            #expect(try fixture.environment.useCases().records.nights(on: SessionKey(parsing: "2026-11-19")!).isEmpty)
            response = try await client.execute(
                uri: "/ui/history/delete", method: .post, headers: headers, body: Self.form(["date": "2026-11-21", "csrf": token]))
            #expect(response.status == .badRequest, "tonight's open night cannot be deleted")

            // Settings: the quick-log grid from checkboxes; one bad value refuses the whole form.
            let quick = ["bathroom", "water", "snack", "in_bed", "lights_out", "wake_temp", "nap_start", "nap_end", "anxiety", "dream"]
            let body = quick.map { "quick_log=\($0)" }.joined(separator: "&") + "&target_interval=180&csrf=\(token)"
            response = try await client.execute(uri: "/ui/settings", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(response.status == .seeOther && response.headers[.location] == "/settings?saved=1")
            #expect(
                String(buffer: try await client.execute(uri: "/settings?saved=1", method: .get, headers: cookie).body).contains("Settings saved."))
            var settings = try fixture.environment.useCases().settings.current()
            #expect(settings.quickLog == quick && settings.targetIntervalMinutes == 180)
            html = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(html.contains("class=\"grid dense\"") && html.contains("aria-label=\"Log Snack\""))
            for (bad, problem) in [
                ("quick_log=water&quick_log=water", "water&#39; is listed twice"), ("quick_log=teleport", "teleport&#39; is not an event"),
            ] {
                response = try await client.execute(
                    uri: "/ui/settings", method: .post, headers: headers, body: ByteBuffer(string: bad + "&target_interval=195&csrf=\(token)"))
                #expect(response.status == .badRequest && String(buffer: response.body).contains(problem))
            }
            settings = try fixture.environment.useCases().settings.current()
            #expect(settings.quickLog == quick && settings.targetIntervalMinutes == 180, "nothing of a refused form is saved")

            // Devices: revoke another one from the page.
            _ = try fixture.environment.useCases().devices.pair(name: "kitchen tablet")
            html = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(html.contains("value=\"kitchen tablet\"") && html.contains("This browser, paired"))
            let tablet = try #require(try fixture.environment.useCases().devices.all().first { $0.name == "kitchen tablet" })
            response = try await client.execute(
                uri: "/ui/devices/revoke", method: .post, headers: headers, body: Self.form(["id": tablet.id, "csrf": token]))
            #expect(String(buffer: response.body).contains("kitchen tablet can no longer use DoseTap."))
            #expect(try fixture.environment.useCases().devices.active().allSatisfy { $0.name != "kitchen tablet" })

            // Clear All: the page, a wrong phrase (nothing deleted), the exact phrase.
            html = String(buffer: try await client.execute(uri: "/settings/clear", method: .get, headers: cookie).body)
            #expect(html.contains(htmlEscaped(AppDatabase.clearAllPhrase)))
            response = try await client.execute(
                uri: "/ui/clear-all", method: .post, headers: headers, body: Self.form(["phrase": "clear all data", "csrf": token]))
            #expect(String(buffer: response.body).contains("does not match, so nothing was deleted"))
            #expect(try fixture.environment.useCases().night.status().session != nil)
            response = try await client.execute(
                uri: "/ui/clear-all", method: .post, headers: headers, body: Self.form(["phrase": AppDatabase.clearAllPhrase, "csrf": token]))
            #expect(String(buffer: response.body).contains("none remain"))
            #expect(try fixture.environment.useCases().night.status().session == nil)
            #expect(
                try await client.execute(uri: "/", method: .get, headers: cookie).status == .unauthorized, "the browser's pairing went with the data")
        }
        fixture.expectNoInternalErrors()
    }

    @Test("cookie-authenticated changes need this page's CSRF token and a same-origin Origin, or failing that Referer; else 403")
    func csrfOnAPI() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await Self.pair(client, pairing, now: fixture.time.now)
            let token = Self.csrf(in: String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body))
            let dose1 = ByteBuffer(string: #"{"type": "dose1"}"#)
            let origin = HTTPField.Name("Origin")!
            let csrf = HTTPField.Name("X-CSRF-Token")!
            var headers = cookie
            headers[.contentType] = "application/json"
            headers[origin] = "http://localhost"
            var response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: dose1)
            #expect(response.status == .forbidden && String(buffer: response.body).contains("403_FORBIDDEN"), "no CSRF token")
            headers[csrf] = (token.first == "0" ? "1" : "0") + token.dropFirst()  // one character changed
            #expect(
                try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: dose1).status == .forbidden, "a wrong token")
            headers[csrf] = token
            // Where the request came from: a foreign Origin, no Origin and a foreign Referer, neither header at all.
            for (sentOrigin, referer) in [
                ("https://evil.example", nil), (nil, "http://evil.example/x"), (nil, "http://localhost.evil.example/"),
                (nil, nil), ("null", "http://localhost/"),
                // The same host by another scheme or port is another origin (this listener is plain HTTP on port 80).
                ("https://localhost", nil), ("http://localhost:8080", nil), (nil, "https://localhost/settings"),
            ] as [(String?, String?)] {
                headers[origin] = sentOrigin
                headers[.referer] = referer
                response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: dose1)
                #expect(response.status == .forbidden, "Origin \(sentOrigin ?? "none"), Referer \(referer ?? "none")")
            }
            #expect(try fixture.environment.useCases().night.status().status.dose1At == nil, "nothing was recorded")
            headers[origin] = nil
            headers[.referer] = "http://localhost/settings"
            response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: dose1)
            #expect(response.status == .ok, "a same-origin Referer stands in for a missing Origin")
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: cookie).status == .ok, "reads need no CSRF token")
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the CSRF token is bound to the device and rotates every 12 hours; a page's token still works in the next period")
    func csrfRotation() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let pairing = PairingCodes()
        try await Application(router: fixture.router(pairing: pairing)).test(.router) { client in
            let first = try await Self.pair(client, pairing, now: fixture.time.now)
            let second = try await Self.pair(client, pairing, now: fixture.time.now)
            let token = Self.csrf(in: String(buffer: try await client.execute(uri: "/", method: .get, headers: first).body))
            let other = Self.csrf(in: String(buffer: try await client.execute(uri: "/", method: .get, headers: second).body))
            #expect(token.count == 40 && other.count == 40 && token != other, "each browser has its own token")
            func take(_ cookie: HTTPFields, _ sent: String) async throws -> HTTPResponse.Status {
                var headers = cookie
                headers[.contentType] = "application/json"
                headers[HTTPField.Name("Origin")!] = "http://localhost"
                headers[HTTPField.Name("X-CSRF-Token")!] = sent
                return try await client.execute(
                    uri: "/v1/events/log", method: .post, headers: headers, body: ByteBuffer(string: #"{"type": "lights_out"}"#)
                )
                .status
            }
            #expect(try await take(second, token) == .forbidden, "one browser's token does not work for another")
            fixture.set(WallClock.date(2026, 11, 22, 9, 0))
            #expect(try await take(first, token) == .ok, "the token of last night's page still works in the morning")
            fixture.set(WallClock.date(2026, 11, 23, 9, 0))
            #expect(try await take(first, token) == .forbidden, "a token from more than a day ago does not")
            let fresh = Self.csrf(in: String(buffer: try await client.execute(uri: "/", method: .get, headers: first).body))
            #expect(fresh != token)
        }
        fixture.expectNoInternalErrors()
    }

    @Test("the night palette: action colours have at least 7:1 contrast on true black; targets are at least 48 px")
    func palette() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let app = Application(router: fixture.router())
        try await app.test(.router) { client in
            let css = String(buffer: try await client.execute(uri: "/assets/app.css", method: .get).body)
            #expect(css.contains("--bg: #000"))
            func luminance(_ hex: String) -> Double {
                let value = Int(hex.dropFirst(), radix: 16)!
                func linear(_ channel: Int) -> Double {
                    let unit = Double(channel) / 255
                    return unit <= 0.03928 ? unit / 12.92 : pow((unit + 0.055) / 1.055, 2.4)
                }
                let red = linear((value >> 16) & 255)
                let green = linear((value >> 8) & 255)
                let blue = linear(value & 255)
                return 0.2126 * red + 0.7152 * green + 0.0722 * blue
            }
            for name in ["--accent", "--fg", "--muted", "--warn"] {
                let range = try #require(css.range(of: "\(name): #"))
                let hex = "#" + css[range.upperBound...].prefix(6)
                #expect((luminance(hex) + 0.05) / 0.05 >= 7, "\(name) \(hex)")
            }
            #expect(css.contains("min-height: 48px"))
            let script = try await client.execute(uri: "/assets/app.js", method: .get)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
        }
        fixture.expectNoInternalErrors()
    }
}

/// The phrase as the page writes it (HTML-escaped).
private func htmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\"", with: "&quot;")
}
