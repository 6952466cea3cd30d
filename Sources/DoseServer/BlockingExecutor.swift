import Dispatch
import Hummingbird
import NIOPosix

/// A task executor on threads of its own, where a handler may wait on the network: PostgreSQL's store answers
/// synchronously, like SQLite's, but each answer is a round trip. On Swift's cooperative pool (two threads on two cores)
/// two requests waiting on PostgreSQL would stall every other one; dispatch's global queues on Linux keep about as few
/// threads, so waiting requests could not gather into one group commit either.
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = BlockingExecutor()

    /// Requests that can wait on the database at once; the rest queue for a thread.
    static let threads = 32

    private let pool: NIOThreadPool

    private init() {
        pool = NIOThreadPool(numberOfThreads: Self.threads)
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}

/// Runs every request on `BlockingExecutor` (added first, for a store whose calls wait on the network).
struct BlockingExecutorMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withTaskExecutorPreference(BlockingExecutor.shared) { try await next(request, context) }
    }
}
