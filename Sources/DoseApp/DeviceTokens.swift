import Crypto
import DoseCore
public import DoseStore
public import Foundation

/// Device tokens: 256 random bits, shown once, stored only as a SHA-256 hash, compared in constant time.
public enum DeviceTokens {
    /// A new token, `dtp_` and 64 hex digits (256 bits from `random`).
    public static func generate(_ random: RandomSource) -> String { "dtp_" + random.hex(32) }

    /// SHA-256 of the token, hex.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }

    /// SHA-256 of any bytes, hex (request fingerprints for idempotency).
    public static func fingerprint(_ data: Data) -> String {
        SHA256.hash(data: data).hexString
    }

    /// Whether two hex hashes are equal, looking at every byte whatever the first difference.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
