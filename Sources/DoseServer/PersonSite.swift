public import DoseApp
import DoseCore
import Foundation
public import Hummingbird

/// Whose records a request acts on, and their live pieces: the environment over their records, the hub of their open
/// pages and the channels their alarms ring on. `SiteMiddleware` puts it in the request context before any handler runs;
/// every controller is made from it for the request (`SiteController`), so one router serves everyone.
public struct PersonSite: Sendable {
    /// The environment over this person's records.
    public let environment: AppEnvironment
    /// The person's open pages.
    let hub: EventHub
    /// Where the person's alarms ring.
    let channels: AlarmChannels
    /// The server's pairing codes (one set for everyone).
    let pairing: PairingCodes
    /// Everyone of a shared store served whole; nil when this server serves one person.
    let people: PeopleSites?
}

/// A controller made for each request from the site the request acts on.
protocol SiteController {
    init(site: PersonSite)
}

extension SiteController {
    /// The controller of the site `context` acts on.
    init(_ context: DoseRequestContext) { self.init(site: context.site) }
}

/// Which site a request acts on: always the one person's, or, serving everyone of a shared store, the person the
/// request names (a device's token, a pairing code, a reminder link's night), else the lobby, over nobody's records.
struct SiteMiddleware: RouterMiddleware {
    typealias Context = DoseRequestContext

    enum Sites: Sendable {
        case one(PersonSite)
        case everyone(PeopleSites)
    }

    let sites: Sites

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        switch sites {
        case .one(let site): context.chosenSite = site
        case .everyone(let people):
            // A grantee's request, handed on with the person's site already chosen (`SharedAccessMiddleware`).
            if context.grantee != nil { return try await next(request, context) }
            if request.uri.path.hasPrefix(AuthMiddleware.openPrefix), !ActionLinkRoutes.methods.contains(request.method) {
                // A reminder link takes GET and POST, whoever's it is: another method is told so before its token is read.
                let allowed = ActionLinkRoutes.methods.map(\.rawValue).sorted()
                var response = Reply.error(.methodNotAllowed(method: request.method.rawValue, path: request.uri.path, allowed: allowed))
                response.headers[.allow] = allowed.joined(separator: ", ")
                return response
            }
            if let answering = try await people.person(answering: request) {
                context.chosenSite = people.site(answering.person).served
                // The device was found by this very token, and the request counted, in the same round trip: `AuthMiddleware`
                // does neither again.
                context.device = answering.device
                context.counted = answering.counted
            } else {
                context.chosenSite = people.lobby
            }
        }
        return try await next(request, context)
    }
}
