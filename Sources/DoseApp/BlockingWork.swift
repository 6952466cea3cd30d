import Dispatch

/// Runs blocking work (a database write that may wait for the writer, an import) on a dispatch thread instead of
/// Swift's cooperative pool: on a two-core machine that pool has two threads, and two waiting writes would stall
/// every request, `/health` and the reminder engine with them.
public enum BlockingWork {
    /// The result of `work`, run off the cooperative pool.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
