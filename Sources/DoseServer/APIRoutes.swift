import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The JSON API of SPEC §5.3. Every handler calls the same ledger the CLI calls, so every surface keeps the same rules.
struct APIRoutes {
    let environment: AppEnvironment
    let hub: EventHub

    func register(on router: Router<DoseRequestContext>) {
        router.get("/health") { _, _ in Reply.json(HealthResponse()) }
        router.get("/openapi.json") { _, _ in Reply.json(text: APIContract.document) }
        let v1 = router.group("v1")
        v1.get("status") { _, _ in try status() }
        v1.post("doses/take") { request, context in try await action(request, context, RequestBodies.take) }
        v1.post("doses/skip") { request, context in try await action(request, context, RequestBodies.skip) }
        v1.post("doses/snooze") { request, context in try await action(request, context, RequestBodies.snooze) }
        v1.post("undo") { request, context in try await action(request, context, RequestBodies.undo) }
        v1.post("events/log") { request, context in try await action(request, context, RequestBodies.log) }
        v1.post("events/wake") { request, context in try await action(request, context, RequestBodies.wake) }
        v1.get("sessions") { request, _ in try sessions(request) }
        v1.get("sessions/:date") { _, context in try session(context) }
        v1.get("nights/:id") { _, context in try night(context) }
        v1.delete("sessions/:date") { _, context in try deleteSession(context) }
        v1.get("settings") { _, _ in Reply.json(JSONValue(response: SettingsResponse(try environment.useCases().settings.current()))) }
        v1.patch("settings") { request, context in try await updateSettings(request, context) }
        v1.get("analytics/export") { request, _ in try analytics(request) }
        v1.get("export/events.csv") { _, _ in csv(try environment.useCases().transfer.eventsCSV(), name: "events.csv") }
        v1.get("export/sessions.csv") { request, _ in
            let parameters = request.uri.queryParameters
            let text = try environment.useCases().transfer.sessionsCSV(
                from: try parameters["from"].map { try Self.date(String($0), field: "from") },
                to: try parameters["to"].map { try Self.date(String($0), field: "to") })
            return csv(text, name: "sessions.csv")
        }
        v1.get("export") { _, _ in try bundle() }
        v1.post("import") { request, _ in try await importFile(request) }
        v1.post("checkins") { request, context in try await action(request, context, RequestBodies.checkIn) }
        v1.patch("checkins/:date") { request, context in try await editCheckIn(request, context) }
        v1.post("presleep") { request, _ in try await preSleep(request) }
        v1.get("medications") { request, _ in try medications(request) }
        v1.post("medications") { request, _ in try await logMedications(request) }
        v1.delete("medications/:id") { _, context in try deleteMedication(context) }
        v1.patch("events/:id") { request, context in try await editEvent(request, context) }
        v1.delete("events/:id") { _, context in try deleteEvent(context) }
        v1.get("reminders") { _, _ in try reminders() }
        v1.get("stream") { _, context in await stream(device: context.device?.id) }
        v1.get("insights") { request, _ in try insights(request) }
        v1.post("insights/planner") { request, _ in try await applyPlanner(request) }
        v1.post("clear-all") { request, _ in try await clearAll(request) }
        v1.get("supply") { _, _ in Reply.json(SupplyResponse(try environment.useCases().supply.report())) }
        v1.post("supply/refills") { request, _ in
            let (bottles, ml, at, reason) = try RequestBodies.refill(try await JSONBody.read(request))
            return try supplyEntry(try environment.useCases().supply.logRefill(bottles: bottles, ml: ml, at: at, reason: reason), status: .created)
        }
        v1.post("supply/adjustments") { request, _ in
            let (change, counted, at, reason) = try RequestBodies.adjustment(try await JSONBody.read(request))
            return try supplyEntry(try environment.useCases().supply.adjust(changeML: change, countedML: counted, at: at, reason: reason), status: .created)
        }
        v1.delete("supply/entries/:id") { _, context in try supplyEntry(try environment.useCases().supply.delete(context.parameters.get("id") ?? "")) }
    }

