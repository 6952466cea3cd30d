import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// The sign-up page (SPEC §5.7, issue 56), open when the operator serves with `--sign-up domain=DOMAIN` and `--smtp`:
/// `GET /signup` asks for an address at the domain; `POST /signup` mails it a link and answers the same whether or not
/// the address has an account. `GET /signup/confirm?token=…` shows what the link's button does and changes nothing (a
/// mail scanner that follows the link cannot use it); `POST /signup/confirm` signs this browser in, making the account
/// first if there is none. All four are open paths: the browser has no device yet.
struct SignUpPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/signup") { request, context in try Self(context).form() }
        routes.post("/signup") { request, context in try await Self(context).request(request, context) }
        routes.get("/signup/confirm") { request, context in try await Self(context).preview(request) }
        routes.post("/signup/confirm") { request, context in try await Self(context).confirm(request, context) }
        return routes
    }

    struct SignUpView {
        let frame: Frame
        let domain: String
        /// The address typed, shown back with `problem` when it was refused.
        let email: String
        let problem: String?
        /// After a request: the address the link was mailed to, and until when it works.
        let sentTo: String?
        let expires: String?
    }

    struct ConfirmView {
        let frame: Frame
        let email, expires, token: String
        let hasAccount: Bool
    }

    /// The sign-up page: the form (with `problem`, refused), or, with `sentTo`, where the link went.
    static func page(
        domain: String, email: String = "", problem: String? = nil, sentTo: String? = nil, expires: String? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        try Templates.page(
            "signup",
            SignUpView(
                frame: Frame("Join DoseTap", current: ""), domain: domain, email: email, problem: problem, sentTo: sentTo, expires: expires),
            status: status)
    }

    func form() throws -> Response { try Self.page(domain: try environment.useCases().signUpPage.openDomain()) }

    func request(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        // Another site must not make DoseTap mail someone in its visitor's name.
        try AuthMiddleware.refuseCrossSite(request, secure: context.secureTransport)
        let form = try BodyDecoder.decode(SignUpForm.self, form: try FormBody.fields(try await JSONBody.collect(request)))
        let app = environment.useCases()
        let domain = try app.signUpPage.openDomain()
        let base = WebPages.ownAddress(request, context)
        let address = context.clientAddress(request)
        do {
            let requested = try await BlockingWork.run { try app.signUpPage.request(email: form.email ?? "", base: base, from: address) }
            return try Self.page(
                domain: domain, email: requested.email, sentTo: requested.email,
                expires: InvitationPages.moment(requested.expiresAt, try app.settings.zone()))
        } catch let error as DoseError where error.code == .invalidInput {
            // The form again, with the address as typed and what is wrong with it.
            return try Self.page(domain: domain, email: String((form.email ?? "").prefix(254)), problem: error.message, status: .badRequest)
        }
    }

    func preview(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        let app = environment.useCases()
        let preview = try await BlockingWork.run { try app.signUpPage.preview(token: token) }
        return try Templates.page(
            "signup-confirm",
            ConfirmView(
                frame: Frame(preview.hasAccount ? "Sign in" : "Make your account", current: ""), email: preview.email,
                expires: InvitationPages.moment(preview.expiresAt, try app.settings.zone()), token: token, hasAccount: preview.hasAccount))
    }

    func confirm(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        // Login CSRF: another site must not sign this browser in, or make an account, behind the person's back.
        try AuthMiddleware.refuseCrossSite(request, secure: context.secureTransport)
        let form = try BodyDecoder.decode(SignInForm.self, form: try FormBody.fields(try await JSONBody.collect(request)))
        let app = environment.useCases()
        let agent = request.headers[.userAgent] ?? ""
        let address = context.clientAddress(request)
        let confirmed = try await BlockingWork.run {
            try app.signUpPage.confirm(token: form.token, from: address, deviceName: DeviceNames.fromUserAgent(agent))
        }
        // A new account sets up its night first; someone signing in goes to Tonight.
        return WebPages.paired(confirmed.made ? "/welcome" : "/", token: confirmed.deviceToken, request, context)
    }
}
