import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import ServiceLifecycle

/// Tonight (SPEC §5.3): the status, the night actions with their idempotency keys and client event ids, the check-in,
/// tonight's reminders and the event stream of open pages. Every action goes through the same use case the CLI calls.
struct NightController: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var hub: EventHub { site.hub }

    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("status") { request, context in try Self(context).status() }
        routes.post("doses/take") { request, context in try await Self(context).action(TakeBody.self, request, context) }
        routes.post("doses/skip") { request, context in try await Self(context).action(SkipBody.self, request, context) }
        routes.post("doses/snooze") { request, context in try await Self(context).action(SnoozeBody.self, request, context) }
        routes.post("undo") { request, context in try await Self(context).action(UndoBody.self, request, context) }
        routes.post("events/log") { request, context in try await Self(context).action(LogBody.self, request, context) }
        routes.post("events/wake") { request, context in try await Self(context).action(WakeBody.self, request, context) }
        routes.post("events/took-anyway") { request, context in try await Self(context).action(TookAnywayBody.self, request, context) }
        routes.post("checkins") { request, context in try await Self(context).action(CheckInBody.self, request, context) }
        routes.get("reminders") { request, context in try Self(context).reminders() }
        routes.get("stream") { request, context in await Self(context).stream(context) }
        return routes
    }

    func status() throws -> Response {
        Reply.json(JSONValue(response: StatusResponse(try environment.useCases().night.status().status)))
    }

    /// Runs a night action with the request's idempotency key and client event id.
    func action<Body: NightActionBody>(_ type: Body.Type, _ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let data = try await JSONBody.collectJSON(request)
        let body = try BodyDecoder.decode(Body.self, from: data)
        let device = context.device?.id ?? ""
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        let fingerprint = DeviceTokens.fingerprint(Data("\(request.method) \(request.uri.path)\n".utf8) + data)
        if let key {
            let length = TextLimits.length(key)
            let allowed = "1–200 visible ASCII characters, such as a UUID"
            guard (1...200).contains(length) else {
                throw DoseError.invalidInput(field: "Idempotency-Key", problem: "\(length) characters", allowed: allowed)
            }
            // A header value outside visible ASCII is read differently by different HTTP stacks; a key must mean one thing.
            guard key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw DoseError.invalidInput(field: "Idempotency-Key", problem: "it holds a character outside visible ASCII", allowed: allowed)
            }
            if let stored = try environment.useCases().devices.storedResponse(device: device, key: key) {
                return try Self.replay(stored, fingerprint: fingerprint)
            }
        }
        var action = try body.action()
        action.source = .user
        action.actor = context.grantee.map { $0.email ?? $0.person }
        let eventID = try body.id.map { id throws(DoseError) -> EventID in
            guard let valid = EventID(clientSupplied: id) else {
                throw .invalidInput(field: "id", problem: "'\(id.prefix(64))' is not an event id", allowed: EventID.clientForm)
            }
            return valid
        }
        if let eventID, let replay = try replayEvent(eventID) { return replay }
        let request = key.map { key in
            IdempotentRequest(device: device, key: key, requestHash: fingerprint) { outcome in (200, Self.render(outcome).rendered()) }
        }
        let outcome: ActionOutcome
        do {
            outcome = try environment.useCases().night.perform(action, from: context.viaCookie ? .page : .api, eventID: eventID, idempotency: request)
        } catch let answered as AlreadyAnswered {
            return try Self.replay(answered.response, fingerprint: fingerprint)
        } catch let recorded as EventAlreadyRecorded {
            if let replay = try replayEvent(recorded.id) { return replay }
            throw DoseError.notFound(what: "The event \(recorded.id.rawValue)")
        }
        if let stored = outcome.storedResponse { return Reply.json(text: stored.body, status: HTTPResponse.Status(code: stored.status)) }
        return Reply.json(Self.render(outcome))
    }

    /// The answer to a replayed client event id: the event as recorded, with tonight's status.
    func replayEvent(_ id: EventID) throws -> Response? {
        guard let existing = try environment.useCases().records.recordedEvent(id) else { return nil }
        return Reply.json(ReplayedEventResponse(existing.event, session: existing.session, status: try environment.useCases().night.status().status))
    }

    /// The stored answer to a replayed key, or a mismatch when the same key came with a different request.
    static func replay(_ stored: StoredResponse, fingerprint: String) throws -> Response {
        guard stored.requestHash == fingerprint else { throw DoseError.idempotencyMismatch }
        var response = Reply.json(text: stored.body, status: HTTPResponse.Status(code: stored.status))
        response.headers[HTTPField.Name("Idempotent-Replayed")!] = "true"
        return response
    }

    /// SPEC §5.3's action answer: the event at top level, `timestamp`, the window, and the status.
    static func render(_ outcome: ActionOutcome) -> JSONValue {
        JSONValue(response: ActionResponse(outcome).withWindow())
    }

    func reminders() throws -> Response {
        let (snapshot, outages) = try environment.useCases().night.tonight()
        let plan = ReminderPlan.plan(for: snapshot.session, settings: snapshot.settings)
        return Reply.json(RemindersResponse(plan: plan, next: snapshot.status.nextReminder, outages: outages))
    }

    /// Server-sent events: reminders as they fire, for pages that stay open. A stream lasts while the access that opened
    /// it stands (`EventHub`): the device paired, and for a grantee the person's share; it ends with an `ended` event that
    /// says why.
    func stream(_ context: DoseRequestContext) async -> Response {
        let standing: EventHub.Standing?
        if let grantee = context.grantee {
            standing = grantee.standing
        } else if let device = context.device?.id {
            let environment = self.environment
            standing = {
                try environment.useCases().devices.isActive(device)
                    ? nil : "This device was unpaired, so this page stopped following tonight. Pair it again to use DoseTap here."
            }
        } else {
            standing = nil
        }
        let (id, frames) = await hub.subscribe(device: context.grantee == nil ? context.device?.id : nil, standing: standing)
        let hub = self.hub
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                ServerMetrics.enabled?.streams.increment(by: 1)
                defer { ServerMetrics.enabled?.streams.decrement(by: 1) }
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                // The server waits for open responses before it stops, so the stream ends itself on graceful shutdown.
                try await withGracefulShutdownHandler {
                    for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
                } onGracefulShutdown: {
                    Task { await hub.unsubscribe(id) }
                }
                try await writer.finish(nil)
            })
    }
}
