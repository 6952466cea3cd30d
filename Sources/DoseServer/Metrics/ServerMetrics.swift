public import DoseApp
import DoseStore
public import Foundation
public import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization

/// `serve --metrics-port` (SPEC §5.7): `/metrics` in Prometheus's text format, on loopback only, apart from the API.
/// Request latency by route, reminder lateness, the wait for a database connection and open streams are collected in
/// a swift-prometheus registry as they happen; the reminder jobs and mail waiting are read from the database at each
/// scrape. Every metric has its help text and counters end in `_total`, so `promtool check metrics` finds nothing.
/// Nothing is collected unless the option turned collection on (`enable`).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let lateness: DurationHistogram
    let connectionWait: DurationHistogram
    let streams: Gauge

    private static let current = Mutex<ServerMetrics?>(nil)

    private init() {
        lateness = registry.makeDurationHistogram(
            name: "dosetap_reminder_lateness_seconds",
            buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120].map(Self.seconds),
            help: "How late each reminder went out after its time. Alert when the p99 is above 2 s.")
        connectionWait = registry.makeDurationHistogram(
            name: "dosetap_database_connection_wait_seconds", buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5].map(Self.seconds),
            help: "How long a request or job waited for a PostgreSQL connection (a new one opened included).")
        streams = registry.makeGauge(name: "dosetap_open_streams", help: "Event streams (/v1/stream) open now.")
    }

    static func seconds(_ value: Double) -> Duration { .nanoseconds(Int64(value * 1e9)) }

    /// Turns collection on for this process (idempotent) and returns what collects.
    static func enable() -> ServerMetrics {
        current.withLock { current in
            if let current { return current }
            let made = ServerMetrics()
            current = made
            PostgresStore.connectionWaitObserver.withLock { $0 = { nanoseconds in made.connectionWait.recordNanoseconds(Int64(nanoseconds)) } }
            return made
        }
    }

    /// What collects, once `enable` ran; nil otherwise.
    static var enabled: ServerMetrics? { current.withLock { $0 } }

    /// Records that a reminder due at `fireAt` went out at `now`.
    static func reminderSent(fireAt: Date, now: Date) {
        enabled?.lateness.recordNanoseconds(Int64(max(0, now.timeIntervalSince(fireAt)) * 1e9))
    }

    /// Records one answered request.
    func request(route: String, method: String, status: Int, nanoseconds: UInt64) {
        registry.makeDurationHistogram(
            name: "dosetap_request_duration_seconds", labels: [("route", route), ("method", method), ("status", String(status))],
            buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map(Self.seconds),
            help: "How long each request took to answer, by the route it matched, its method and its status."
        ).recordNanoseconds(Int64(nanoseconds))
    }

    /// The page a scrape reads: the queues' sizes read now, then every figure collected.
    func scrape(store: PostgresStore?) throws -> String {
        if let store {
            let counts = try store.queueCounts()
            for (state, count) in counts.reminderJobs {
                registry.makeGauge(
                    name: "dosetap_reminder_jobs", labels: [("state", state)],
                    help: "Reminder jobs due or planned and not held by an instance (pending), or held under a lease now (leased)."
                ).set(Double(count))
            }
            for (state, count) in counts.mail {
                registry.makeGauge(
                    name: "dosetap_mail", labels: [("state", state)], help: "Mail waiting to be sent (queued) or given up (failed)."
                ).set(Double(count))
            }
        }
        return registry.emitToString()
    }

    /// The metrics listener: `GET /metrics` on 127.0.0.1:`port`, and nothing else.
    func application(port: Int, environment: AppEnvironment, logger: Logger) -> any Service {
        let router = Router()
        let store = environment.store.shared
        router.get("/metrics") { _, _ in
            let text = try await BlockingWork.run { try self.scrape(store: store) }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "dosetap-metrics"), logger: logger)
    }
}

/// Times each request into `ServerMetrics` by the route it matched; added to the router only while collection is on.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        var status = 500
        defer {
            metrics.request(
                route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: status,
                nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch {
            status = (error as? any HTTPResponseError)?.status.code ?? 500
            throw error
        }
    }
}
