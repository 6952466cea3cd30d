import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// The support bundle from Settings: every redacted file shown on a page first, then a confirmed download.
struct SupportPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/settings/support") { request, context in try Self(context).supportReview(context) }
        routes.post("/ui/support-bundle") { request, context in try await Self(context).supportBundle(request, context) }
        return routes
    }

    struct SupportReviewView {
        struct File {
            let name, text: String
            let bytes: Int
        }

        let frame = Frame("Support bundle", current: "/settings")
        let csrf: String
        let files: [File]
        let databaseWarning = SupportService.databaseWarning
    }

    /// The diagnostic log's folder, where `dosetap serve` writes it.
    private var logFolder: URL? { environment.filesFolder }

    private func redactedBundle() throws -> SupportBundle {
        try environment.useCases().support.bundle(diagnosticLog: logFolder.map(DiagnosticLogFile.read(in:)) ?? "", version: AppVersion.current)
    }

    func supportReview(_ context: DoseRequestContext) throws -> Response {
        let bundle = try redactedBundle()
        return try Templates.page(
            "support",
            SupportReviewView(csrf: csrf(context), files: bundle.files.map { .init(name: $0.name, text: $0.text, bytes: $0.text.utf8.count) }))
    }

    /// The zip, after the review page's button; the raw database only when its box was ticked.
    func supportBundle(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let choice = try await form(request, context, as: SupportBundleForm.self)
        guard choice.reviewed == true else {
            throw DoseError.invalidInput(field: "reviewed", problem: "the bundle was not reviewed", allowed: "the button on the review page")
        }
        let includeDatabase = choice.includeDatabase == true
        let app = environment.useCases()
        let bundle = try redactedBundle()
        let data = try app.inScratchFolder("dosetap-support") { folder in
            let path = folder.appendingPathComponent("DoseTap_Support.zip").path
            try app.support.write(bundle, to: path, includeDatabase: includeDatabase)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = "attachment; filename=\"DoseTap_Support.zip\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
