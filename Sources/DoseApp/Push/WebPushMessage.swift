public import Crypto
public import Foundation

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188): the composition of
/// P-256 ECDH, HKDF-SHA-256 and AES-128-GCM that the RFC specifies, on swift-crypto's primitives.
public enum WebPushMessage {
    /// The record size written in the header; a Web Push message is a single record.
    public static let recordSize: UInt32 = 4096
    /// The most plaintext one record carries: the record size less the tag (16) and the delimiter (1), less the
    /// header the push service counts in its 4096-byte limit (86).
    public static let maximumPlaintext = 4096 - 86 - 16 - 1

    /// Encrypts `plaintext` for a subscription's keys, with a fresh ephemeral key and salt.
    public static func encrypt(_ plaintext: Data, userAgentPublicKey: Data, authSecret: Data) throws -> Data {
        let salt = SymmetricKey(size: SymmetricKeySize(bitCount: 128)).withUnsafeBytes { Data($0) }
        return try encrypt(
            plaintext, userAgentPublicKey: userAgentPublicKey, authSecret: authSecret, senderKey: P256.KeyAgreement.PrivateKey(), salt: salt)
    }

    /// Encrypts with a given sender key and salt (the worked example of RFC 8291 Appendix A fixes both).
    public static func encrypt(
        _ plaintext: Data, userAgentPublicKey: Data, authSecret: Data, senderKey: P256.KeyAgreement.PrivateKey, salt: Data
    ) throws -> Data {
        guard plaintext.count <= maximumPlaintext else { throw WebPushError.payloadTooLarge(plaintext.count) }
        guard authSecret.count == 16, salt.count == 16 else { throw WebPushError.badSubscriptionKeys }
        guard let userAgentKey = try? P256.KeyAgreement.PublicKey(x963Representation: userAgentPublicKey) else {
            throw WebPushError.badSubscriptionKeys
        }
        let senderPublic = senderKey.publicKey.x963Representation
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: userAgentKey)
        let ecdhSecret = shared.withUnsafeBytes { Data($0) }

        // RFC 8291 §3.3–3.4: the auth secret and both public keys go into the input keying material.
        let keyInfo = Data("WebPush: info".utf8) + [0] + userAgentPublicKey + senderPublic
        let prkKey = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: ecdhSecret), salt: authSecret)
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: prkKey, info: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content-encryption key and nonce from the salt and that keying material.
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let contentKey = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)

        // One record, the last: the plaintext, then the delimiter 0x02 (RFC 8188 §2).
        let sealed = try AES.GCM.seal(plaintext + [2], using: contentKey, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var header = salt
        withUnsafeBytes(of: recordSize.bigEndian) { header.append(contentsOf: $0) }
        header.append(UInt8(senderPublic.count))
        header.append(senderPublic)
        return header + sealed.ciphertext + sealed.tag
    }
}

/// Why a push could not be made.
public enum WebPushError: Error, Equatable, CustomStringConvertible {
    /// The subscription's `p256dh` is not a P-256 point, or its `auth` is not 16 bytes.
    case badSubscriptionKeys
    /// The message is longer than one record carries.
    case payloadTooLarge(Int)

    public var description: String {
        switch self {
        case .badSubscriptionKeys: "the subscription's keys are not a P-256 public key and a 16-byte secret"
        case .payloadTooLarge(let count): "the message has \(count) bytes; a push carries at most \(WebPushMessage.maximumPlaintext)"
        }
    }
}

/// Base64url without padding (RFC 4648 §5), as Web Push keys and JWTs use it.
public enum Base64URL {
    /// Encodes without padding.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes, with or without padding; nil for anything outside the alphabet.
    public static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base += String(repeating: "=", count: (4 - base.count % 4) % 4)
        return Data(base64Encoded: base)
    }
}
