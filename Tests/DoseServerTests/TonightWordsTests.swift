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

/// The smaller things issue 31's walk saw, each held by a test that fails without its fix: what the pages say.
@Suite("Pages say what is so: stale taps, the snackbar, not paired, dated medications, slept-through nights")
struct TonightWordsTests {
    @Test("a tap from an older page says what changed since")
    func staleTapSaysWhat() async throws {
        try await NightEndingWebTests.night(at: WallClock.date(2026, 11, 22, 2, 10)) { fixture, client, cookie, headers, token in
            let page = String(buffer: try await client.execute(uri: "/", method: .get, headers: cookie).body)
            _ = try fixture.environment.useCases().night.perform(NightAction(.log(event: "water")), from: .api)
            fixture.set(WallClock.date(2026, 11, 22, 2, 11))
            let response = try await client.execute(
                uri: "/ui/act", method: .post, headers: headers,
                body: WebTests.form(["action": "dose2", "spot": "primary", "revision": WebSafetyTests.revision(in: page), "csrf": token]))
            #expect(response.status == .conflict)
            let html = String(buffer: response.body)
            #expect(html.contains("Tonight changed just before that tap (Water was recorded for 02:10), so nothing was done."), "\(html)")
            #expect(try fixture.environment.useCases().night.status().status.dose2At == nil)
        }
    }

    @Test(
        "the undo snackbar is a sentence the page words from the kind; a link cannot put words of its own there",
        arguments: [
            ("dose2_skipped", "Dose 2 skipped."), ("dose1", "Dose 1 recorded."), ("bathroom", "Bathroom recorded."),
            ("Take%20more", "Event recorded."),
        ])
    func snackbar(did: String, sentence: String) async throws {
        try await NightEndingWebTests.night(at: WallClock.date(2026, 11, 22, 2, 10)) { _, client, cookie, _, _ in
            let html = String(
                buffer: try await client.execute(uri: "/?did=\(did)&until=2026-11-22T07:10:04.000Z", method: .get, headers: cookie).body)
            #expect(html.contains("<span role=\"status\">\(sentence)</span>"), "\(did)")
            #expect(!html.contains("skipped recorded") && !html.contains("Take more"))
        }
    }

    @Test("the not-paired page has no literal backticks")
    func notPaired() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        try await fixture.test { client in
            let html = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(html.contains("Not paired") && !html.contains("`"))
        }
    }

    @Test("recent medications are dated, not only timed; a past night's Details says 'that night'; the escalation choice fits")
    func datedAndWorded() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 8, 0))
        _ = try fixture.environment.useCases().medications.log(
            [MedicationInput(medicationID: "modafinil", amount: 100, unit: .mg, note: nil)], confirmations: [])
        try await WebSafetyTests.served(fixture) { client, cookie, _, _ in
            let medications = String(buffer: try await client.execute(uri: "/medications", method: .get, headers: cookie).body)
            #expect(medications.contains("<time>2026-11-22 08:00</time>"), "\(medications)")
            let settings = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(settings.contains(">225 min (15 min before the close)</option>"))
        }
    }

    @Test("a late Dose 2 on Details carries the warning mark, as on Tonight")
    func lateDetails() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 2, 40))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose2, confirmations: [.late]), from: .api)
        try await WebSafetyTests.served(fixture) { client, cookie, _, _ in
            let html = String(buffer: try await client.execute(uri: "/details", method: .get, headers: cookie).body)
            #expect(html.contains("<p class=\"outcome\">⚠ Dose 2 taken at 02:40 — 250 min after Dose 1: late (after the window)</p>"), "\(html)")
        }
    }

    @Test("a slept-through night is no dose on Details: a skip mark, not the dose spike, and worded slept through")
    func sleptThroughDetails() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 9, 0))
        try fixture.environment.useCases().night.settle()
        fixture.set(WallClock.date(2026, 11, 22, 20, 0))
        let night = try #require(try fixture.environment.useCases().records.nights(on: SessionKey(parsing: "2026-11-21")!).first)
        try await WebSafetyTests.served(fixture) { client, cookie, _, _ in
            let html = String(buffer: try await client.execute(uri: "/details?night=\(night.session.id)", method: .get, headers: cookie).body)
            #expect(html.contains("Slept through (window ran out)") && !html.contains("Dose 2 skipped"), "\(html)")
            #expect(html.contains("not taken: slept through"))
            #expect(html.components(separatedBy: "class=\"dose-mark\"").count == 2, "one dose drawn: Dose 1")
            #expect(html.contains("class=\"skip-mark\""))
            #expect(html.contains("No alarm went off that night.") || html.contains("alarm-log"))
            let history = String(buffer: try await client.execute(uri: "/history", method: .get, headers: cookie).body)
            #expect(history.contains("<span class=\"badge\">Slept through</span>"), "\(history)")
        }
    }
}

