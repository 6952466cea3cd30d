import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The record of past nights (SPEC §5.3): history, one night or one date's nights, deleting a night, corrections of events
/// and check-ins, the pre-sleep log and other medications.
struct RecordsController: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("sessions") { request, context in try Self(context).sessions(request) }
        routes.get("sessions/:date") { request, context in try Self(context).session(context) }
        routes.get("nights/:id") { request, context in try Self(context).night(context) }
        routes.delete("sessions/:date") { request, context in try Self(context).deleteSession(context) }
        routes.patch("checkins/:date") { request, context in try await Self(context).editCheckIn(request, context) }
        routes.post("presleep") { request, context in try await Self(context).preSleep(request) }
        routes.patch("events/:id") { request, context in try await Self(context).editEvent(request, context) }
        routes.delete("events/:id") { request, context in try Self(context).deleteEvent(context) }
        routes.get("medications") { request, context in try Self(context).medications(request) }
        routes.post("medications") { request, context in try await Self(context).logMedications(request) }
        routes.delete("medications/:id") { request, context in try Self(context).deleteMedication(context) }
        return routes
    }

    func sessions(_ request: Request) throws -> Response {
        var query = HistoryQuery()
        let parameters = request.uri.queryParameters
        query.from = try parameters["from"].map { try APIInput.date(String($0), field: "from") }
        query.to = try parameters["to"].map { try APIInput.date(String($0), field: "to") }
        if let limit = parameters["limit"] {
            guard let value = Int(String(limit)) else {
                throw DoseError.invalidInput(field: "limit", problem: "'\(limit)' is not a number", allowed: "1–366")
            }
            query.limit = value
        }
        if let page = parameters["page"] {
            guard let value = Int(String(page)) else {
                throw DoseError.invalidInput(field: "page", problem: "'\(page)' is not a number", allowed: "1 or more")
            }
            query.page = value
        }
        return Reply.json(JSONValue(response: HistoryResponse(try environment.useCases().records.history(query))))
    }

    func session(_ context: DoseRequestContext) throws -> Response {
        let date = try APIInput.date(context.parameters.get("date") ?? "", field: "date")
        let nights = try environment.useCases().records.nights(on: date)
        guard !nights.isEmpty else { throw DoseError.notFound(what: "A night dated \(date)") }
        return Reply.json(nights.map(NightResponse.init))
    }

    /// One night by its id (D18: reachable even when two nights share a date).
    func night(_ context: DoseRequestContext) throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard (1...64).contains(id.unicodeScalars.count), SessionKey(parsing: id) == nil else {
            throw DoseError.invalidInput(
                field: "id", problem: "'\(id.prefix(64))' is not a night's id", allowed: "a session_id as status and history give it")
        }
        return Reply.json(NightResponse(try environment.useCases().records.night(id: SessionID(rawValue: id))))
    }

    func deleteSession(_ context: DoseRequestContext) throws -> Response {
        let date = try APIInput.date(context.parameters.get("date") ?? "", field: "date")
        let deleted = try environment.useCases().records.deleteNights(.dates([date]), surface: "api")
        return Reply.json(DeletedNightsResponse(deleted, asked: date))
    }

    func editCheckIn(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let date = try APIInput.date(context.parameters.get("date") ?? "", field: "date")
        let answers = try await JSONBody.read(CheckInEditBody.self, request).answers
        let saved = try environment.useCases().records.editCheckIn(on: date, answers: answers)
        return Reply.json(CheckInResponse(saved))
    }

    func preSleep(_ request: Request) async throws -> Response {
        let body = try await JSONBody.read(PreSleepBody.self, request)
        let saved = try environment.useCases().records.savePreSleep(body.answers, at: body.timestamp, note: nil)
        return Reply.json(PreSleepResponse(saved))
    }

    func editEvent(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let body = try await JSONBody.read(EventEditBody.self, request)
        let edit = try environment.useCases().records.editEvent(
            EventID(rawValue: context.parameters.get("id") ?? ""), occurredAt: body.timestamp, note: body.note)
        return Reply.json(EventEditResponse(edit))
    }

    func deleteEvent(_ context: DoseRequestContext) throws -> Response {
        Reply.json(EventEditResponse(try environment.useCases().records.deleteEvent(EventID(rawValue: context.parameters.get("id") ?? ""))))
    }

    func medications(_ request: Request) throws -> Response {
        let date = try request.uri.queryParameters["date"].map { try APIInput.date(String($0), field: "date") }
        return Reply.json(try environment.useCases().medications.list(on: date).map(MedicationResponse.init))
    }

    func logMedications(_ request: Request) async throws -> Response {
        let body = try await JSONBody.read(MedicationsBody.self, request)
        let records = try environment.useCases().medications.log(try body.inputs(), confirmations: try body.confirmations())
        return Reply.json(records.map(MedicationResponse.init))
    }

    func deleteMedication(_ context: DoseRequestContext) throws -> Response {
        Reply.json(MedicationResponse(try environment.useCases().medications.delete(context.parameters.get("id") ?? "")))
    }
}
