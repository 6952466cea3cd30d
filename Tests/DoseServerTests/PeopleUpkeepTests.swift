import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import DoseServer
@testable import DoseStore

/// The one upkeep loop each instance of a shared store runs for everyone (issue 36): the stream of the people with a page
/// open here, the ladder of the few who have one, everyone's refill a slice at a time, one run per instance, done jobs
/// purged. Driven a round at a time on a test clock.
@Suite("one upkeep per instance of a shared store, whatever the number of people", .serialized)
struct PeopleUpkeepTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)

    @Test(
        "a page open at one instance hears within a round of a change recorded at another; closed, its person is no longer watched",
        SharedStoreFixture.enabled)
    func pagesAcrossInstances() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        let other = try ReminderJobsTests.secondInstance(fixture, hook: Recorder())
        let alice = try #require(fixture.people["alice"]?.id)
        let hub = try #require(fixture.sites.site(alice).channels.configured.first as? EventHub)
        #expect(fixture.sites.watched.withLock { $0 }.isEmpty, "no page open, no one watched")
        let (page, frames) = await hub.subscribe(device: nil)
        #expect(fixture.sites.watched.withLock { $0 } == [alice], "Alice's page is open here")
        var state = UpkeepState()
        await fixture.sites.upkeepRound(&state, now: fixture.time.now)
        _ = try other.site(alice).environment.useCases().night.perform(NightAction(.dose1), from: .api)
        // A quarter second later: well inside the 2 s full read, so only the moved night version can make it read.
        fixture.time.advance(seconds: 0.25)
        await fixture.sites.upkeepRound(&state, now: fixture.time.now)
        fixture.time.advance(seconds: 0.25)
        await fixture.sites.upkeepRound(&state, now: fixture.time.now)
        await hub.unsubscribe(page)
        var events: [String] = []
        for await frame in frames { events.append(frame) }
        #expect(events.count == 1 && events.first?.hasPrefix("event: status") == true, "told once, of Dose 1 at the other instance: \(events)")
        #expect(fixture.sites.watched.withLock { $0 }.isEmpty, "the page closed")
    }

    @Test(
        "a site idle for 10 minutes is let go unless a page of its person is open here; the next request makes it again", SharedStoreFixture.enabled)
    func idleSites() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        let alice = try #require(fixture.people["alice"]?.id)
        let hub = try #require(fixture.sites.site(alice).channels.configured.first as? EventHub)
        _ = fixture.sites.site(try #require(fixture.people["bob"]?.id))
        // The stream is kept: dropping it closes the page.
        let (page, frames) = await hub.subscribe(device: nil)
        fixture.time.advance(seconds: PeopleSites.siteKept - 1)
        var state = UpkeepState()
        await fixture.sites.upkeepRound(&state, now: fixture.time.now)
        #expect(fixture.sites.siteCount == 2, "both were needed within 10 minutes")
        fixture.time.advance(seconds: 31)
        await fixture.sites.upkeepRound(&state, now: fixture.time.now)
        #expect(fixture.sites.siteCount == 1, "Bob's let go, Alice's kept for her open page")
        await hub.unsubscribe(page)
        for await _ in frames {}
        try await fixture.test { client in
            let status = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth("bob"))
            #expect(status.status == .ok, "Bob's next request is answered by a site made again")
        }
        #expect(fixture.sites.siteCount == 2)
    }

    @Test(
        "sites are kept in one registry with a bound: past it the one asked for least lately goes, never one with a page open",
        SharedStoreFixture.enabled)
    func boundedSites() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1, names: ["alice", "bob", "carol", "dan"], siteLimit: 2)
        let alice = try #require(fixture.people["alice"]?.id)
        let hub = try #require(fixture.sites.site(alice).channels.configured.first as? EventHub)
        let (page, frames) = await hub.subscribe(device: nil)
        #expect(fixture.sites.watched.withLock { $0 } == [alice])
        try await fixture.test { client in
            for name in ["bob", "carol", "dan", "bob"] {
                fixture.time.advance(seconds: 1)
                let status = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth(name))
                #expect(status.status == .ok, "\(name)'s request is answered, their site made again if it was let go")
                #expect(fixture.sites.siteCount <= 2, "never more than the bound: \(fixture.sites.siteCount)")
            }
        }
        let kept = try #require(fixture.sites.site(alice).channels.configured.first as? EventHub)
        #expect(kept === hub, "Alice's site, whose page is open, was never let go")
        await hub.unsubscribe(page)
        for await _ in frames {}
    }

    @Test(
        "the refill reminder of the one person who keeps a supply goes out once from two instances' upkeep, within its 10-minute round",
        SharedStoreFixture.enabled)
    func refillByUpkeep() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 9, 0))
        let otherHook = Recorder()
        let other = try ReminderJobsTests.secondInstance(fixture, hook: otherHook)
        _ = try fixture.environment("alice").useCases().supply.logRefill(bottles: nil, ml: 36, at: nil, reason: nil)
        #expect(try fixture.store.peopleKeepingASupply() == ["person-alice"], "Bob keeps none, so his records are never read for it")
        var mine = UpkeepState()
        var theirs = UpkeepState()
        for minute in 0..<10 {
            fixture.time.set(WallClock.date(2026, 11, 21, 10, 5).addingTimeInterval(Double(minute) * 60))
            await fixture.sites.upkeepRound(&mine, now: fixture.time.now, waitForDeliveries: true)
            await other.upkeepRound(&theirs, now: fixture.time.now, waitForDeliveries: true)
        }
        let refills = (fixture.operatorHook.all + otherHook.all).filter(\.isRefill)
        #expect(refills.count == 1 && refills.first?.person == "person-alice", "\(refills.map(\.message))")
        #expect(refills.first?.message.contains("4 nights left") == true)
    }

    @Test("done jobs are purged once older than the cutoff; pending ones stay whatever their age", SharedStoreFixture.enabled)
    func purge() throws {
        let fixture = try SharedStoreFixture(now: Self.dose1)
        _ = try fixture.environment("alice").useCases().night.perform(NightAction(.dose1), from: .api)
        func jobs() throws -> [String] {
            try fixture.store.transaction(readOnly: true, seeing: .scheduler) { session in
                try session.rows("SELECT state FROM reminder_jobs ORDER BY fire_at").map { try $0.decode(String.self) }
            }
        }
        let planned = try jobs()
        #expect(planned.count >= 5 && planned.allSatisfy { $0 == "pending" }, "\(planned)")
        try fixture.store.transaction(seeing: .scheduler) { session in
            try session.execute(
                "UPDATE reminder_jobs SET state = 'sent' WHERE fire_at = (SELECT min(fire_at) FROM reminder_jobs)")
        }
        #expect(try fixture.store.purgeReminderJobs(doneBefore: Self.dose1) == 0, "nothing was done before Dose 1")
        #expect(try fixture.store.purgeReminderJobs(doneBefore: Self.dose1.addingTimeInterval(3 * 86_400)) == 1, "the sent one")
        #expect(try jobs() == Array(planned.dropFirst()), "the pending ones stay")
    }

    @Test("one run in the run log per instance, however many people it serves; marked stopped when the upkeep stops", SharedStoreFixture.enabled)
    func oneRunPerInstance() async throws {
        let fixture = try SharedStoreFixture(now: Self.dose1, names: ["alice", "bob", "carol"])
        func runs() throws -> [(String, Bool)] {
            try fixture.store.transaction(readOnly: true) { session in
                try session.rows("SELECT id, stopped_at IS NOT NULL FROM server_runs").map { try $0.decode((String, Bool).self) }
            }
        }
        let upkeep = Task { await fixture.sites.runUpkeep() }
        var started = try runs()
        for _ in 0..<2_000 where started.isEmpty {
            await Task.yield()
            started = try runs()
        }
        upkeep.cancel()
        await upkeep.value
        let kept = try runs()
        #expect(kept.count == 1 && kept.first?.1 == true, "one run for three people, stopped: \(kept)")
    }

    @Test(
        "refills are looked at a slice a minute, everyone once a round",
        arguments: [(0, 10), (1, 10), (9, 10), (10, 10), (11, 10), (25, 10), (1_000, 10), (10_001, 10)])
    func refillSlices(count: Int, round: Int) {
        var next = 0
        var zero = 0
        var seen = [Int](repeating: 0, count: count)
        for _ in 0..<round {
            let slice = UpkeepState.refillSlice(of: count, from: &next, round: round)
            #expect(slice.count <= (count + round - 1) / round && slice.count >= count / round, "nearly equal slices")
            for index in slice { seen[index] += 1 }
        }
        #expect(seen.allSatisfy { $0 == 1 }, "each of \(count) once in \(round) minutes")
        #expect(
            UpkeepState.refillSlice(of: count, from: &next, round: round) == UpkeepState.refillSlice(of: count, from: &zero, round: round),
            "and round again")
    }
}
