import DoseApp
import DoseCore
import Hummingbird
import NIOConcurrencyHelpers

/// How much heavy work each person may have running at once: insights, the report and its file, exports, imports and the
/// support bundle each read every night of a period or build a file, and a person's eight clients pulling them at once
/// held another person's status at over a second. Past the limit a request is refused at once, 429 with `Retry-After`,
/// before any of it is read; the night's own actions are never counted, so they are never held up.
public final class HeavyWork: Sendable {
    /// Heavy requests one person may have running at once (a phone and a computer each opening insights).
    public static let perPerson = 2
    /// Seconds a refused client is told to wait.
    static let retryAfter = 5

    private let running = NIOLockedValueBox<[String: Int]>([:])

    public init() {}

    /// Counts one more heavy request of `person`, or refuses it when they have `perPerson` running.
    func admit(_ person: String) throws(DoseError) {
        let admitted = running.withLockedValue { running -> Bool in
            let now = running[person, default: 0]
            guard now < Self.perPerson else { return false }
            running[person] = now + 1
            return true
        }
        guard admitted else { throw .heavyWorkBusy(running: Self.perPerson, retryAfterSeconds: Self.retryAfter) }
    }

    /// Counts a heavy request of `person` done.
    func finish(_ person: String) {
        running.withLockedValue { running in
            let left = running[person, default: 1] - 1
            running[person] = left > 0 ? left : nil
        }
    }

    /// Heavy requests running now, for everyone.
    var inFlight: Int { running.withLockedValue { $0.values.reduce(0, +) } }

    /// The routes whose work grows with the person's nights or builds a file, as the person's own site sees them.
    static let routes: Set<String> = [
        "/v1/insights", "/v1/analytics/export", "/v1/export", "/v1/export/events.csv", "/v1/export/sessions.csv", "/v1/import", "/insights",
        "/report", "/report/file", "/ui/support-bundle",
    ]

    /// Whether `path` is heavy work, also when a grantee asks for it under `/v1/people/{id}` or `/people/{id}`.
    static func isHeavy(_ path: String) -> Bool {
        if routes.contains(path) { return true }
        for (prefix, kept) in [("/v1/people/", "/v1/"), ("/people/", "/")] where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count).drop { $0 != "/" }.dropFirst()
            return routes.contains(kept + rest)
        }
        return false
    }
}

/// Bounds each person's heavy work (`HeavyWork`): the one who asks, a grantee's request counted as theirs, from the
/// request until its answer is written (an export is sent a piece at a time after its handler returned).
struct HeavyWorkMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let heavy: HeavyWork

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A grantee's request handed on to the person's route was counted as it came in, under `/v1/people/{id}`.
        guard HeavyWork.isHeavy(request.uri.path), context.grantee == nil else { return try await next(request, context) }
        let ticket = try HeavyWork.Ticket(heavy, person: context.site.environment.store.personID ?? "local")
        var response = try await next(request, context)
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { ticket.release() }
            try await body.write(writer)
        }
        return response
    }
}

extension HeavyWork {
    /// One admitted heavy request, counted until `release`, or until the answer holding it is dropped unwritten.
    final class Ticket: Sendable {
        private let heavy: HeavyWork
        private let person: String
        private let released = NIOLockedValueBox(false)

        init(_ heavy: HeavyWork, person: String) throws(DoseError) {
            try heavy.admit(person)
            self.heavy = heavy
            self.person = person
        }

        /// Counts the request done (once, however often it is called).
        func release() {
            guard
                !released.withLockedValue({ done in
                    defer { done = true }
                    return done
                })
            else { return }
            heavy.finish(person)
            // What the work held goes back to the system now, not whenever the allocator would trim it.
            ProcessMemory.giveBack()
        }

        deinit { release() }
    }
}
