import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing

@testable import DoseServer
@testable import DoseStore

/// Records deliveries, and logs each as accepted by a page (so the alarm log has something to show).
final class Recorder: ReminderDelivery {
    private let notices = Mutex<[ReminderNotice]>([])
    private let changes = Mutex<[Int]>([])
    let audience: ReminderAudience
    init(audience: ReminderAudience = .sleeper) { self.audience = audience }
    func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        let channel: AlarmChannel = audience == .sleeper ? .page : .ntfy
        // As every channel does: what an instance that died delivered already is not delivered again.
        if log.deliveredBefore(notice, channel: channel, target: "recorder") { return }
        notices.withLock { $0.append(notice) }
        log.record(notice, channel: channel, target: "recorder", attempt: 1, outcome: .accepted, started: .now)
    }
    func statusChanged(revision: Int) async { changes.withLock { $0.append(revision) } }
    var revisions: [Int] { changes.withLock { $0 } }
    var kinds: [ReminderKind] { notices.withLock { $0.compactMap(\.kind) } }
    var all: [ReminderNotice] { notices.withLock { $0 } }
}

@Suite("Reminder engine with an injected clock")
struct ReminderEngineTests {
    /// Steps the clock a minute at a time from `from` to `to`, ticking each time.
    static func run(_ engine: ReminderEngine, _ fixture: ServerFixture, from: Date, to: Date) async throws {
        var now = from
        while now <= to {
            fixture.set(now)
            try await engine.tick()
            now = now.addingTimeInterval(60)
        }
    }

    static func act(_ fixture: ServerFixture, _ kind: NightAction.Kind, at date: Date) throws {
        fixture.set(date)
        _ = try fixture.environment.useCases().night.perform(NightAction(kind), from: .api)
    }

