import Crypto
import DoseApp
import Foundation
import Testing

@Suite("Web Push message encryption (RFC 8291) and VAPID (RFC 8292)")
struct WebPushTests {
    /// RFC 8291 Appendix A, every input and the resulting message as the RFC prints them.
    enum Appendix {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let senderPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let userAgentPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let userAgentPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let message =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    static func bytes(_ text: String) throws -> Data { try #require(Base64URL.decode(text)) }

    @Test("the worked example of RFC 8291 Appendix A, byte for byte")
    func appendixA() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Appendix.senderPrivate))
        #expect(Base64URL.encode(sender.publicKey.x963Representation) == Appendix.senderPublic)
        let message = try WebPushMessage.encrypt(
            Data(Appendix.plaintext.utf8), userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Self.bytes(Appendix.authSecret),
            senderKey: sender, salt: Self.bytes(Appendix.salt))
        #expect(Base64URL.encode(message) == Appendix.message)
    }

    @Test("a changed auth secret, salt or key changes the message; a fresh one differs every time")
    func sensitivity() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Appendix.senderPrivate))
        let plaintext = Data(Appendix.plaintext.utf8)
        var auth = try Self.bytes(Appendix.authSecret)
        auth[0] ^= 1
        let changed = try WebPushMessage.encrypt(
            plaintext, userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: auth, senderKey: sender, salt: Self.bytes(Appendix.salt))
        #expect(Base64URL.encode(changed) != Appendix.message)
        let first = try WebPushMessage.encrypt(
            plaintext, userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Self.bytes(Appendix.authSecret))
        let second = try WebPushMessage.encrypt(
            plaintext, userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Self.bytes(Appendix.authSecret))
        #expect(first != second && first.count == second.count)
    }

    @Test("keys that are not a P-256 point and a 16-byte secret, and an oversized message, are refused")
    func refusals() throws {
        let plaintext = Data("x".utf8)
        #expect(throws: WebPushError.badSubscriptionKeys) {
            try WebPushMessage.encrypt(plaintext, userAgentPublicKey: Data(repeating: 4, count: 65), authSecret: Self.bytes(Appendix.authSecret))
        }
        #expect(throws: WebPushError.badSubscriptionKeys) {
            try WebPushMessage.encrypt(plaintext, userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Data(count: 15))
        }
        let limit = WebPushMessage.maximumPlaintext
        #expect(throws: WebPushError.payloadTooLarge(limit + 1)) {
            try WebPushMessage.encrypt(
                Data(count: limit + 1), userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Self.bytes(Appendix.authSecret))
        }
        let full = try WebPushMessage.encrypt(
            Data(count: limit), userAgentPublicKey: Self.bytes(Appendix.userAgentPublic), authSecret: Self.bytes(Appendix.authSecret))
        #expect(full.count == 4096 - 86 + 86 - 1 + 1 && full.count <= 4096)
    }

    @Test("the VAPID header: an ES256 JWT for the push service's origin that the public key in k= verifies")
    func vapid() throws {
        let key = P256.Signing.PrivateKey()
        let vapid = try VAPID(privateKeyHex: key.rawRepresentation.map { String(format: "%02x", $0) }.joined(), subject: "mailto:me@example.org")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try vapid.authorization(endpoint: try #require(URL(string: "https://push.example.net:8443/wpush/v2/abc?x=1")), now: now)
        let parts = header.split(separator: " ")
        #expect(parts.first == "vapid")
        let token = try #require(header.firstMatch(of: /t=([^,]+), k=(.+)$/))
        #expect(String(token.2) == Base64URL.encode(key.publicKey.x963Representation))
        let pieces = token.1.split(separator: ".").map(String.init)
        #expect(pieces.count == 3)
        let claims = try JSONSerialization.jsonObject(with: Self.bytes(pieces[1])) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net:8443")
        #expect(claims?["sub"] as? String == "mailto:me@example.org")
        #expect(claims?["exp"] as? Int == 1_800_000_000 + 12 * 3600)
        let publicKey = try P256.Signing.PublicKey(x963Representation: Self.bytes(String(token.2)))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.bytes(pieces[2]))
        #expect(publicKey.isValidSignature(signature, for: Data((pieces[0] + "." + pieces[1]).utf8)))
        #expect(!publicKey.isValidSignature(signature, for: Data((pieces[0] + "." + pieces[1] + "x").utf8)))
    }
}
