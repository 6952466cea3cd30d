import Crypto
public import DoseCore
public import DoseStore
import Foundation

/// The browser's standard `PushSubscription` JSON (`endpoint`, `expirationTime`, `keys.p256dh`, `keys.auth`), as
/// `POST` and `DELETE /v1/push/subscriptions` take it, checked field by field.
public enum PushSubscriptionBody {
    /// The keys a subscription object may have; `role` is DoseTap's own (`alarm`, the default, or `contact`).
    static let keys: Set<String> = ["endpoint", "expirationTime", "keys", "role"]

    /// A subscription to save: an endpoint DoseTap may push to, and keys that make a P-256 point and a 16-byte secret.
    public static func subscription(_ body: JSONBody, targets: OutboundTargets = OutboundTargets()) throws(DoseError) -> PushSubscriptionRecord {
        let body = try body.only(keys)
        let endpoint = try self.endpoint(body)
        if let problem = targets.refusal(of: endpoint) {
            throw .invalidInput(field: "endpoint", problem: "'\(endpoint.prefix(80))': \(problem)", allowed: targets.allowed)
        }
        guard body.has("keys"), let keyObject = body.object["keys"]?.objectValue else {
            throw .invalidInput(
                field: "keys", problem: "it is missing or not an object",
                allowed: "{\"p256dh\": \"…\", \"auth\": \"…\"} from PushSubscription.toJSON()")
        }
        let keys = try JSONBody(object: keyObject).only(["p256dh", "auth"])
        let p256dh = try keys.string("p256dh").flatMap(Base64URL.decode)
        guard let p256dh, p256dh.count == 65, (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil else {
            throw .invalidInput(
                field: "keys.p256dh", problem: "it is not a P-256 public key", allowed: "65 bytes, uncompressed, base64url (87 characters)")
        }
        guard let auth = try keys.string("auth").flatMap(Base64URL.decode), auth.count == 16 else {
            throw .invalidInput(field: "keys.auth", problem: "it is not a 16-byte secret", allowed: "16 bytes, base64url (22 characters)")
        }
        let expires = try body.integer("expirationTime", allowed: "null, or milliseconds since 1970 (a whole number)")
        if let expires, !(0...4_102_444_800_000).contains(expires) {
            throw .invalidInput(field: "expirationTime", problem: "\(expires) is not a time", allowed: "null, or milliseconds since 1970 before 2100")
        }
        let roleName = try body.string("role") ?? PushRole.alarm.rawValue
        guard let role = PushRole(rawValue: roleName) else {
            throw .invalidInput(
                field: "role", problem: "'\(roleName)' is not a role", allowed: PushRole.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return PushSubscriptionRecord(
            endpoint: endpoint, p256dh: Base64URL.encode(p256dh), auth: Base64URL.encode(auth),
            expiresAt: expires.map { Date(timeIntervalSince1970: Double($0 / 1000)) }, role: role)
    }

    /// The endpoint of a subscription to remove (the same JSON; only `endpoint` is needed).
    public static func endpointToRemove(_ body: JSONBody) throws(DoseError) -> String {
        try endpoint(try body.only(keys))
    }

    /// An https URL with a host, or http on loopback (where local push services and tests live); no credentials.
    /// Its length is the database's (12–2000 characters), checked here so it is refused with a message.
    static func endpoint(_ body: JSONBody) throws(DoseError) -> String {
        let allowed = "the https URL of a push service (http only on 127.0.0.1, ::1 or localhost), 12 to 2000 characters"
        guard let text = try body.string("endpoint") else { throw .invalidInput(field: "endpoint", problem: "it is missing", allowed: allowed) }
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