    @Test("the right notices fire once, in order; a snooze moves the alarm; Dose 2 cancels the rest")
    func night() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let recorder = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [recorder])
        try Self.act(fixture, .dose1, at: WallClock.date(2026, 11, 21, 22, 30))
        try await Self.run(engine, fixture, from: WallClock.date(2026, 11, 21, 22, 30), to: WallClock.date(2026, 11, 22, 1, 11))
        #expect(recorder.kinds == [.windowOpen, .preAlarm])
        try Self.act(fixture, .snooze, at: WallClock.date(2026, 11, 22, 1, 12))
        try await Self.run(engine, fixture, from: WallClock.date(2026, 11, 22, 1, 12), to: WallClock.date(2026, 11, 22, 1, 22))
        // The alarm planned for 01:15 moved to 01:22.
        #expect(recorder.kinds == [.windowOpen, .preAlarm, .wakeAlarm])
        try await Self.run(engine, fixture, from: WallClock.date(2026, 11, 22, 1, 23), to: WallClock.date(2026, 11, 22, 1, 24))
        #expect(recorder.kinds.last == .followUp1)
        try Self.act(fixture, .dose2, at: WallClock.date(2026, 11, 22, 1, 25))
        try await Self.run(engine, fixture, from: WallClock.date(2026, 11, 22, 1, 25), to: WallClock.date(2026, 11, 22, 3, 0))
        #expect(recorder.kinds == [.windowOpen, .preAlarm, .wakeAlarm, .followUp1])
    }

    @Test("30 nights on an injected clock: every night's reminders are delivered, and what the engine keeps in memory stays flat")
    func thirtyNights() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 10, 1, 22, 30))
        let recorder = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [recorder])
        var keptAfterTwentyNights = 0
        for day in 0..<30 {
            let evening = WallClock.date(2026, 10, 1, 22, 30).addingTimeInterval(Double(day) * 86_400)
            try Self.act(fixture, .dose1, at: evening)
            try await Self.run(engine, fixture, from: evening, to: evening.addingTimeInterval(170 * 60))
            try Self.act(fixture, .dose2, at: evening.addingTimeInterval(171 * 60))
            try Self.act(fixture, .checkIn(MorningCheckIn()), at: evening.addingTimeInterval(9 * 3600))
            if day == 19 { keptAfterTwentyNights = await engine.delivered.count }
        }
        #expect(recorder.all.count >= 30 * 4, "every night rang: \(recorder.all.count) notices")
        let kept = await engine.delivered
        #expect(keptAfterTwentyNights == ReminderEngine.deliveredLimit && kept.count == ReminderEngine.deliveredLimit)
        #expect(kept.last == recorder.all.last)
    }

    @Test("the engine waits through the environment's sleep: a quarter second between ticks, never on a real clock")
    func runWaitsThroughTheEnvironment() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        var environment = fixture.environment
        let waits = Mutex<[Duration]>([])
        environment.sleep = { duration in
            // The fifth wait ends the run, as a cancelled task's sleep does.
            if waits.withLock({
                $0.append(duration)
                return $0.count
            }) == 5 {
                throw CancellationError()
            }
        }
        await ReminderEngine(environment: environment, deliveries: []).run()
        #expect(waits.withLock { $0 } == Array(repeating: .milliseconds(250), count: 5))
    }

    @Test("pairing codes and rate-limit windows are bounded however long the server runs")
    func tablesAreBounded() async throws {
        let pairing = PairingCodes()
        let start = WallClock.date(2026, 10, 1, 12, 0)
        for minute in 0..<(30 * 24 * 60) where minute % 7 == 0 {
            _ = await pairing.issue(now: start.addingTimeInterval(Double(minute) * 60), random: .system)
        }
        #expect(await pairing.outstanding <= PairingCodes.outstandingLimit)
        for burst in 0..<200 { _ = await pairing.issue(now: start.addingTimeInterval(Double(burst)), random: .system) }
        #expect(await pairing.outstanding == PairingCodes.outstandingLimit)
        let limiter = RateLimiter(limit: 240)
        for index in 0..<5_000 { _ = await limiter.admit("device-\(index)", at: start.addingTimeInterval(Double(index) / 10)) }
        #expect(await limiter.trackedCount <= RateLimiter.tracked)
    }

    @Test("after a restart nothing fires twice; reminders missed while down are logged as missed, not fired late")
    func restart() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try Self.act(fixture, .dose1, at: WallClock.date(2026, 11, 21, 22, 30))
        let first = Recorder()
        try await Self.run(
            ReminderEngine(environment: fixture.environment, deliveries: [first]), fixture,
            from: WallClock.date(2026, 11, 22, 0, 59), to: WallClock.date(2026, 11, 22, 1, 0))
        #expect(first.kinds == [.windowOpen])
        // Down from 01:01 to 01:16: the pre-alarm (01:10) is missed; the wake alarm (01:15) is within 2 minutes.
        let second = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [second])
        fixture.set(WallClock.date(2026, 11, 22, 1, 16, 30))
        let due = try await engine.tick()
        #expect(due.missed.map(\.kind) == [.preAlarm])
        #expect(second.kinds == [.wakeAlarm])
        try await engine.tick()
        #expect(second.kinds == [.wakeAlarm])
    }

    @Test("a webhook receiver on loopback sees the notices, after a retry when it first fails; ntfy format too")
    func webhook() async throws {
        let received = Mutex<[String]>([])
        let failures = Mutex(1)
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 10_000)
            if failures.withLock({ value in
                defer { value -= 1 }
                return value > 0
            }) {
                return .internalServerError
            }
            received.withLock { $0.append((request.headers[HTTPField.Name("Title")!] ?? "json") + " " + String(buffer: body)) }
            if let actions = request.headers[HTTPField.Name("Actions")!] { received.withLock { $0.append("actions " + actions) } }
            return .ok
        }
        let port = Mutex(0)
        let started = AsyncStream<Void>.makeStream()
        let receiver = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                port.withLock { $0 = channel.localAddress?.port ?? 0 }
                started.continuation.yield()
            })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await receiver.runService() }
            for await _ in started.stream { break }
            let url = "http://127.0.0.1:\(port.withLock { $0 })/hook"
            let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
            let json = WebhookDelivery(url: url, format: .json, environment: fixture.environment, backoff: [.zero, .zero])
            let ntfy = WebhookDelivery(url: url, format: .ntfy, environment: fixture.environment, backoff: [.zero])
            let engine = ReminderEngine(environment: fixture.environment, deliveries: [json, ntfy], linkBase: "http://bedroom.local:8080")
            try Self.act(fixture, .dose1, at: WallClock.date(2026, 11, 21, 22, 30))
            fixture.set(WallClock.date(2026, 11, 22, 1, 0))
            try await engine.tick()
            group.cancelAll()
        }
        let bodies = received.withLock { $0 }
        #expect(bodies.count == 3)
        #expect(
            bodies.contains {
                $0.hasPrefix("json ") && $0.contains("\"kind\":\"window_open\"") && $0.contains("\"take\":\"http://bedroom.local:8080/a/take.")
            })
        // ntfy buttons open the link's page (which asks once more), never act unseen.
        let buttons = bodies.first { $0.hasPrefix("actions ") } ?? ""
        #expect(buttons.hasPrefix("actions view, Take Dose 2, http://bedroom.local:8080/a/take."))
        #expect(
            buttons.contains("; view, Snooze, http://bedroom.local:8080/a/snooze.")
                && buttons.contains("; view, Skip Dose 2, http://bedroom.local:8080/a/skip."))
        #expect(bodies.contains { $0 == "DoseTap The Dose 2 window is open." })
    }

    @Test("a change from any surface (here the ledger, as the CLI writes) reaches open pages once; no change, no event")
    func statusChanges() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        let recorder = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [recorder])
        try await engine.tick()
        #expect(recorder.revisions.isEmpty, "the first tick only learns the revision")
        try Self.act(fixture, .dose1, at: WallClock.date(2026, 11, 21, 22, 31))
        try await engine.tick()
        try await engine.tick()
        let afterDose1 = try fixture.environment.useCases().night.status().revision
        #expect(recorder.revisions == [afterDose1])
        try Self.act(fixture, .log(event: "bathroom"), at: WallClock.date(2026, 11, 21, 23, 40))
        try await engine.tick()
        #expect(recorder.revisions.count == 2 && recorder.revisions.last != afterDose1)
        #expect(recorder.revisions.last == (try fixture.environment.useCases().night.status().revision))
        let hub = EventHub()
        let (_, stream) = await hub.subscribe()
        await hub.statusChanged(revision: 42)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == "event: status\ndata: {\"revision\":\"42\",\"type\":\"status\"}\n\n")
    }

    @Test("open pages get reminders as server-sent events")
    func serverSentEvents() async throws {
        let hub = EventHub()
        let (_, stream) = await hub.subscribe()
        #expect(await hub.count == 1)
        let log = DeliveryLog(now: { WallClock.date(2026, 11, 22, 1, 15) }, persist: { _ in })
        await hub.deliver(ReminderNotice(kind: .wakeAlarm, fireAt: WallClock.date(2026, 11, 22, 1, 15), sessionID: "s"), log: log)
        #expect(log.all.map(\.outcome) == [.accepted] && log.all.first?.target == "1 open page")
        var iterator = stream.makeAsyncIterator()
        let frame = await iterator.next()
        #expect(frame?.hasPrefix("event: reminder\ndata: {") == true)
        #expect(frame?.contains("\"kind\":\"wake_alarm\"") == true)
    }

    @Test("every open stream gets a keep-alive comment every 40 rounds of the watch (10 s), so a closed page's stream fails a write and ends")
    func keepAlive() async throws {
        // The hub's own watch waits at its first sleep for as long as the test runs; the test runs the rounds itself.
        let (parked, gate) = AsyncStream<Void>.makeStream()
        defer { gate.finish() }
        let hub = EventHub(sleep: { _ in for await _ in parked {} })

        // What a stream holds once it is closed: everything written to it, then its end.
        func frames(after rounds: ClosedRange<Int>) async -> [String] {
            let (id, stream) = await hub.subscribe()
            for round in rounds { await hub.watchRound(round) }
            await hub.unsubscribe(id)
            var written: [String] = []
            for await frame in stream { written.append(frame) }
            return written
        }
        #expect(await frames(after: 1...(EventHub.checksPerKeepAlive - 1)) == [], "nothing before the 40th round")
        #expect(await frames(after: EventHub.checksPerKeepAlive...EventHub.checksPerKeepAlive) == [EventHub.keepAlive])
        #expect(await frames(after: 1...(3 * EventHub.checksPerKeepAlive)) == Array(repeating: EventHub.keepAlive, count: 3))
        #expect(await hub.count == 0)
    }
}

