import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

private typealias F = StoreFixture

/// Night actions that arrive while another commits go in one transaction with it (`GroupCommit`). These line actions
/// up behind a write held open, so the next batch holds exactly them, in a known order, and prove each is answered as
/// if it had run alone: later ones see earlier ones, a refusal undoes only itself, and a failure of the store in one
/// action costs the others nothing.
@Suite("Group commit: actions that arrive together commit together, each as if alone")
struct GroupCommitTests {
    /// A store's ledger and its group commit.
    struct Store {
        var ledger: NightLedger
        var group: GroupCommit
        var close: () -> Void = {}
    }

    static func sqlite() throws -> Store {
        let database = try AppDatabase.inMemory()
        return Store(ledger: database.ledger, group: database.nightWrites)
    }

    static func postgres() throws -> Store {
        let store = try PostgresTestDatabase.freshStore()
        return Store(
            ledger: NightLedger(repository: PostgresNightRepository(store: store, person: "local")), group: store.nightWrites(of: "local"),
            close: { store.close() })
    }

    /// One action to line up: what it is, when, and an idempotency key if any.
    struct Step: Sendable {
        var kind: NightAction.Kind
        var minutes: Double
        var key: String? = nil
    }

    /// Holds one write open, lines `steps` up behind it in order, releases it, and returns each step's result. The next
    /// batch then holds exactly the steps.
    static func lineUp(_ store: Store, _ steps: [Step]) -> [Result<ActionOutcome, any Error>] {
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let results = LockedResults(count: steps.count)
        let ledger = store.ledger
        let ids = TestClock(F.dose1)
        finished.enter()
        Thread {
            _ = try? ledger.repository.writeTogether { _ in
                started.signal()
                gate.wait()
                return 0
            }
            finished.leave()
        }.start()
        started.wait()
        for (index, step) in steps.enumerated() {
            finished.enter()
            Thread {
                var clock = ids.store
                clock.now = F.minutes(step.minutes)
                let request = step.key.map { IdempotentRequest(device: "d", key: $0, requestHash: "h") { _ in (200, "{}") } }
                results.set(index, Result { try ledger.perform(NightAction(step.kind), clock: clock, idempotency: request) })
                finished.leave()
            }.start()
            // Each waits in line before the next starts, so the line is in the steps' order.
            while store.group.counts.waiting < index + 1 { sched_yield() }
        }
        gate.signal()
        finished.wait()
        return results.all
    }

