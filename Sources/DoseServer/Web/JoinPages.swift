import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// Making an account from an invitation (SPEC §5.7): `GET /join?token=…` shows who invites, what each grant allows and
/// one button, and changes nothing (a mail scanner that follows the link cannot use it); `POST /join` makes the account,
/// signs this browser in and accepts. Both are open paths: the browser has no device, and the person no account, yet.
struct JoinPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/join") { request, context in try await Self(context).show(request) }
        routes.post("/join") { request, context in try await Self(context).join(request, context) }
        return routes
    }

    struct JoinView {
        let frame: Frame
        let from, email, grants, expires, token: String
        let meanings: [String]
    }

    func show(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        let app = environment.useCases()
        let preview = try await BlockingWork.run { try app.join.preview(token: token) }
        let expires = InvitationPages.expiry(preview.invitation, try app.settings.zone())
        return try Templates.page(
            "join",
            JoinView(
                frame: Frame("Invitation", current: ""), from: preview.from.longName, email: preview.invitation.email,
                grants: SharingService.words(preview.invitation.grants), expires: expires, token: token,
                meanings: preview.invitation.grants.map(InvitationPages.meaning)))
    }

    func join(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        // Another site must not make an account, and sign this browser in to it, behind the person's back.
        try AuthMiddleware.refuseCrossSite(request, secure: context.secureTransport)
        let form = try BodyDecoder.decode(SignInForm.self, form: try FormBody.fields(try await JSONBody.collect(request)))
        let app = environment.useCases()
        let agent = request.headers[.userAgent] ?? ""
        let joined = try await BlockingWork.run { try app.join.join(token: form.token, deviceName: DeviceNames.fromUserAgent(agent)) }
        let next = joined.share.grants.contains(.view) ? "/people/\(joined.share.owner.id)/" : "/people"
        return WebPages.paired(next, token: joined.deviceToken, request, context)
    }
}
