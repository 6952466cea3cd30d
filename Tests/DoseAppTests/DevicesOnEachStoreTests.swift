import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseApp

@Suite("Paired devices and push subscriptions on each store")
struct DevicesOnEachStoreTests {
    static func subscription(_ index: Int) -> PushSubscriptionRecord {
        PushSubscriptionRecord(
            endpoint: "https://push.example.org/\(index)", p256dh: String(repeating: "B", count: 87), auth: String(repeating: "A", count: 22),
            expiresAt: nil, role: .alarm)
    }

    @Test("names stay unique among paired devices; five subscriptions a device; revoking takes its subscriptions", arguments: EachStore.kinds)
    func devices(_ kind: String) throws {
        let each = try EachStore(kind, at: WallClock.date(2026, 11, 21, 20, 0))
        defer { each.close() }
        let app = { each.environment.useCases() }
        let phone = try app().devices.pair(name: " phone ").device
        #expect(phone.name == "phone")
        #expect(throws: DoseError.self) { try app().devices.pair(name: "phone") }
        #expect(try app().devices.pair(name: "phone", uniqued: true).device.name == "phone 2")
        let tablet = try app().devices.pair(name: "tablet").device
        #expect(throws: DoseError.self) { try app().devices.rename(tablet.id, to: "phone") }
        #expect(throws: DoseError.self) { try app().devices.rename(tablet.id, to: String(repeating: "x", count: 61)) }
        #expect(try app().devices.rename(tablet.id, to: "kitchen").name == "kitchen")

        for index in 1...5 { _ = try app().alarms.subscribe(Self.subscription(index), device: phone.id) }
        #expect(throws: DoseError.self) { try app().alarms.subscribe(Self.subscription(6), device: phone.id) }
        // The same endpoint again replaces its keys and role, and counts once.
        var again = Self.subscription(1)
        again.role = .contact
        let replaced = try app().alarms.subscribe(again, device: phone.id)
        #expect(try app().alarms.subscriptions().count == 5 && app().alarms.subscriptions(role: .contact).map(\.subscription.id) == [replaced.id])
        _ = try app().alarms.subscribe(Self.subscription(7), device: tablet.id)
        #expect(try app().alarms.unsubscribe("https://push.example.org/2").deviceName == "phone")
        #expect(throws: DoseError.self) { try app().alarms.unsubscribe("https://push.example.org/2") }

        #expect(try app().devices.revoke("phone").revokedAt != nil)
        #expect(try app().alarms.subscriptions().map(\.deviceName) == ["kitchen"])
        #expect(try app().devices.all().map(\.name).sorted() == ["kitchen", "phone", "phone 2"])
        #expect(try app().devices.active().map(\.name).sorted() == ["kitchen", "phone 2"])
        #expect(throws: DoseError.self) { try app().devices.revoke("phone") }
        // A revoked name is free again.
        #expect(try app().devices.pair(name: "phone").device.name == "phone")
    }
}
