import DoseApp
import DoseCore
import Foundation
import Hummingbird

/// Signing a browser in with a one-time link (SPEC §5.6): `GET /signin?token=…` shows a button and changes nothing (a
/// mail scanner that follows the link cannot use it up); `POST /signin` uses the link, pairs this browser as a device
/// of the person and sets its cookie. Both are open paths: the browser has no device yet.
struct SignInPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    /// On a shared store served for everyone, the environment of the person a link's hash was made for (nil: nobody's,
    /// and the link is refused like any other); nil here uses this router's own person.
    var owner: (@Sendable (_ tokenHash: String) throws -> AppEnvironment?)? { site.people?.signInOwner }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/signin") { request, context in
            let token = request.uri.queryParameters["token"].map(String.init) ?? ""
            return try Templates.page("signin", SignInView(frame: Frame("Sign in", current: ""), token: token))
        }
        routes.post("/signin") { request, context in try await Self(context).signIn(request, context) }
        return routes
    }

    struct SignInView {
        let frame: Frame
        let token: String
    }

    func signIn(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        // Login CSRF: another site must not sign this browser in as someone else.
        try AuthMiddleware.refuseCrossSite(request, secure: context.secureTransport)
        let form = try BodyDecoder.decode(SignInForm.self, form: try FormBody.fields(try await JSONBody.collect(request)))
        let environment = self.environment
        let owner = self.owner
        let app = try await BlockingWork.run { try owner?(DeviceTokens.hash(form.token)) ?? environment }.useCases()
        let agent = request.headers[.userAgent] ?? ""
        let address = context.clientAddress(request)
        let token = try await BlockingWork.run {
            try app.signIn.signIn(token: form.token, from: address, deviceName: DeviceNames.fromUserAgent(agent)).token
        }
        return WebPages.paired("/", token: token, request, context)
    }
}
