import Crypto
public import DoseCore
public import DoseStore
import Foundation

/// The browser's standard `PushSubscription` JSON (`endpoint`, `expirationTime`, `keys.p256dh`, `keys.auth`), as
/// `POST` and `DELETE /v1/push/subscriptions` take it, checked field by field.
public struct PushSubscriptionBody: Decodable {
    public var endpoint: String?
    public var expirationTime: Int?
    public var keys: Keys?
    /// DoseTap's own: `alarm`, the default, or `contact`.
    public var role: String?

    public enum CodingKeys: String, BodyKey {
        case endpoint, expirationTime, keys, role
        public var allowed: String {
            switch self {
            case .endpoint: PushSubscriptionBody.endpointForm
            case .expirationTime: "null, or milliseconds since 1970 (a whole number)"
            case .keys: PushSubscriptionBody.keysForm
            case .role: PushRole.allCases.map(\.rawValue).joined(separator: ", ")
            }
        }
    }

    /// The subscription's keys.
    public struct Keys: Decodable {
        public var p256dh: String?
        public var auth: String?

        public enum CodingKeys: String, BodyKey {
            case p256dh, auth
            public var allowed: String {
                switch self {
                case .p256dh: "65 bytes, uncompressed, base64url (87 characters)"
                case .auth: "16 bytes, base64url (22 characters)"
                }
            }
        }
    }

    static let endpointForm = "the https URL of a push service (http only on 127.0.0.1, ::1 or localhost), 12 to 2000 characters"
    static let keysForm = "{\"p256dh\": \"…\", \"auth\": \"…\"} from PushSubscription.toJSON()"

    /// A subscription to save: an endpoint DoseTap may push to, and keys that make a P-256 point and a 16-byte secret.
    public func subscription(targets: OutboundTargets = OutboundTargets()) throws(DoseError) -> PushSubscriptionRecord {
        let endpoint = try endpointToRemove()
        if let problem = targets.refusal(of: endpoint) {
            throw .invalidInput(field: "endpoint", problem: "'\(endpoint.prefix(80))': \(problem)", allowed: targets.allowed)
        }
        guard let keys else { throw .invalidInput(field: "keys", problem: "it is missing or not an object", allowed: Self.keysForm) }
        let p256dh = keys.p256dh.flatMap(Base64URL.decode)
        guard let p256dh, p256dh.count == 65, (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil else {
            throw .invalidInput(field: "keys.p256dh", problem: "it is not a P-256 public key", allowed: Keys.CodingKeys.p256dh.allowed)
        }
        guard let auth = keys.auth.flatMap(Base64URL.decode), auth.count == 16 else {
            throw .invalidInput(field: "keys.auth", problem: "it is not a 16-byte secret", allowed: Keys.CodingKeys.auth.allowed)
        }
        if let expirationTime, !(0...4_102_444_800_000).contains(expirationTime) {
            throw .invalidInput(
                field: "expirationTime", problem: "\(expirationTime) is not a time", allowed: "null, or milliseconds since 1970 before 2100")
        }
        let roleName = role ?? PushRole.alarm.rawValue
        guard let role = PushRole(rawValue: roleName) else {
            throw .invalidInput(field: "role", problem: "'\(roleName)' is not a role", allowed: CodingKeys.role.allowed)
        }
        return PushSubscriptionRecord(
            endpoint: endpoint, p256dh: Base64URL.encode(p256dh), auth: Base64URL.encode(auth),
            expiresAt: expirationTime.map { Date(timeIntervalSince1970: Double($0 / 1000)) }, role: role)
    }

    /// The endpoint: an https URL with a host, or http on loopback (where local push services and tests live); no
    /// credentials. Its length is the database's (12–2000 characters), checked here so it is refused with a message.
    /// `DELETE` needs only this.
    public func endpointToRemove() throws(DoseError) -> String {
        let allowed = Self.endpointForm
        guard let text = endpoint else { throw .invalidInput(field: "endpoint", problem: "it is missing", allowed: allowed) }
        guard (12...2000).contains(text.count) else {
            throw .invalidInput(field: "endpoint", problem: "it is \(text.count) characters long", allowed: allowed)
        }
        guard let (scheme, host) = OutboundTargets.schemeAndHost(text) else {
            throw .invalidInput(field: "endpoint", problem: "'\(text.prefix(80))' is not a URL with a host", allowed: allowed)
        }
        guard scheme == "https" || (scheme == "http" && OutboundTargets.isLoopback(host: host)) else {
            throw .invalidInput(field: "endpoint", problem: "'\(text.prefix(80))' is not https", allowed: allowed)
        }
        return text
    }
}
