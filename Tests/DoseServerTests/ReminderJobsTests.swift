import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DoseServer
@testable import DoseStore

/// Reminders as durable jobs on a shared store (issue 36): several instances over one database, each claiming what is
/// due, on a test clock; an instance "dies" by claiming (and logging) and then doing nothing more.
@Suite("reminder jobs: several instances, every reminder once, taken over when an instance dies", .serialized)
struct ReminderJobsTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)

    /// A second instance over the fixture's database: its own sites, engines, jobs and operator hook.
    static func secondInstance(_ fixture: SharedStoreFixture, hook: Recorder) throws -> PeopleSites {
        var base = AppEnvironment(
            store: .postgres(fixture.store, person: RecordStore.nobody), now: { fixture.time.now }, machineTimeZoneID: "America/New_York",
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        base.sleep = { _ in }
        return try #require(PeopleSites(environment: base, pairing: PairingCodes(store: fixture.store), deliveries: [hook], requestsPerMinute: 1_000))
    }

    /// Each notice as person/kind@instant.
    static func keys(_ notices: [ReminderNotice]) -> [String] {
        notices.map { "\($0.person ?? "?")/\($0.name)@\(ISO8601.string($0.fireAt))" }
    }

    /// The reminders a night's plan rings (fired, not missed, when every instant is visited in time), as `keys` gives them.
    static func planned(_ fixture: SharedStoreFixture, _ name: String) throws -> [String] {
        let app = fixture.environment(name).useCases()
        let night = try #require(try app.night.status().session)
        let person = try #require(fixture.people[name]?.id)
        return ReminderPlan.plan(for: night, settings: try app.settings.current()).map {
            "\(person)/\($0.kind.rawValue)@\(ISO8601.string($0.fireAt))"
        }
    }

    @Test(
        "two instances rounding at once through a whole night: each of two people's reminders reaches one of them, once", SharedStoreFixture.enabled)
    func twoInstancesOnce() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        let otherHook = Recorder()
        let other = try Self.secondInstance(fixture, hook: otherHook)
        for name in ["alice", "bob"] { _ = try fixture.environment(name).useCases().night.perform(NightAction(.dose1), from: .api) }
        let expected = try (Self.planned(fixture, "alice") + Self.planned(fixture, "bob")).sorted()
        #expect(expected.count >= 24, "a whole night's plan for each: \(expected)")
        // Every 20 seconds from just before the window to past its close, both instances claiming at the same instant.
        var now = Self.dose1.addingTimeInterval(149 * 60)
        while now <= Self.dose1.addingTimeInterval(241 * 60) {
            fixture.time.set(now)
            async let first = fixture.sites.jobs.round(waitForDeliveries: true)
            async let second = other.jobs.round(waitForDeliveries: true)
            _ = await (first, second)
            now = now.addingTimeInterval(20)
        }
        let delivered = Self.keys(fixture.operatorHook.all) + Self.keys(otherHook.all)
        #expect(delivered.sorted() == expected, "each once, none missing")
        #expect(!fixture.operatorHook.all.isEmpty || !otherHook.all.isEmpty)
        // Each within 20 s of its time (the step), never before it.
        for notice in fixture.operatorHook.all + otherHook.all {
            #expect(notice.fireAt <= Self.dose1.addingTimeInterval(241 * 60))
        }
        let night = try #require(try fixture.environment("alice").useCases().night.status().session?.id)
        let log = try fixture.environment("alice").useCases().alarms.log(session: night)
        #expect(log.reminders.count == expected.count / 2 && log.reminders.allSatisfy { !$0.missed }, "each logged once, as fired")
    }

    @Test(
        "an instance killed after claiming: another delivers within the lease (6 s), once; killed after logging: resumed, once",
        SharedStoreFixture.enabled)
    func takeover() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        for name in ["alice", "bob"] { _ = try fixture.environment(name).useCases().night.perform(NightAction(.dose1), from: .api) }
        let open = Self.dose1.addingTimeInterval(150 * 60)
        fixture.time.set(open)
        // The dead instance claims both windows opening, logs Alice's (as its delivery would first), and stops.
        let claimed = try fixture.store.claimReminderJobs(owner: "dead", now: open, lease: ReminderJobs.lease, limit: 10).claimed
        #expect(Set(claimed.map(\.person)) == ["person-alice", "person-bob"] && claimed.allSatisfy { $0.kind == "window_open" })
        let alices = try #require(claimed.first { $0.person == "person-alice" })
        let taken = try fixture.environment("alice").useCases().reminders.takeClaimed([alices.logKey], resuming: [])
        #expect(taken.fire.map(\.kind) == [.windowOpen])
        // Before the lease runs out no one else touches them.
        fixture.time.set(open.addingTimeInterval(5.9))
        #expect(await fixture.sites.jobs.round(waitForDeliveries: true) == 0)
        #expect(fixture.operatorHook.all.isEmpty)
        // At 6 s the live instance takes both over: Bob's as new, Alice's as resumed (logged, not logged again).
        fixture.time.set(open.addingTimeInterval(6))
        #expect(await fixture.sites.jobs.round(waitForDeliveries: true) == 2)
        #expect(
            Self.keys(fixture.operatorHook.all).sorted() == [
                "person-alice/window_open@\(ISO8601.string(open))", "person-bob/window_open@\(ISO8601.string(open))",
            ])
        let alicesLog = try fixture.environment("alice").useCases().alarms.log(session: alices.night)
        #expect(alicesLog.reminders.filter { $0.kind == .windowOpen }.count == 1, "logged once")
        // Nothing more, ever: both jobs are done.
        fixture.time.set(open.addingTimeInterval(30))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        #expect(fixture.operatorHook.all.count == 2)
    }

    @Test("a resumed reminder skips the channels that accepted it before the instance died", SharedStoreFixture.enabled)
    func resumedSkipsAcceptedChannels() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        _ = try fixture.environment("alice").useCases().night.perform(NightAction(.dose1), from: .api)
        let open = Self.dose1.addingTimeInterval(150 * 60)
        fixture.time.set(open)
        let job = try #require(try fixture.store.claimReminderJobs(owner: "dead", now: open, lease: ReminderJobs.lease, limit: 10).claimed.first)
        let environment = fixture.environment("alice")
        _ = try environment.useCases().reminders.takeClaimed([job.logKey], resuming: [])
        // It reached the operator's hook, and died before finishing the job.
        let log = DeliveryLog(recordingTo: environment)
        var notice = ReminderNotice(kind: .windowOpen, fireAt: open, sessionID: job.night.rawValue)
        notice.person = job.person
        log.record(notice, channel: .page, target: "recorder", attempt: 1, outcome: .accepted, started: .now)
        await DeliveryLog.flush()
        fixture.time.set(open.addingTimeInterval(6))
        #expect(await fixture.sites.jobs.round(waitForDeliveries: true) == 1)
        #expect(fixture.operatorHook.all.isEmpty, "the hook had it already")
        fixture.time.set(open.addingTimeInterval(20))
        #expect(await fixture.sites.jobs.round(waitForDeliveries: true) == 0, "the job is done")
    }

    @Test(
        "a graceful shutdown gives its leases back at once; a Dose 2 cancels what was planned; a setting plans again",
        SharedStoreFixture.enabled)
    func releaseCancelAndReplan() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        _ = try fixture.environment("alice").useCases().night.perform(NightAction(.dose1), from: .api)
        let open = Self.dose1.addingTimeInterval(150 * 60)
        fixture.time.set(open)
        #expect(try fixture.store.claimReminderJobs(owner: "stopping", now: open, lease: ReminderJobs.lease, limit: 10).claimed.count == 1)
        try fixture.store.releaseReminderLeases(owner: "stopping")
        #expect(await fixture.sites.jobs.round(waitForDeliveries: true) == 1, "taken at once, not after the lease")
        #expect(fixture.operatorHook.kinds == [.windowOpen])
        // A setting that moves the target plans again (within a round): the wake alarm follows the new target.
        _ = try fixture.environment("alice").useCases().settings.update([("target_interval", "180")])
        fixture.time.set(open.addingTimeInterval(1))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        fixture.time.set(Self.dose1.addingTimeInterval(165 * 60))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        #expect(fixture.operatorHook.kinds == [.windowOpen], "no wake alarm at 165 once the target is 180")
        fixture.time.set(Self.dose1.addingTimeInterval(175 * 60))
        await fixture.sites.jobs.round(waitForDeliveries: true)
        #expect(fixture.operatorHook.kinds == [.windowOpen, .preAlarm])
        // Dose 2: nothing more rings, and no job is left pending.
        _ = try fixture.environment("alice").useCases().night.perform(NightAction(.dose2), from: .api)
        for minutes in [180.0, 182, 210, 240] {
            fixture.time.set(Self.dose1.addingTimeInterval(minutes * 60))
            await fixture.sites.jobs.round(waitForDeliveries: true)
        }
        #expect(fixture.operatorHook.kinds == [.windowOpen, .preAlarm])
        let pending = try fixture.store.claimReminderJobs(owner: "probe", now: Self.dose1.addingTimeInterval(600 * 60), lease: 1, limit: 100)
        #expect(pending.claimed.isEmpty && pending.nextDue == nil)
    }

    @Test("/ready: 503 until this instance has claimed, 200 while it claims; /health names the database's state", SharedStoreFixture.enabled)
    func readiness() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        try await fixture.test { client in
            let before = try await client.execute(uri: "/ready", method: .get)
            #expect(before.status == .serviceUnavailable && ServerFixture.json(before)["claiming"] as? Bool == false)
            await fixture.sites.jobs.round()
            let ready = try await client.execute(uri: "/ready", method: .get)
            #expect(ready.status == .ok && ServerFixture.json(ready)["ready"] as? Bool == true, "\(String(buffer: ready.body))")
            #expect(ServerFixture.json(ready)["database"] as? String == "reachable")
            fixture.time.set(Self.dose1.addingTimeInterval(ReminderJobs.lease))
            #expect(try await client.execute(uri: "/ready", method: .get).status == .serviceUnavailable, "no round for a lease: not claiming")
            let health = ServerFixture.json(try await client.execute(uri: "/health", method: .get))
            #expect(health["ok"] as? Bool == true && health["database"] as? String == "reachable")
        }
    }

    @Test(
        "behind a proxy the operator trusts each client counts apart, by the address the proxy appended last; from anyone else, loopback included, the header is ignored",
        arguments: [
            ("127.0.0.1", "203.0.113.7", "203.0.113.7"), ("127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"),
            ("::1", "2001:db8::5", "2001:db8::5"), ("127.0.0.1", nil, "127.0.0.1"), ("127.0.0.1", " , ", "127.0.0.1"),
            ("192.0.2.10", "203.0.113.7", "192.0.2.10"), (nil, "203.0.113.7", "unknown"),
            ("10.1.2.3", "203.0.113.7", "203.0.113.7"), ("10.1.2.3", "203.0.113.7, 198.51.100.9", "198.51.100.9"),
            ("11.0.0.1", "203.0.113.7", "11.0.0.1"), ("127.0.0.2", "203.0.113.7", "127.0.0.2"),
            ("::ffff:127.0.0.1", "203.0.113.7", "203.0.113.7"),
        ] as [(String?, String?, String)])
    func clientAddress(peer: String?, forwardedFor: String?, counted: String) throws {
        let trusted = try ["127.0.0.1", "::1/128", "10.0.0.0/8"].map { try AddressRange.parse($0) }
        #expect(DoseRequestContext.clientAddress(peer: peer, forwardedFor: forwardedFor, trusting: trusted) == counted)
        // With no proxy named, the default, no peer's header is believed: a program on this machine could send any.
        #expect(DoseRequestContext.clientAddress(peer: peer, forwardedFor: forwardedFor, trusting: []) == (peer ?? "unknown"))
    }

    @Test(
        "a trusted proxy is an address or a CIDR block; anything else is refused by name",
        arguments: ["localhost", "10.0.0.0/33", "::1/129", "10.0.0.0/x", "", "10.0.0/8", "1.2.3.4/8/8"])
    func badTrustedProxy(text: String) {
        #expect {
            _ = try AddressRange.parse(text)
        } throws: { error in
            "\(error)".contains("trusted-proxy")
        }
    }

    @Test("the store's link and push keys are made once when several people's first reminders ask for them at once", SharedStoreFixture.enabled)
    func oneKeyForEveryone() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1, names: ["alice", "bob", "carol"])
        let environments = ["alice", "bob", "carol"].map { fixture.environment($0) }
        let made = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for environment in environments + environments + environments {
                group.addTask {
                    let app = environment.useCases()
                    return (
                        try environment.store.actionLinkSecret(clock: app.clock),
                        try environment.store.vapidPrivateKey(clock: app.clock, isValidKey: { _ in true })
                    )
                }
            }
            return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
        }
        #expect(Set(made.map(\.0)).count == 1 && Set(made.map(\.1)).count == 1, "one key each, whoever asked first: \(made.count) asked")
        let app = environments[0].useCases()
        #expect(try environments[0].store.actionLinkSecret(clock: app.clock) == made[0].0, "and it is the one kept")
    }

    /// One person's Clear All Data deletes that person's records and nothing of the service's: the link and push keys
    /// everyone's reminders are signed with, and the run log that explains everyone's outages, stay as they were.
    @Test("one person's Clear All keeps the store's keys and run log", SharedStoreFixture.enabled)
    func clearAllKeepsTheServiceTables() throws {
        let fixture = try SharedStoreFixture(now: Self.dose1, names: ["alice", "bob"])
        let alice = fixture.environment("alice").useCases()
        let bob = fixture.environment("bob").useCases()
        let link = try fixture.environment("alice").store.actionLinkSecret(clock: alice.clock)
        let push = try fixture.environment("alice").store.vapidPrivateKey(clock: alice.clock, isValidKey: { _ in true })
        let run = try alice.reminders.serverStarted()
        _ = try bob.night.perform(NightAction(.dose1), from: .api)
        let cleared = try bob.transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(cleared.deleted["dose_events"] == 1 && cleared.remaining.values.allSatisfy { $0 == 0 }, "Bob's records are gone: \(cleared)")
        #expect(try bob.night.status().session == nil, "and his night with them")
        #expect(try fixture.environment("bob").store.actionLinkSecret(clock: bob.clock) == link, "the link key is the store's, kept")
        #expect(try fixture.environment("alice").store.vapidPrivateKey(clock: alice.clock, isValidKey: { _ in true }) == push, "so is the push key")
        let runs = try fixture.store.transaction(readOnly: true) { try $0.rows("SELECT id FROM server_runs").map { try $0.decode(String.self) } }
        #expect(runs == [run], "and the run log")
    }
}