@Suite("Reminders never wait for the writer")
struct ReminderWriterTests {
    @Test("a reminder rings while another process holds the writer; the log's claim follows once it is free, and it rings once")
    func ringsWhileWriterHeld() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("held.sqlite").path
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), database: try AppDatabase.open(path: path, pooled: true))
        let recorder = Recorder()
        let engine = ReminderEngine(environment: fixture.environment, deliveries: [recorder])
        try ReminderEngineTests.act(fixture, .dose1, at: WallClock.date(2026, 11, 21, 22, 30))
        fixture.set(WallClock.date(2026, 11, 21, 22, 30).addingTimeInterval(150 * 60 + 1))
        // The link key exists from the server's first page or reminder on; only its very first use writes.
        _ = try fixture.environment.useCases().reminders.signer()

        // Another process (a CLI import, say) takes the writer and keeps it.
        let holder = try DatabaseQueue(path: path)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? holder.inTransaction(.immediate) { db in
                try db.execute(sql: "UPDATE settings SET updated_at = updated_at")
                held.signal()
                release.wait()
                return .commit
            }
        }
        thread.start()
        held.wait()
        try await engine.tick(waitForDeliveries: false)
        try await engine.tick(waitForDeliveries: false)
        await engine.waitForDeliveries()
        #expect(recorder.kinds == [.windowOpen], "sent from a read while the writer was held, once over two ticks")
        let logged = try fixture.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM reminder_log") }
        #expect(logged == 0, "the claim waits for the writer")

        release.signal()
        await engine.waitForClaim()
        try await engine.tick()
        #expect(recorder.kinds == [.windowOpen])
        let outcomes = try fixture.database.read { try String.fetchAll($0, sql: "SELECT kind || ':' || outcome FROM reminder_log") }
        #expect(outcomes == ["window_open:fired"])
        let attempts = try fixture.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM alarm_deliveries") }
        #expect(attempts == 1, "the page's one attempt is in the alarm log once, written after the writer was free")
    }
}