/// D18's last sentence over the API: every night by its own id.
@Suite("GET /v1/nights/:id")
struct NightByIDTests {
    @Test("two nights of one date are each reachable by id; an unknown id is 404, a date or a long text 400")
    func byID() async throws {
        let fixture = try ServerFixture.closedNight(checkInAt: WallClock.date(2026, 11, 22, 1, 20))
        let app = { fixture.environment.useCases() }
        // A second night of the same date, started with new_night from the API (shift work).
        fixture.set(WallClock.date(2026, 11, 22, 9, 30))
        _ = try app().night.perform(NightAction(.dose1, confirmations: [.newNight]), from: .api)
        let nights = try app().records.nights(on: SessionKey(parsing: "2026-11-21")!)
        #expect(nights.count == 2)
        try await fixture.test { client in
            for night in nights {
                let response = try await client.execute(uri: "/v1/nights/\(night.session.id)", method: .get, headers: fixture.auth)
                #expect(response.status == .ok)
                #expect(ServerFixture.json(response)["session_id"] as? String == night.session.id.rawValue)
            }
            #expect(try await client.execute(uri: "/v1/nights/no-such-night", method: .get, headers: fixture.auth).status == .notFound)
            #expect(try await client.execute(uri: "/v1/nights/2026-11-21", method: .get, headers: fixture.auth).status == .badRequest)
        }
    }
}

/// D17's link leads to the night whose dose blocks a new Dose 1, where its times can be corrected.
@Suite("Correcting a dose's time from Details")
struct CorrectTimeTests {
    @Test("Tonight's link opens that night; its Dose 2 corrected there moves the time a new Dose 1 is possible; bad times are refused")
    func correct() async throws {
        let fixture = try ServerFixture.closedNight(checkInAt: WallClock.date(2026, 11, 22, 6, 0))
        let app = { fixture.environment.useCases() }
        fixture.set(WallClock.date(2026, 11, 22, 7, 0))
        let night = try #require(try app().records.nights(on: SessionKey(parsing: "2026-11-21")!).first).session
        let dose2 = try #require(night.events.first { $0.kind == .dose2 })
        try await WebSafetyTests.served(fixture) { client, cookie, headers, token in
            let details = String(buffer: try await client.execute(uri: "/details?night=\(night.id)", method: .get, headers: cookie).body)
            #expect(details.contains("Correct the time of Dose 2") && details.contains(#"type="datetime-local" value="2026-11-22T01:20""#))
            let moved = try await client.execute(
                uri: "/ui/events/time", method: .post, headers: headers,
                body: WebTests.form(["csrf": token, "id": dose2.id.rawValue, "night": night.id.rawValue, "at": "2026-11-22T01:05"]))
            #expect(moved.status == .seeOther)
            let location = try #require(moved.headers[.location])
            let after = String(buffer: try await client.execute(uri: location, method: .get, headers: cookie).body)
            #expect(after.contains("Corrected: Dose 2 now at 01:05."), "\(after)")
            #expect(try fixture.environment.useCases().night.status().status.newDose1From == WallClock.date(2026, 11, 22, 9, 5))
            for bad in ["yesterday", "2026-11-22T25:00", "2026-11-22T09:00"] {
                let refused = try await client.execute(
                    uri: "/ui/events/time", method: .post, headers: headers,
                    body: WebTests.form(["csrf": token, "id": dose2.id.rawValue, "night": night.id.rawValue, "at": bad]))
                #expect(refused.status == .badRequest, "\(bad)")
            }
            #expect(
                try fixture.environment.useCases().night.status().status.newDose1From == WallClock.date(2026, 11, 22, 9, 5),
                "a refused correction changes nothing")
        }
    }
}

extension ServerFixture {
    /// A night of 2026-11-21: Dose 1 at 22:30, Dose 2 at 01:20, checked in at `checkInAt`; the clock left there.
    static func closedNight(checkInAt: Date) throws -> ServerFixture {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose1), from: .api)
        fixture.set(WallClock.date(2026, 11, 22, 1, 20))
        _ = try fixture.environment.useCases().night.perform(NightAction(.dose2), from: .api)
        fixture.set(checkInAt)
        _ = try fixture.environment.useCases().night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
        return fixture
    }
}
