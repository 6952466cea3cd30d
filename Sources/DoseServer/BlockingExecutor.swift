import Dispatch
import Hummingbird

/// A task executor on dispatch's threads, where a handler may wait on the network: PostgreSQL's store answers
/// synchronously, like SQLite's, but each answer is a round trip. On Swift's cooperative pool (two threads on two cores)
/// two requests waiting on PostgreSQL would stall every other one.
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = BlockingExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { job.runSynchronously(on: executor) }
    }
}

/// Runs every request on `BlockingExecutor` (added first, for a store whose calls wait on the network).
struct BlockingExecutorMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try await next(request, context) }
    }
}
