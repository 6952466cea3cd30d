import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/setup`: how to make a phone trust this server's local certificate authority, step by step for iOS and Android;
/// `/setup/ca`: the CA certificate itself. Both are open: a phone needs them before it can be paired over HTTPS, and
/// a CA certificate is public (its private key never leaves the machine).
struct SetupRoutes: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/setup") { request, context in try Self(context).page(request, context) }
        routes.get("/setup/ca") { request, context in try Self(context).authorityCertificate() }
        return routes
    }

    var certificates: LocalCertificates? { environment.filesFolder.map { LocalCertificates(directory: $0.appendingPathComponent("tls").path) } }

    struct SetupView {
        let frame = Frame("Phone setup", current: "/settings")
        let secure: Bool
        let authority: Authority?

        struct Authority {
            let name: String
            let fingerprint: String
        }
    }

    func page(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let authority = try certificates?.authority().map { SetupView.Authority(name: $0.name, fingerprint: $0.fingerprint) }
        return try Templates.page("setup", SetupView(secure: WebPages.isSecureContext(request, context), authority: authority))
    }

    func authorityCertificate() throws -> Response {
        guard let authority = try certificates?.authority() else {
            throw DoseError.notFound(what: "A local certificate authority (run `dosetap tls init` on the server first)")
        }
        var headers = HTTPFields()
        // The type phones recognise as "install this certificate"; DER is what every one of them reads.
        headers[.contentType] = "application/x-x509-ca-cert"
        headers[.contentDisposition] = "attachment; filename=\"\(authority.fileName)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: authority.der)))
    }
}
