import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What leaves and enters the store (SPEC §5.3): the CSV exports, the bundle, an import, and Clear All Data.
struct TransferController: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("analytics/export") { request, context in try Self(context).analytics(request) }
        routes.get("export/events.csv") { request, context in try Self(context).eventsCSV() }
        routes.get("export/sessions.csv") { request, context in
            let parameters = request.uri.queryParameters
            let text = try context.useCases.transfer.sessionsCSV(
                from: try parameters["from"].map { try APIInput.date(String($0), field: "from") },
                to: try parameters["to"].map { try APIInput.date(String($0), field: "to") })
            return Self.csv(text, name: "sessions.csv")
        }
        routes.get("export") { request, context in try Self(context).bundle() }
        routes.post("import") { request, context in try await Self(context).importFile(request) }
        routes.post("clear-all") { request, context in try await Self(context).clearAll(request) }
        return routes
    }

    func analytics(_ request: Request) throws -> Response {
        let parameters = request.uri.queryParameters
        let text = try environment.useCases().transfer.analyticsCSV(
            from: try parameters["start_date"].map { try APIInput.date(String($0), field: "start_date") },
            to: try parameters["end_date"].map { try APIInput.date(String($0), field: "end_date") })
        return Self.csv(text, name: "analytics.csv")
    }

    static func csv(_ text: String, name: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// events.csv, written to a scratch file and sent from it a piece at a time.
    func eventsCSV() throws -> Response {
        let app = environment.useCases()
        let export = try ScratchExport(app, prefix: "dosetap-export")
        try app.transfer.writeEventsCSV(to: export.path("events.csv"))
        return try export.response("events.csv", type: "text/csv; charset=utf-8")
    }

    /// The backup bundle, written to a scratch file and sent from it a piece at a time.
    func bundle() throws -> Response {
        let app = environment.useCases()
        let name = try app.transfer.bundleName()
        let export = try ScratchExport(app, prefix: "dosetap-export")
        _ = try app.transfer.exportBundle(to: export.path(name))
        return try export.response(name, type: "application/zip")
    }

    func importFile(_ request: Request) async throws -> Response {
        let data = try await JSONBody.collect(request, limit: ServerLimits.importBody)
        let app = environment.useCases()
        // Off the cooperative pool: a long import must not take one of its few threads from every other request.
        let report = try await BlockingWork.run {
            try app.inScratchFolder("dosetap-import") { folder in
                let path = folder.appendingPathComponent("upload").path
                guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                    throw DoseError.invalidFile(problem: "the upload could not be stored for reading")
                }
                return try app.transfer.importFile(at: path)
            }
        }
        return Reply.json(ImportResponse(report))
    }

    func clearAll(_ request: Request) async throws -> Response {
        let report = try environment.useCases().transfer.clearAll(confirmation: try await JSONBody.read(ClearAllBody.self, request).confirm)
        return Reply.json(ClearAllResponse(report))
    }
}