    // MARK: Reads

    func status() throws -> Response {
        Reply.json(JSONValue(response: StatusResponse(try environment.useCases().night.status().status)))
    }

    func sessions(_ request: Request) throws -> Response {
        var query = HistoryQuery()
        let parameters = request.uri.queryParameters
        query.from = try parameters["from"].map { try Self.date(String($0), field: "from") }
        query.to = try parameters["to"].map { try Self.date(String($0), field: "to") }
        if let limit = parameters["limit"] {
            guard let value = Int(String(limit)) else { throw DoseError.invalidInput(field: "limit", problem: "'\(limit)' is not a number", allowed: "1–366") }
            query.limit = value
        }
        if let page = parameters["page"] {
            guard let value = Int(String(page)) else { throw DoseError.invalidInput(field: "page", problem: "'\(page)' is not a number", allowed: "1 or more") }
            query.page = value
        }
        return Reply.json(JSONValue(response: HistoryResponse(try environment.useCases().records.history(query))))
    }

    func session(_ context: DoseRequestContext) throws -> Response {
        let date = try Self.date(context.parameters.get("date") ?? "", field: "date")
        let nights = try environment.useCases().records.nights(on: date)
        guard !nights.isEmpty else { throw DoseError.notFound(what: "A night dated \(date)") }
        return Reply.json(nights.map(NightResponse.init))
    }

