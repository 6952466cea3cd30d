import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// Sharing on a shared store (SPEC §5.6): invitations and shares the caller gave, invitations they answer, the people
/// who share with them, and their access audit. A grantee's requests for another person go through
/// `SharedAccessMiddleware`, not here.
/// Every handler reads the request's own use cases (`context.useCases`), so nothing is made per request.
enum SharingController {
    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.post("shares") { request, context in
            let body = try await JSONBody.read(ShareBody.self, request)
            let app = context.useCases
            let base = WebPages.ownAddress(request, context)
            let (invitation, url) = try app.sharing.invite(email: body.email, grants: body.grants, base: base)
            return Reply.json(InvitationResponse(invitation, now: app.clock.now, url: url), status: .created)
        }
        routes.get("shares") { request, context in
            let app = context.useCases
            let (invitations, shares) = try app.sharing.given()
            return Reply.json(SharesResponse(invitations: invitations, shares: shares, now: app.clock.now))
        }
        routes.delete("shares/:id") { request, context in
            let app = context.useCases
            let revoked = try app.sharing.revoke(context.parameters.get("id") ?? "")
            return Reply.json(JSONValue(dictionaryLiteral: ("revoked", JSONValue(response: InvitationResponse(revoked, now: app.clock.now)))))
        }
        routes.post("invitations/accept") { request, context in
            let body = try await JSONBody.read(InvitationAnswerBody.self, request)
            guard let share = try context.useCases.sharing.answer(token: body.token, accept: true) else {
                throw DoseError.notFound(what: "the invitation")
            }
            return Reply.json(JSONValue(dictionaryLiteral: ("share", JSONValue(response: ShareResponse(share)))))
        }
        routes.post("invitations/decline") { request, context in
            let body = try await JSONBody.read(InvitationAnswerBody.self, request)
            _ = try context.useCases.sharing.answer(token: body.token, accept: false)
            return Reply.json(JSONValue(dictionaryLiteral: ("declined", .bool(true))))
        }
        routes.get("people") { request, context in
            let named = request.uri.queryParameters["name"].map(String.init)
            let people = try context.useCases.sharing.overview(named: named).map(SharedPersonResponse.init)
            return Reply.json(JSONValue(dictionaryLiteral: ("people", JSONValue(response: people))))
        }
        routes.get("ladder") { request, context in Reply.json(LadderResponse(try context.useCases.ladder.rungs())) }
        routes.put("ladder") { request, context in
            let body = try await JSONBody.read(LadderBody.self, request)
            return Reply.json(
                LadderResponse(try context.useCases.ladder.set(body.rungs.map { ($0.email, $0.minutesAfterDose1) })))
        }
        routes.get("audit") { request, context in Reply.json(AuditResponse(try context.useCases.sharing.audit())) }
        return routes
    }
}
