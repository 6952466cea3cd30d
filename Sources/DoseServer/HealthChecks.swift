import DoseApp
import DoseCore
import Foundation
import Hummingbird
import Synchronization

/// `/health` (the process answers; whether its database does) and `/ready` (whether a proxy should send it work: its
/// database answers and, on a shared store, it is claiming reminder jobs). Each check waits at most `deadline` for the
/// database, so a health check never hangs on a cut connection.
struct HealthChecks: Sendable {
    let environment: AppEnvironment
    let jobs: ReminderJobs?
    static let deadline: Duration = .seconds(2)

    func health() async -> HealthResponse { HealthResponse(databaseProblem: await databaseProblem()) }

    func readiness() async throws -> Response {
        let problem = await databaseProblem()
        let claiming: Bool? = if let jobs { await jobs.isClaiming(at: environment.now()) } else { nil }
        let answer = ReadinessResponse(databaseProblem: problem, claiming: claiming)
        return Reply.json(answer, status: answer.isReady ? .ok : .serviceUnavailable)
    }

    /// Nil when the database answered a read within the deadline; else what went wrong. A read that hangs (a cut
    /// connection no one closed) is left to finish on its own: the answer does not wait for it.
    private func databaseProblem() async -> String? {
        let store = environment.store
        let deadline = Self.deadline
        return await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            Task {
                do {
                    try await BlockingWork.run { try store.ping() }
                    answer.give(nil)
                } catch let error as DoseError {
                    answer.give(error.message)
                } catch {
                    answer.give("the database did not answer")
                }
            }
            // On the request threads, so the deadline holds even while something else holds the cooperative pool.
            Task(executorPreference: BlockingExecutor.shared) {
                // A real deadline, not the environment's clock: it bounds a wait on the network, whatever time tests pretend.
                try? await Task.sleep(for: deadline)
                answer.give("the database did not answer within \(deadline.components.seconds) s")
            }
        }
    }
}

/// Resumes a continuation with the first answer given; later ones are dropped.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<String?, Never>?>

    init(_ continuation: CheckedContinuation<String?, Never>) { self.continuation = Mutex(continuation) }

    func give(_ answer: String?) {
        continuation.withLock { waiting in
            waiting?.resume(returning: answer)
            waiting = nil
        }
    }
}
