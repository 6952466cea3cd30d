import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import PostgresNIO
import Testing

@testable import DoseStore

private typealias F = StoreFixture

/// Two people of one PostgreSQL store who choose the same values: each gets what they would alone, and neither learns,
/// from a refusal, a conflict or a change, that the other has it (SPEC §5.6).
@Suite("PostgreSQL: values a person chooses are unique only among their own rows", .needsPostgres)
struct PersonIsolationTests {
    static func ledger(_ store: PostgresStore, _ person: String) -> NightLedger {
        NightLedger(repository: PostgresNightRepository(store: store, person: person))
    }

    @Test("the same client event id for two people: both recorded, each replay is the person's own, edits and deletes touch only theirs")
    func sameEventID() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.addPerson("other")
        let (alice, bob) = (Self.ledger(store, "local"), Self.ledger(store, "other"))
        let clock = TestClock(F.dose1)
        let shared = EventID(rawValue: "phone-7")
        let first = try alice.perform(NightAction(.dose1), clock: clock.store, eventID: shared)
        #expect(first.decision.event?.id == shared)
        // Bob's phone picks the same id: his dose is recorded as his own, not refused as "already recorded".
        clock.set(F.minutes(5))
        let second = try bob.perform(NightAction(.dose1), clock: clock.store, eventID: shared)
        #expect(second.decision.event?.id == shared)
        #expect(throws: EventAlreadyRecorded.self, "Alice's replay is recognised as hers") {
            try alice.perform(NightAction(.dose1), clock: clock.store, eventID: shared)
        }
        clock.set(F.minutes(10))
        _ = try bob.editEvent(shared, occurredAt: nil, note: .some("bob's note"), clock: clock.store)
        let aliceNight = try #require(try alice.status(clock: clock.store).session)
        let bobNight = try #require(try bob.status(clock: clock.store).session)
        #expect(aliceNight.events.first { $0.id == shared }?.note == nil, "Bob's edit did not reach Alice's dose")
        #expect(bobNight.events.first { $0.id == shared }?.note == "bob's note")
        #expect(aliceNight.events.first { $0.id == shared }?.occurredAt == F.dose1)
        // A logged event under one id for both; Bob deletes his.
        let bathroom = EventID(rawValue: "phone-8")
        clock.set(F.minutes(20))
        _ = try alice.perform(NightAction(.log(event: "bathroom")), clock: clock.store, eventID: bathroom)
        _ = try bob.perform(NightAction(.log(event: "bathroom")), clock: clock.store, eventID: bathroom)
        clock.set(F.minutes(30))
        _ = try bob.deleteEvent(bathroom, clock: clock.store)
        #expect(try alice.status(clock: clock.store).session?.events.map(\.id) == [shared, bathroom], "Bob's delete left Alice's event")
        #expect(try bob.status(clock: clock.store).session?.events.map(\.id) == [shared])
    }

    @Test("the same push endpoint for two people: each keeps a subscription of their own")
    func sameEndpoint() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.addPerson("other")
        let clock = TestClock(F.dose1).store
        let endpoint = "https://push.example.org/send/shared-endpoint-1"
        for person in ["local", "other"] {
            let app = UseCases(store: .postgres(store, person: person), clock: clock)
            let device = try app.devices.pair(name: "phone of \(person)").device
            let body: JSONValue = [
                "endpoint": .string(endpoint), "role": "alarm",
                "keys": ["p256dh": .string(Self.p256dh), "auth": .string(Self.auth)],
            ]
            let subscription = try BodyDecoder.decode(PushSubscriptionBody.self, from: body).subscription(targets: OutboundTargets())
            _ = try app.alarms.subscribe(subscription, device: device.id)
        }
        for person in ["local", "other"] {
            let app = UseCases(store: .postgres(store, person: person), clock: clock)
            let mine = try app.alarms.subscriptions(role: .alarm)
            #expect(mine.count == 1 && mine.first?.1 == "phone of \(person)", "\(person): \(mine.map(\.1))")
        }
    }

    static let p256dh = "BLWGUQbSOIJ0JdQ_0ShSswcExoObv6HrjWTiKJZPrjFIsOALpwiKaxw5MJg7S1fbkPAwr6xoysJeWyvRA1nA66s"
    static let auth = "MDEyMzQ1Njc4OWFiY2RlZg"
}
