import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DoseServer

/// D16 through the real router: every way to end a night while Dose 2 is undecided is refused with 409_DOSE2_PENDING
/// and changes nothing, until `end_night` is confirmed; the pages ask with "Keep the night" as the filled choice.
@Suite("D16 over HTTP: no night ends by accident while Dose 2 is undecided")
struct NightEndingWebTests {
    /// Dose 1 at 23:36, the clock at `now`, the router served to `body` with a paired browser.
    static func night(
        at now: Date, _ body: @escaping @Sendable (ServerFixture, any TestClientProtocol, HTTPFields, HTTPFields, String) async throws -> Void
    ) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 23, 36))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(now)
        try await WebSafetyTests.served(fixture) { client, cookie, headers, token in try await body(fixture, client, cookie, headers, token) }
    }

    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func error(_ response: TestResponse) -> [String: Any] { ServerFixture.json(response)["error"] as? [String: Any] ?? [:] }

    /// The API routes that end a night, with their bodies.
    static let endings: [(String, String)] = [
        ("/v1/events/wake", "{}"), ("/v1/events/log", #"{"type": "wake_final"}"#), ("/v1/checkins", #"{"sleep_quality": 4}"#),
    ]

    @Test("the API refuses each ending with 409_DOSE2_PENDING, names the window, changes nothing; end_night records it", arguments: 0..<3)
    func api(index: Int) async throws {
        let (path, body) = Self.endings[index]
        try await Self.night(at: WallClock.date(2026, 11, 21, 23, 59)) { fixture, client, _, _, _ in
            let before = try fixture.environment.useCases().night.status()
            let refused = try await client.execute(uri: path, method: .post, headers: fixture.auth, body: Self.buffer(body))
            #expect(refused.status == .conflict)
            let error = Self.error(refused)
            #expect(error["code"] as? String == "409_DOSE2_PENDING")
            #expect(error["confirm"] as? String == "end_night")
            let details = error["details"] as? [String: Any] ?? [:]
            #expect(details["window"] as? String == "before_window" && details["opens_at_local"] as? String == "02:06")
            #expect((error["message"] as? String ?? "").contains("its window opens at 02:06"))
            let after = try fixture.environment.useCases().night.status()
            #expect(after.revision == before.revision && after.status.dose2Undecided && after.status.nextReminder != nil)
            // Another confirmation is not this one; an unknown one is bad input.
            let wrong = try await client.execute(
                uri: path, method: .post, headers: fixture.auth,
                body: Self.buffer(body.dropLast() + (body == "{}" ? "" : ", ") + #""confirm": ["early"]}"#))
            #expect(wrong.status == .badRequest, "only end_night is a confirmation here")
            let confirmed = try await client.execute(
                uri: path, method: .post, headers: fixture.auth,
                body: Self.buffer(body.dropLast() + (body == "{}" ? "" : ", ") + #""confirm": ["end_night"]}"#))
            #expect(confirmed.status == .ok)
            let status = ServerFixture.json(confirmed)["status"] as? [String: Any] ?? [:]
            #expect(status["next_reminder"] is NSNull, "the Dose 2 alarms are cancelled")
            #expect(status["dose2_undecided"] as? Bool == false)
        }
    }

    @Test("Tonight offers no Check-in while Dose 2 is undecided, and says so on the Check-in page before anything is typed")
    func noCheckInButton() async throws {
        try await Self.night(at: WallClock.date(2026, 11, 21, 23, 59)) { _, client, cookie, _, _ in
            let tonight = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            #expect(!tonight.contains("href=\"/checkin\""), "no Check-in button while Dose 2 is undecided")
            let page = String(buffer: try await client.execute(uri: "/checkin", method: .get, headers: cookie).body)
            #expect(page.contains("Dose 2 is still to come: its window opens at 02:06"))
            #expect(page.contains("Saving a check-in now would end the night"))
            #expect(page.components(separatedBy: "type=\"submit\"").count == 2, "one Save button")
        }
    }

    @Test("a midnight check-in asks, keeps the answers, and ends the night only when confirmed")
    func checkInAsks() async throws {
        try await Self.night(at: WallClock.date(2026, 11, 21, 23, 59)) { fixture, client, _, headers, token in
            let form = ["csrf": token, "sleep_quality": "4", "notes": "woke, thirsty, a b,c"]
            let asked = try await client.execute(uri: "/ui/checkin", method: .post, headers: headers, body: WebTests.form(form))
            #expect(asked.status == .conflict)
            let html = String(buffer: asked.body)
            #expect(html.contains("role=\"alertdialog\"") && html.contains("Saving the check-in now would end the night"))
            #expect(html.contains("<a class=\"button primary\" href=\"/\">Keep the night</a>"), "Keep the night is the filled choice")
            #expect(html.contains("<button type=\"submit\" class=\"button\">End the night and save</button>"))
            #expect(html.contains("name=\"notes\" value=\"woke, thirsty, a b,c\"") && html.contains("name=\"sleep_quality\" value=\"4\""))
            #expect(try fixture.environment.useCases().night.status().status.dose2Undecided, "nothing changed")
            var confirmed = form
            confirmed["confirm"] = "end_night"
            let saved = try await client.execute(uri: "/ui/checkin", method: .post, headers: headers, body: WebTests.form(confirmed))
            #expect(saved.status == .ok && String(buffer: saved.body).contains("Check-in saved."))
            let night = try #require(try fixture.environment.useCases().records.nights(on: SessionKey(parsing: "2026-11-21")!).first)
            #expect(night.checkIn?.sleepQuality == 4 && night.checkIn?.notes == "woke, thirsty, a b,c")
            #expect(!night.session.isOpen)
        }
    }

    @Test(
        "a Wake Up from the event grid or a hand-made form asks on Tonight: Keep the night filled, End the night outlined",
        arguments: [["action": "wake"], ["action": "log", "event": "wake_final"]])
    func wakeAsks(fields: [String: String]) async throws {
        try await Self.night(at: WallClock.date(2026, 11, 22, 2, 30)) { fixture, client, _, headers, token in
            var form = fields
            form["csrf"] = token
            let asked = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(form))
            #expect(asked.status == .conflict)
            let html = String(buffer: asked.body)
            #expect(html.contains("Dose 2 is not taken yet: its window is open until 03:36"))
            #expect(html.contains("<a class=\"button primary\" href=\"/\" data-answer=\"safe\" autofocus>Keep the night</a>"))
            // Over the page at the top, its risky answer above the safe one and far from any control that opened it.
            #expect(html.contains("data-question-layer"))
            let risky = try #require(html.range(of: ">End the night</button>")).lowerBound
            let safe = try #require(html.range(of: ">Keep the night</a>")).lowerBound
            #expect(risky < safe)
            #expect(html.contains("value=\"end_night\">") && html.contains(">End the night</button>"))
            if let event = fields["event"] { #expect(html.contains("<input type=\"hidden\" name=\"event\" value=\"\(event)\">")) }
            #expect(try fixture.environment.useCases().night.status().status.wakeAt == nil)
            form["confirm"] = "end_night"
            let ended = try await client.execute(uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(form))
            #expect(ended.status == .seeOther)
            #expect(try fixture.environment.useCases().night.status().status.phase == .finalizing)
        }
    }

    @Test("Brief Wake is logged at once and never ends the night")
    func briefWake() async throws {
        try await Self.night(at: WallClock.date(2026, 11, 22, 0, 30)) { fixture, client, _, headers, token in
            let response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers, body: WebTests.form(["action": "log", "event": "wake_temp", "csrf": token]))
            #expect(response.status == .seeOther)
            let status = try fixture.environment.useCases().night.status().status
            #expect(status.phase == .beforeWindow && status.dose2Undecided)
        }
    }
}