    /// One night by its id (D18: reachable even when two nights share a date).
    func night(_ context: DoseRequestContext) throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard (1...64).contains(id.unicodeScalars.count), SessionKey(parsing: id) == nil else {
            throw DoseError.invalidInput(field: "id", problem: "'\(id.prefix(64))' is not a night's id", allowed: "a session_id as status and history give it")
        }
        return Reply.json(NightResponse(try environment.useCases().records.night(id: SessionID(rawValue: id))))
    }

    func deleteSession(_ context: DoseRequestContext) throws -> Response {
        let date = try Self.date(context.parameters.get("date") ?? "", field: "date")
        let deleted = try environment.useCases().records.deleteNights(.dates([date]), surface: "api")
        return Reply.json(DeletedNightsResponse(deleted, asked: date))
    }

    func analytics(_ request: Request) throws -> Response {
        let parameters = request.uri.queryParameters
        let text = try environment.useCases().transfer.analyticsCSV(
            from: try parameters["start_date"].map { try Self.date(String($0), field: "start_date") },
            to: try parameters["end_date"].map { try Self.date(String($0), field: "end_date") })
        return csv(text, name: "analytics.csv")
    }

    func csv(_ text: String, name: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func bundle() throws -> Response {
        let transfer = environment.useCases().transfer
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = try transfer.bundleName()
        let path = directory.appendingPathComponent(name).path
        _ = try transfer.exportBundle(to: path)
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path)))))
    }

    /// Server-sent events: reminders as they fire, for pages that stay open. A stream lasts while its device is
    /// paired: revoking the device (here, in the web app, or from the CLI beside the server) ends it within a second.
    func stream(device: String?) async -> Response {
        let (id, frames) = await hub.subscribe(device: device)
        let hub = self.hub
        let environment = self.environment
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                // The server waits for open responses before it stops, so the stream ends itself on graceful shutdown.
                try await withGracefulShutdownHandler {
                    let watcher = Task {
                        guard let device else { return }
                        while !Task.isCancelled {
                            try await Task.sleep(for: Self.revocationCheck)
                            let active = try await BlockingWork.run { try environment.useCases().devices.isActive(device) }
                            if !active { return await hub.unsubscribe(id) }
                        }
                    }
                    defer { watcher.cancel() }
                    for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
                } onGracefulShutdown: {
                    Task { await hub.unsubscribe(id) }
                }
                try await writer.finish(nil)
            })
    }

    /// How often an open stream checks that its device is still paired.
    static let revocationCheck: Duration = .milliseconds(250)

    func reminders() throws -> Response {
        let (snapshot, outages) = try environment.useCases().night.tonight()
        let plan = ReminderPlan.plan(for: snapshot.session, settings: snapshot.settings)
        return Reply.json(RemindersResponse(plan: plan, next: snapshot.status.nextReminder, outages: outages))
    }

    func insights(_ request: Request) throws -> Response {
        let (nights, from, to) = try Self.period(request)
        let result = try environment.useCases().insights.insights(nights: nights, from: from, to: to)
        return Reply.json(InsightsResponse(result.insights, planner: result.planner))
    }

    /// The period a query asks for: `nights`, or `from`/`to`. From a page's form (`form`), an empty field is absent;
    /// through the API it is an error like any other bad date.
    static func period(_ request: Request, form: Bool = false) throws -> (nights: Int?, from: SessionKey?, to: SessionKey?) {
        let parameters = request.uri.queryParameters
        func value(_ name: Substring) -> String? { parameters[name].map(String.init).flatMap { form && $0.isEmpty ? nil : $0 } }
        let nights = try value("nights").map { text in
            guard let number = Int(text) else { throw DoseError.invalidInput(field: "nights", problem: "'\(text)' is not a number", allowed: "7, 30 or 90") }
            return number
        }
        return (nights, try value("from").map { try date($0, field: "from") }, try value("to").map { try date($0, field: "to") })
    }

    func applyPlanner(_ request: Request) async throws -> Response {
        let (minutes, confirmed) = try RequestBodies.plannerApply(try await JSONBody.read(request))
        let applied = try environment.useCases().insights.applyPlanner(minutes: minutes, confirmed: confirmed)
        return Reply.json(JSONValue(response: SettingsResponse(applied.settings)))
    }

    // MARK: Writes

    /// A supply entry with the supply it leaves.
    func supplyEntry(_ entry: InventoryEntry, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = SupplyEntryResponse(entry: InventoryEntryResponse(entry), supply: SupplyResponse(try environment.useCases().supply.report()))
        return Reply.json(JSONValue(response: body), status: status)
    }

    func importFile(_ request: Request) async throws -> Response {
        let data = try await JSONBody.collect(request, limit: ServerLimits.importBody)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("upload").path
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw DoseError.invalidFile(problem: "the upload could not be stored for reading")
        }
        let transfer = environment.useCases().transfer
        // Off the cooperative pool: a long import must not take one of its few threads from every other request.
        let report = try await BlockingWork.run { try transfer.importFile(at: path) }
        return Reply.json(ImportResponse(report))
    }

    func clearAll(_ request: Request) async throws -> Response {
        let report = try environment.useCases().transfer.clearAll(confirmation: try RequestBodies.clearAll(try await JSONBody.read(request)))
        return Reply.json(ClearAllResponse(report))
    }

    func editCheckIn(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let date = try Self.date(context.parameters.get("date") ?? "", field: "date")
        let body = try await JSONBody.read(request)
        let saved = try environment.useCases().records.editCheckIn(
            on: date, answers: try AnswerDecoding.decode(MorningCheckIn.self, from: body.object, allowed: AnswerDecoding.checkInAllowed))
        return Reply.json(CheckInResponse(saved))
    }

    func preSleep(_ request: Request) async throws -> Response {
        let (log, at) = try RequestBodies.preSleep(try await JSONBody.read(request))
        let saved = try environment.useCases().records.savePreSleep(log, at: at, note: nil)
        return Reply.json(PreSleepResponse(saved))
    }

    func medications(_ request: Request) throws -> Response {
        let date = try request.uri.queryParameters["date"].map { try Self.date(String($0), field: "date") }
        return Reply.json(try environment.useCases().medications.list(on: date).map(MedicationResponse.init))
    }

    func logMedications(_ request: Request) async throws -> Response {
        let (inputs, confirmations) = try RequestBodies.medications(try await JSONBody.read(request))
        let records = try environment.useCases().medications.log(inputs, confirmations: confirmations)
        return Reply.json(records.map(MedicationResponse.init))
    }

    func deleteMedication(_ context: DoseRequestContext) throws -> Response {
        Reply.json(MedicationResponse(try environment.useCases().medications.delete(context.parameters.get("id") ?? "")))
    }

    func editEvent(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let (occurredAt, note) = try RequestBodies.eventEdit(try await JSONBody.read(request))
        let edit = try environment.useCases().records.editEvent(
            EventID(rawValue: context.parameters.get("id") ?? ""), occurredAt: occurredAt,
            note: note)
        return Reply.json(EventEditResponse(edit))
    }

    func deleteEvent(_ context: DoseRequestContext) throws -> Response {
        Reply.json(EventEditResponse(try environment.useCases().records.deleteEvent(EventID(rawValue: context.parameters.get("id") ?? ""))))
    }

    func updateSettings(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let changes = try RequestBodies.settingsChanges(try await JSONBody.read(request))
        return Reply.json(JSONValue(response: SettingsResponse(try environment.useCases().settings.update(changes))))
    }

    /// Runs a night action with the request's idempotency key and client event id.
    func action(_ request: Request, _ context: DoseRequestContext, _ make: (JSONBody) throws -> NightAction) async throws -> Response {
        let data = try await JSONBody.collectJSON(request)
        let body = try JSONBody(data: data)
        let device = context.device?.id ?? ""
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        let fingerprint = DeviceTokens.fingerprint(Data("\(request.method) \(request.uri.path)\n".utf8) + data)
        if let key {
            let length = TextLimits.length(key)
            let allowed = "1–200 visible ASCII characters, such as a UUID"
            guard (1...200).contains(length) else { throw DoseError.invalidInput(field: "Idempotency-Key", problem: "\(length) characters", allowed: allowed) }
            // A header value outside visible ASCII is read differently by different HTTP stacks; a key must mean one thing.
            guard key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw DoseError.invalidInput(field: "Idempotency-Key", problem: "it holds a character outside visible ASCII", allowed: allowed)
            }
            if let stored = try environment.useCases().devices.storedResponse(device: device, key: key) {
                return try Self.replay(stored, fingerprint: fingerprint)
            }
        }
        var action = try make(body)
        action.source = .user
        let eventID = try body.string(RequestBodies.eventID).map { id throws(DoseError) -> EventID in
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

    static func date(_ text: String, field: String) throws -> SessionKey {
        guard let key = SessionKey(parsing: text) else {
            throw DoseError.invalidInput(field: field, problem: "'\(text)' is not a date", allowed: "YYYY-MM-DD")
        }
        return key
    }
}

/// The published contract of these routes: OpenAPI 3.1, written beside the handlers and checked against them by tests
/// (every route of the router is described, and every enumeration matches the rules') and by schemathesis in CI.
enum APIContract {
    /// The document served at `/openapi.json`.
    static let document = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}

/// Reading a request's body within the size limit.
extension JSONBody {
    static func collect(_ request: Request, limit: Int = ServerLimits.body) async throws -> Data {
        let buffer = try await request.body.collect(upTo: limit)
        return Data(buffer.readableBytesView)
    }

    /// The body of a JSON route: a body of any other media type is refused before it is read as JSON, so a form or
    /// text a client did not mean as JSON is never acted on. An empty body needs no type.
    static func collectJSON(_ request: Request) async throws -> Data {
        let data = try await collect(request)
        guard !data.isEmpty else { return data }
        let sent = request.headers[.contentType] ?? ""
        let mediaType = sent.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw DoseError.unsupportedMediaType(sent: sent.isEmpty ? "no Content-Type" : sent, accepted: "application/json")
        }
        return data
    }

    static func read(_ request: Request) async throws -> JSONBody {
        try JSONBody(data: try await collectJSON(request))
    }
}
