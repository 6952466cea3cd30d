import DoseCore
import Foundation

/// Group commit for one person's night actions: writes that arrive while another is committing wait, and go together
/// in the next transaction. One commit (one `fsync` on SQLite, one WAL flush on PostgreSQL) then acknowledges them
/// all, and every one is answered only after that commit. Each runs in a savepoint of its own, in arrival order, so a
/// refusal undoes only itself and every action sees the ones before it, exactly as if they had run one by one.
///
/// There is no thread of its own: the first writer leads, runs one batch (its own action and whatever is waiting),
/// and hands the lead to the next waiter, so no caller serves others for longer than one batch.
final class GroupCommit: @unchecked Sendable {
    /// One waiting write.
    final class Job {
        let body: (any NightTransaction) throws -> Any
        var result: Result<Any, any Error>?
        var leads = false
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping (any NightTransaction) throws -> Any) { self.body = body }
    }

    /// The most actions one transaction takes; the rest wait for the next.
    static let largestBatch = 64

    private let lock = NSLock()
    private var waiting: [Job] = []
    private var leading = false
    private var batches = 0

    /// How many writes wait for the lead, and how many batches have run (tests line writes up with these).
    var counts: (waiting: Int, batches: Int) { lock.withLock { (waiting.count, batches) } }

    /// Runs `body` in a transaction of `repository`, together with the writes that arrive while another commits.
    func write<T>(_ repository: some NightRepository, _ body: @escaping (any NightTransaction) throws -> T) throws -> T {
        let job = Job { try body($0) }
        let leads = lock.withLock {
            waiting.append(job)
            if leading { return false }
            leading = true
            return true
        }
        if !leads {
            job.done.wait()
            if !job.leads { return try job.value() }
        }
        // The leader's job is first in line: it arrived when no one led, or it was handed the lead as the first waiter.
        let batch = lock.withLock {
            let taken = Array(waiting.prefix(Self.largestBatch))
            waiting.removeFirst(taken.count)
            batches += 1
            return taken
        }
        Self.run(batch, on: repository)
        let next = lock.withLock {
            if waiting.isEmpty { leading = false }
            return waiting.first
        }
        for other in batch where other !== job { other.done.signal() }
        if let next {
            next.leads = true
            next.done.signal()
        }
        return try job.value()
    }

    /// Runs a batch in one transaction, each action in a savepoint. A failure that is not the action's own answer (the
    /// database went away, a constraint broke) rolls the whole batch back, and then each action runs alone, so it is
    /// answered with its own result and never with another's fault.
    static func run(_ batch: [Job], on repository: some NightRepository) {
        if batch.count == 1 {
            batch[0].result = Result { try repository.write(batch[0].body) }
            return
        }
        do {
            try repository.write { night in
                for job in batch {
                    do {
                        job.result = .success(try night.savepoint { try job.body(night) })
                    } catch  where isOwnAnswer(error) {
                        job.result = .failure(error)
                    }
                }
            }
        } catch {
            for job in batch { job.result = Result { try repository.write(job.body) } }
        }
    }

    /// A refusal or a replay: what the action itself is answered, which leaves the others of its batch to commit.
    static func isOwnAnswer(_ error: any Error) -> Bool {
        if error is any ActionReplay { return true }
        switch error as? DoseError {
        case .storageBusy?, .storageUnavailable?, .importStopped?, nil: return false
        default: return true
        }
    }
}

/// An action that turned out to be a replay of one already recorded (DoseApp's `AlreadyAnswered`,
/// `EventAlreadyRecorded`): its own answer, not a failure of the store, so the rest of its batch commits.
public protocol ActionReplay: Error {}

extension GroupCommit.Job {
    func value<T>() throws -> T {
        switch result {
        case .success(let value)?: value as! T
        case .failure(let error)?: throw error
        case nil: throw DoseError.storageBusy
        }
    }
}
