public import AsyncHTTPClient
public import DoseApp
import Foundation
import NIOCore
import NIOHTTP1

/// The program's sender of every request DoseTap makes to another host, over AsyncHTTPClient: it follows no redirect,
/// so a target that passed the address check cannot send the request on to one that would not.
public struct OutboundHTTP: OutboundSender {
    /// No redirects; a pinned request's client has the same configuration and its name mapped to the checked address.
    static let configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)

    /// The shared client of every outbound request whose address needs no pinning.
    static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)

    /// The program's sender, on the shared client.
    public static let sender = OutboundHTTP(client: sharedClient)

    /// The client of requests whose address needs no pinning.
    let client: HTTPClient

    /// A sender on `client` (configured by the caller: it should follow no redirect).
    public init(client: HTTPClient) { self.client = client }

    /// Sends a request and reads its answer's status and `Retry-After`. A name checked by `OutboundTargets` is pinned
    /// to the address that passed (a client of its own maps the name to it, so TLS still checks the name's
    /// certificate), so no second lookup can lead the request elsewhere.
    public func send(_ outbound: OutboundRequest, over connection: OutboundTargets.Connection) async throws -> OutboundAnswer {
        var request = HTTPClientRequest(url: outbound.url)
        request.method = HTTPMethod(rawValue: outbound.method)
        for (name, value) in outbound.headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: outbound.body))
        func exchange(_ client: HTTPClient) async throws -> OutboundAnswer {
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return OutboundAnswer(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0) })
        }
        guard case .pinned(let host, let address) = connection else { return try await exchange(client) }
        var configuration = Self.configuration
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
