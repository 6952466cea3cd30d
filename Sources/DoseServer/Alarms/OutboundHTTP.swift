public import AsyncHTTPClient
import DoseApp
import NIOCore
import NIOHTTP1

/// The client for every request DoseTap makes to another host: it follows no redirect, so a target that passed the
/// address check cannot send the request on to one that would not.
public enum OutboundHTTP {
    /// No redirects; a pinned request's client has the same configuration and its name mapped to the checked address.
    static let configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)

    /// The shared client of every outbound request whose address needs no pinning.
    public static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)

    /// Sends a request and reads its answer's status and `Retry-After`. A name checked by `OutboundTargets` is pinned
    /// to the address that passed (a client of its own maps the name to it, so TLS still checks the name's
    /// certificate), so no second lookup can lead the request elsewhere.
    static func send(
        _ request: HTTPClientRequest, with client: HTTPClient, _ connection: OutboundTargets.Connection
    ) async throws -> (status: Int, retryAfter: Int?) {
        func exchange(_ client: HTTPClient) async throws -> (status: Int, retryAfter: Int?) {
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (Int(response.status.code), response.headers.first(name: "Retry-After").flatMap { Int($0) })
        }
        guard case .pinned(let host, let address) = connection else { return try await exchange(client) }
        var configuration = configuration
        configuration.dnsOverride = [host: address]
        let pinned = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let answer = try await exchange(pinned)
            try await pinned.shutdown()
            return answer
        } catch {
            try? await pinned.shutdown()
            throw error
        }
    }
}
