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

/// Paired devices expire (SPEC §5.6): unused for 90 days, or on the day chosen for a script's token; never during a
/// night the person has begun. Each request goes through the real router on a clock the test moves.
@Suite("HTTP: a device unused for 90 days stops working, never during an open night")
struct DeviceExpiryTests {
    static let day: TimeInterval = 86_400
    static let start = WallClock.date(2026, 11, 21, 12, 0)

    static func status(_ client: some TestClientProtocol, _ headers: HTTPFields) async throws -> HTTPResponse.Status {
        try await client.execute(uri: "/v1/status", method: .get, headers: headers).status
    }

    static func device(_ fixture: ServerFixture, _ name: String) throws -> DeviceRecord {
        try #require(try fixture.environment.useCases().devices.all().first { $0.name == name })
    }

    @Test("a device in use keeps working, its use written once a day; unused for 90 days it is refused as unpaired")
    func idleExpiry() async throws {
        let fixture = try ServerFixture(now: Self.start)
        try await fixture.test { client in
            #expect(try await Self.status(client, fixture.auth) == .ok)
            #expect(try Self.device(fixture, "test").lastUsedAt == Self.start)
            fixture.set(Self.start.addingTimeInterval(Self.day - 1))
            #expect(try await Self.status(client, fixture.auth) == .ok)
            #expect(try Self.device(fixture, "test").lastUsedAt == Self.start, "within a day of the last write, nothing is written")
            let lastUse = Self.start.addingTimeInterval(Self.day)
            fixture.set(lastUse)
            #expect(try await Self.status(client, fixture.auth) == .ok)
            #expect(try Self.device(fixture, "test").lastUsedAt == lastUse)
            // A second before the idle limit it works, and that use starts the 90 days again.
            let nearly = lastUse.addingTimeInterval(DeviceLifetime.idleLimit - 1)
            fixture.set(nearly)
            #expect(try await Self.status(client, fixture.auth) == .ok)
            fixture.set(nearly.addingTimeInterval(DeviceLifetime.idleLimit - 1))
            #expect(try await Self.status(client, fixture.auth) == .ok)
            let used = try Self.device(fixture, "test").lastUsedAt
            fixture.set(try #require(used).addingTimeInterval(DeviceLifetime.idleLimit))
            let refused = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth)
            #expect(refused.status == .unauthorized && ServerFixture.code(refused) == "401_DEVICE_NOT_REGISTERED")
            #expect(try Self.device(fixture, "test").lastUsedAt == used, "a refused request records no use")
            // The page says it too, and leads to pairing again.
            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: "dosetap_device=\(fixture.token)"])
            #expect(page.status == .unauthorized && String(buffer: page.body).contains("Not paired"))
        }
    }

    @Test("an expiry that falls while the person's night is open waits for the night to end, and that use does not renew it")
    func neverDuringANight() async throws {
        let fixture = try ServerFixture(now: Self.start)
        // The fixture's device was paired at the start and is never used; a tablet, paired later, takes the doses.
        let tabletToken = DeviceTokens.generate(.system)
        let later = StoreClock(now: Self.start.addingTimeInterval(60 * Self.day), machineTimeZoneID: "UTC", makeID: { "tablet" }, random: .system)
        _ = try fixture.database.addDevice(name: "tablet", tokenHash: DeviceTokens.hash(tabletToken), clock: later)
        let tablet: HTTPFields = [.authorization: "Bearer \(tabletToken)", .contentType: "application/json"]
        let expiry = Self.start.addingTimeInterval(DeviceLifetime.idleLimit)
        try await fixture.test { client in
            fixture.set(expiry.addingTimeInterval(-600))
            let dose1 = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: tablet, body: ByteBuffer(string: #"{"type": "dose1"}"#))
            #expect(dose1.status == .ok)
            // Ten minutes later the untouched device is 90 days idle, but Dose 2 is still to come: it works.
            fixture.set(expiry.addingTimeInterval(600))
            #expect(try await Self.status(client, fixture.auth) == .ok)
            #expect(try Self.device(fixture, "test").lastUsedAt == nil, "a use after the expiry does not renew the device")
            fixture.set(expiry.addingTimeInterval(-600 + 165 * 60))
            let dose2 = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: ByteBuffer(string: #"{"type": "dose2"}"#))
            #expect(dose2.status == .ok, "Dose 2 from the expired device, in the open night: \(String(buffer: dose2.body))")
            // The check-in closes the night; from then on the expired device is refused.
            let morning = expiry.addingTimeInterval(8 * 3_600)
            fixture.set(morning)
            let clock = StoreClock(now: morning, machineTimeZoneID: "America/New_York", makeID: { UUID().uuidString }, random: .system)
            _ = try fixture.database.ledger.perform(NightAction(.checkIn(MorningCheckIn())), clock: clock)
            #expect(try await Self.status(client, fixture.auth) == .unauthorized)
            #expect(try await Self.status(client, tablet) == .ok, "the tablet, in use, is not affected")
        }
    }

    @Test("a script's token with a chosen lifetime stops on its day; a lifetime outside 1–365 days pairs nothing")
    func chosenLifetime() async throws {
        let fixture = try ServerFixture(now: Self.start)
        let (script, token) = try fixture.environment.useCases().devices.pair(name: "script", expiresInDays: 1)
        #expect(script.expiresAt == Self.start.addingTimeInterval(Self.day))
        let headers: HTTPFields = [.authorization: "Bearer \(token)"]
        try await fixture.test { client in
            fixture.set(Self.start.addingTimeInterval(Self.day - 1))
            let before = try await Self.status(client, headers)
            fixture.set(Self.start.addingTimeInterval(Self.day))
            let after = try await Self.status(client, headers)
            #expect(before == .ok && after == .unauthorized, "\(before) then \(after)")
        }
        for days in [0, 366, -1] {
            #expect(throws: DoseError.self) { try fixture.environment.useCases().devices.pair(name: "bad \(days)", expiresInDays: days) }
        }
        #expect(try fixture.environment.useCases().devices.all().map(\.name).sorted() == ["script", "test"])
    }
}
