import DoseApp
public import DoseCore
public import DoseStore
import Foundation
import HTTPTypes
public import Hummingbird

/// The request context: Hummingbird's core plus the device the request was authenticated as.
public struct DoseRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by the authentication middleware.
    public var device: DeviceRecord?
    /// This request's count in its device's window, when the lookup that found the device counted it (`SiteMiddleware`).
    var counted: RequestAdmission?
    /// True when the device was recognised by the pairing cookie (a browser), so unsafe requests need the CSRF token.
    public var viaCookie = false
    /// True when the request came over this server's own HTTPS listener.
    public var secureTransport = false

    /// Set on a request a grantee makes for another person (`/v1/people/{id}/…`), once their own device and the grant
    /// were checked: the person's site answers it for them.
    public var grantee: SharedAccess?

    /// Whose records the request acts on, set by `SiteMiddleware` before anything else reads it.
    var chosenSite: PersonSite?

    /// The site the request acts on (`SiteMiddleware` sets it first, so every handler has one).
    var site: PersonSite {
        guard let chosenSite else { preconditionFailure("a request reached a handler before SiteMiddleware chose its site") }
        return chosenSite
    }

    /// The use cases over the records the request acts on, at the request's clock.
    var useCases: UseCases { site.environment.useCases() }

    /// The peer's address (the proxy's, behind one), for what is limited per address; nil when the channel has none.
    public var remoteAddress: String?
    /// The proxies whose `X-Forwarded-For` is believed, set by the listener (`serve --trusted-proxy`).
    public var trustedProxies: [AddressRange] = []

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The address a request came from, for what is limited per address: behind a proxy the operator trusts
    /// (`serve --trusted-proxy`), the one it appended last to `X-Forwarded-For`, so each client is counted apart rather
    /// than all as the proxy; otherwise the peer. A header from any other peer, loopback included, is not believed: any
    /// program on the machine could send one (issue 56).
    public func clientAddress(_ request: Request) -> String {
        Self.clientAddress(peer: remoteAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!], trusting: trustedProxies)
    }

    /// `clientAddress` from the peer, the `X-Forwarded-For` header and the trusted proxies.
    static func clientAddress(peer: String?, forwardedFor: String?, trusting proxies: [AddressRange]) -> String {
        guard let peer else { return "unknown" }
        guard proxies.contains(where: { $0.contains(peer) }), let forwardedFor,
            let last = forwardedFor.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.count <= 45
        else { return peer }
        return last
    }

    /// Request bodies beyond 64 KiB are refused with 413 before any work (SPEC §5.3; import gets its own limit).
    public var maxUploadSize: Int { ServerLimits.body }
}

/// Who is acting for another person, and with which grants.
public struct SharedAccess: Sendable {
    /// The grantee's person id and address.
    public var person: String
    public var email: String?
    public var grants: [Grant]
    /// Whose records they act on: that person's id, and their name as shown.
    public var owner: String
    public var ownerName: String
    /// Why the grantee's access to the person's night has ended (their device signed out, the share revoked or no longer
    /// opening the night), asked of the grantee's own records; nil while it stands. An open page's stream asks it.
    var standing: EventHub.Standing?

    /// Where the grantee's pages for the person are (`/people/{id}`), and their routes (`/v1/people/{id}`).
    var pageBase: String { "/people/" + owner }
    var apiBase: String { "/v1/people/" + owner }
}

/// Marks each request with the listener it came in on, so the pages know whether the browser reached them over HTTPS
/// (the pairing cookie is then `Secure`) without asking the connection.
struct ListenerResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == DoseRequestContext {
    let inner: Inner
    let secure: Bool
    let trustedProxies: [AddressRange]

    func respond(to request: Request, context: DoseRequestContext) async throws -> Response {
        var context = context
        context.secureTransport = secure
        context.trustedProxies = trustedProxies
        return try await inner.respond(to: request, context: context)
    }
}

/// Sizes and rates the API enforces.
public enum ServerLimits {
    /// Largest request body, except imports.
    public static let body = 64 * 1024
    /// Largest import body.
    public static let importBody = 20 * 1024 * 1024
    /// Requests per minute per device token.
    public static let requestsPerMinute = 240
}

extension AppEnvironment {
    /// The CSRF tokens under the server's stored secret.
    func csrfTokens() throws -> CSRFTokens { CSRFTokens(secretHex: try useCases().devices.linkSecret()) }

    /// The CSRF tokens of whoever is at the browser: a grantee's page for another person carries the grantee's own
    /// token, which their own site checks on every API call the page makes.
    func csrfTokens(of context: DoseRequestContext) throws -> CSRFTokens {
        guard let grantee = context.grantee else { return try csrfTokens() }
        var theirs = self
        theirs.store = store.of(person: grantee.person)
        return try theirs.csrfTokens()
    }
}
