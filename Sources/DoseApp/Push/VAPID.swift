public import Crypto
import DoseCore
public import Foundation

/// Voluntary Application Server Identification (RFC 8292): a short-lived ES256 JWT for the push service's origin,
/// signed with the server's P-256 key, sent with that key's public half.
public struct VAPID: Sendable {
    /// How long a token is valid; the RFC allows at most 24 hours.
    public static let tokenLifetime: TimeInterval = 12 * 3600
    /// Who to contact about this sender (`mailto:` or `https:`), the JWT's `sub` claim.
    public static let defaultSubject = "mailto:dosetap@localhost"

    public let key: P256.Signing.PrivateKey
    public let subject: String

    /// A signer from the stored private key (32 bytes, hex).
    public init(privateKeyHex: String, subject: String = defaultSubject) throws {
        key = try P256.Signing.PrivateKey(rawRepresentation: [UInt8](hexDigits: privateKeyHex) ?? [])
        self.subject = subject
    }

    /// Whether 32 hex-encoded bytes make a P-256 private key (the store asks before keeping one).
    public static func isValidKey(_ hex: String) -> Bool {
        (try? P256.Signing.PrivateKey(rawRepresentation: [UInt8](hexDigits: hex) ?? [])) != nil
    }

    /// The public key as browsers take it for `applicationServerKey`: uncompressed, base64url.
    public var publicKey: String { Base64URL.encode(key.publicKey.x963Representation) }

    /// The `Authorization` header for a request to `endpoint`, valid from `now`.
    public func authorization(endpoint: URL, now: Date) throws -> String {
        "vapid t=\(try token(audience: Self.origin(of: endpoint), expires: now.addingTimeInterval(Self.tokenLifetime))), k=\(publicKey)"
    }

    /// The push service's origin (scheme, host and any port), the JWT's `aud` claim.
    static func origin(of endpoint: URL) -> String {
        var origin = "\(endpoint.scheme ?? "https")://\(endpoint.host ?? "")"
        if let port = endpoint.port { origin += ":\(port)" }
        return origin
    }

    /// A compact JWS: header and claims, each base64url JSON, then the raw r‖s signature.
    func token(audience: String, expires: Date) throws -> String {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let claims = try JSONSerialization.data(
            withJSONObject: ["aud": audience, "exp": Int(expires.timeIntervalSince1970), "sub": subject],
            options: [.sortedKeys, .withoutEscapingSlashes])
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
