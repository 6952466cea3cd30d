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

@Suite("Alarm routes against the real router")
struct AlarmRouteTests {
    @Test("I'm up over the API answers what rang and is recorded with its surface; the alarm log reads by night and by date")
    func acknowledgeAndLog() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            var response = try await client.execute(uri: "/v1/alarm/log", method: .get, headers: fixture.auth)
            #expect(response.status == .notFound, "no night is open yet")
            response = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: ByteBuffer(string: #"{"type": "dose1"}"#))
            #expect(response.status == .ok)
            // The wake alarm rings at 01:15.
            fixture.set(WallClock.date(2026, 11, 22, 1, 15))
            try await ReminderEngine(environment: fixture.environment, deliveries: [EventHub()]).tick()
            fixture.set(WallClock.date(2026, 11, 22, 1, 16))
            response = try await client.execute(uri: "/v1/alarm/ack", method: .post, headers: fixture.auth, body: ByteBuffer(string: "{}"))
            let ack = ServerFixture.json(response)
            #expect(response.status == .ok && ack["surface"] as? String == "api")
            #expect((ack["answered"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["wake_alarm"])
            response = try await client.execute(uri: "/v1/alarm/log?date=2026-11-21", method: .get, headers: fixture.auth)
            let night = (ServerFixture.json(response)["nights"] as? [[String: Any]])?.first
            let texts = (night?["entries"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
            #expect(response.status == .ok && texts.contains("01:15 wake alarm → no page open; acknowledged 01:16 by “I'm up” on API"), "\(texts)")
            response = try await client.execute(uri: "/v1/alarm/log", method: .get, headers: fixture.auth)
            #expect(response.status == .ok && String(buffer: response.body).contains("acknowledged 01:16"))
            for (uri, body, problem) in [
                ("/v1/alarm/log?date=2026-02-30", nil, "date"), ("/v1/alarm/log?day=2026-11-21", nil, "day"),
                ("/v1/alarm/ack", #"{"via": "email"}"#, "via"), ("/v1/alarm/ack", #"{"surface": "push"}"#, "surface"),
            ] as [(String, String?, String)] {
                response = try await client.execute(
                    uri: uri, method: body == nil ? .get : .post, headers: fixture.auth, body: body.map { ByteBuffer(string: $0) })
                #expect(response.status == .badRequest && String(buffer: response.body).contains(problem), "\(uri) \(body ?? "")")
            }
        }
    }

    @Test("Clear All Data voids the VAPID key and every subscription; unpairing a device removes its subscriptions")
    func clearAndUnpair() throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 21, 0))
        let app = fixture.environment.useCases()
        let key = try app.alarms.vapid().publicKey
        #expect(try app.alarms.vapid().publicKey == key, "made once, then kept")
        let phone = try app.devices.pair(name: "phone").device
        let tablet = try app.devices.pair(name: "tablet").device
        let keys = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        for (device, path) in [(phone, "a"), (tablet, "b")] {
            _ = try app.alarms.subscribe(
                PushSubscriptionRecord(
                    endpoint: "https://push.example.org/\(path)", p256dh: keys, auth: "BTBZMqHH6r4Tts7J_aSIgg", expiresAt: nil, role: .alarm),
                device: device.id)
        }
        _ = try app.devices.revoke(tablet.id)
        #expect(try app.alarms.subscriptions().map(\.deviceName) == ["phone"])
        _ = try app.transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(try app.alarms.subscriptions().isEmpty)
        #expect(try app.alarms.vapid().publicKey != key, "a new key: browsers subscribed to the old one must subscribe again")
    }
}

@Suite("Settings' alarm section against the real router")
struct AlarmSettingsPageTests {
    @Test(
        "the alarm form saves re-fire and escalation without touching the other form's switches; the zone in force is always offered; a test alarm and a removal answer in words"
    )
    func alarmForm() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 21, 0))
        // A zone Foundation's list lacks: the select must still hold it, selected, or saving would change it.
        _ = try fixture.environment.useCases().settings.update([("time_zone", "Etc/UTC"), ("allow_snoozing", "false")])
        let pairing = PairingCodes()
        let app = Application(router: fixture.router(pairing: pairing))
        try await app.test(.router) { client in
            let cookie = try await WebTests.pair(client, pairing, now: fixture.time.now)
            var html = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(html.contains(#"<option value="Etc/UTC" selected>"#))
            #expect(
                html.contains("Alarms that reach a closed app") && html.contains("No phone takes push alarms yet.")
                    && html.contains("data-vapid-key=\"B"))
            let token = WebTests.csrf(in: html)
            var headers = cookie
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[HTTPField.Name("Origin")!] = "http://localhost"
            let fields = [
                "csrf": token, "switches": "escalation_enabled", "escalation_enabled": "true", "wake_alarm_refire_minutes": "3",
                "escalation_minutes": "230",
                "escalation_contact": "https://ntfy.sh/partner-topic", "escalation_contact_format": "ntfy",
            ]
            var response = try await client.execute(uri: "/ui/settings", method: .post, headers: headers, body: WebTests.form(fields))
            #expect(response.status == .seeOther)
            let settings = try fixture.environment.useCases().settings.current()
            #expect(settings.escalationEnabled && settings.wakeAlarmRefireMinutes == 3 && settings.escalationMinutes == 230)
            #expect(settings.escalationContact == "https://ntfy.sh/partner-topic" && !settings.allowSnoozing && settings.timeZoneID == "Etc/UTC")
            var bad = fields
            bad["escalation_contact"] = "ntfy.sh/partner-topic"
            response = try await client.execute(uri: "/ui/settings", method: .post, headers: headers, body: WebTests.form(bad))
            #expect(response.status == .badRequest && String(buffer: response.body).contains("escalation_contact"))

            // The test alarm with no channel but pages (the contact's URL is taken away: it is not reachable from here).
            _ = try fixture.environment.useCases().settings.update([("escalation_contact", "")])
            response = try await client.execute(uri: "/ui/alarm/test", method: .post, headers: headers, body: WebTests.form(["csrf": token]))
            html = String(buffer: response.body)
            #expect(response.status == .ok && html.contains("data-test-report") && html.contains("Open Tonight pages: none right now"))
            #expect(!html.contains(" ms"), "an open page's delivery time means nothing to a person")
            #expect(html.contains("No channel is set up: tonight&#39;s alarm would ring only on an open page."))
            response = try await client.execute(
                uri: "/ui/push/remove", method: .post, headers: headers, body: WebTests.form(["csrf": token, "id": "nothing"]))
            #expect(response.status == .notFound)
        }
    }
}