    /// One night, eight actions in one batch: a refused Dose 2 and an undo that removes the action just before it.
    static func oneBatch(_ store: Store) throws {
        defer { store.close() }
        let before = store.group.counts.batches
        let results = Self.lineUp(
            store,
            [
                Step(kind: .dose1, minutes: 0), Step(kind: .log(event: "water"), minutes: 1), Step(kind: .dose2, minutes: 2),
                Step(kind: .log(event: "bathroom"), minutes: 2), Step(kind: .undo, minutes: 2.01), Step(kind: .log(event: "water"), minutes: 3),
                Step(kind: .dose1, minutes: 3), Step(kind: .snooze, minutes: 4),
            ])
        #expect(store.group.counts.batches == before + 2, "the held write, then one batch of eight")
        let answers = results.map { result -> String in
            switch result {
            case .success(let outcome): outcome.decision.removed.isEmpty ? "recorded" : "removed \(outcome.decision.removed.map(\.kind.wireName))"
            case .failure(let error as DoseError): error.code.wire
            case .failure(let error): "\(error)"
            }
        }
        #expect(
            answers == [
                "recorded", "recorded", "422_WINDOW_NOT_OPEN", "recorded", "removed [\"bathroom\"]", "recorded", "409_ALREADY_TAKEN",
                "422_SNOOZE_UNAVAILABLE",
            ])
        let night = try #require(try store.ledger.status(clock: TestClock(F.minutes(5)).store).session)
        #expect(night.events.map(\.kind.wireName) == ["dose1", "water", "water"])
    }

    /// A store failure in the middle of a batch (an idempotency record that breaks its CHECK) rolls the batch back, and
    /// each action then runs alone: the failing one keeps nothing, the others are all kept.
    static func failureInBatch(_ store: Store) throws {
        defer { store.close() }
        let tooLong = String(repeating: "k", count: 201)
        let results = Self.lineUp(
            store,
            [
                Step(kind: .dose1, minutes: 0, key: "a"), Step(kind: .log(event: "water"), minutes: 1, key: tooLong),
                Step(kind: .log(event: "bathroom"), minutes: 2, key: "c"), Step(kind: .log(event: "bathroom"), minutes: 2.5, key: "c"),
            ])
        #expect((try? results[0].get()) != nil)
        #expect((try? results[1].get()) == nil, "the failing action is refused")
        #expect((try? results[2].get()) != nil)
        let replay = results[3]
        #expect(throws: AlreadyAnswered.self, "the same key again is the first answer") { try replay.get() }
        let night = try #require(try store.ledger.status(clock: TestClock(F.minutes(5)).store).session)
        #expect(night.events.map(\.kind.wireName) == ["dose1", "bathroom"])
    }

    /// A write that fails, then at once an action refused before it waits on the store: on PostgreSQL the failure is
    /// still unread when the refusal comes (a batch's writes, savepoints and releases are not waited for one by one).
    /// The batch must still run each action alone: the failed one is never answered as kept, the refusal is its own.
    static func refusalAfterFailure(_ store: Store) throws {
        defer { store.close() }
        let results = Self.lineUp(
            store,
            [
                Step(kind: .dose1, minutes: 0, key: "a"), Step(kind: .log(event: "water"), minutes: 1, key: String(repeating: "k", count: 201)),
                Step(kind: .snooze, minutes: 1.5), Step(kind: .log(event: "bathroom"), minutes: 2),
            ])
        #expect((try? results[0].get()) != nil)
        #expect((try? results[1].get()) == nil, "the failing action is refused")
        if case .failure(let error as DoseError) = results[2] {
            #expect(error.code == .snoozeUnavailable)
        } else {
            Issue.record("the snooze before the window is refused for itself, not answered \(results[2])")
        }
        #expect((try? results[3].get()) != nil)
        let night = try #require(try store.ledger.status(clock: TestClock(F.minutes(5)).store).session)
        #expect(night.events.map(\.kind.wireName) == ["dose1", "bathroom"])
    }

    @Test("SQLite: eight actions in one batch are answered as one by one") func sqliteBatch() throws { try Self.oneBatch(try Self.sqlite()) }
    @Test("PostgreSQL: eight actions in one batch are answered as one by one", .needsPostgres)
    func postgresBatch() throws { try Self.oneBatch(try Self.postgres()) }
    @Test("SQLite: a store failure in a batch costs only its own action") func sqliteFailure() throws { try Self.failureInBatch(try Self.sqlite()) }
    @Test("PostgreSQL: a store failure in a batch costs only its own action", .needsPostgres)
    func postgresFailure() throws { try Self.failureInBatch(try Self.postgres()) }
    @Test("SQLite: a refusal right after a store failure in a batch is its own answer") func sqliteRefusalAfterFailure() throws {
        try Self.refusalAfterFailure(try Self.sqlite())
    }
    @Test("PostgreSQL: a refusal right after a store failure in a batch is its own answer", .needsPostgres)
    func postgresRefusalAfterFailure() throws { try Self.refusalAfterFailure(try Self.postgres()) }

    @Test("SQLite: 32 threads logging at once each get their own event, and all are stored")
    func manyAtOnce() throws {
        let database = try AppDatabase.inMemory()
        let ledger = database.ledger
        let ids = TestClock(F.dose1)
        _ = try ledger.perform(NightAction(.dose1), clock: ids.store)
        let results = LockedResults(count: 32)
        NightRepositoryTests.atOnce(32) {
            let index = results.claim()
            // Two minutes apart, beyond water's one-minute cooldown, in whatever order they commit.
            var clock = ids.store
            clock.now = F.minutes(10 + 2 * Double(index))
            results.set(index, Result { try ledger.perform(NightAction(.log(event: "water")), clock: clock) })
        }
        let recorded = Set(results.all.compactMap { try? $0.get().decision.event?.id })
        #expect(recorded.count == 32)
        let night = try #require(try ledger.status(clock: TestClock(F.minutes(2)).store).session)
        #expect(Set(night.events.map(\.id)).isSuperset(of: recorded))
        #expect(night.events.count == 33)
    }
}

/// Results written by several threads.
final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<ActionOutcome, any Error>?]
    private var claimed = 0

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<ActionOutcome, any Error>) { lock.withLock { results[index] = result } }
    func claim() -> Int {
        lock.withLock {
            defer { claimed += 1 }
            return claimed
        }
    }
    var all: [Result<ActionOutcome, any Error>] {
        lock.withLock { results.map { $0 ?? .failure(DoseError.storageBusy) } }
    }
}
