import DoseApp
import DoseCore
import Foundation
import Hummingbird

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

    /// Nil when the database answered a read within the deadline; else what went wrong.
    private func databaseProblem() async -> String? {
        let store = environment.store
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await BlockingWork.run { try store.ping() }
                    return nil
                } catch let error as DoseError {
                    return error.message
                } catch {
                    return "the database did not answer"
                }
            }
            group.addTask {
                // A real deadline, not the environment's clock: it bounds a wait on the network, whatever time tests pretend.
                try? await Task.sleep(for: Self.deadline)
                return "the database did not answer within \(Self.deadline.components.seconds) s"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
