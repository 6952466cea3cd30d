public import DoseCore
import Foundation
import NIOCore

/// A block of IP addresses in CIDR notation (`10.0.0.0/8`, `127.0.0.1/32`, `2001:db8::/32`; a bare address is the block
/// of that one address): what `serve --trusted-proxy` names, the proxies whose `X-Forwarded-For` is believed.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int

    public var description: String { text }
    private let text: String

    /// Reads `CIDR`; a clear refusal names what is wrong and what is allowed.
    public static func parse(_ cidr: String) throws(DoseError) -> AddressRange {
        let allowed = "an IP address or block in CIDR notation, such as 127.0.0.1/32, 10.0.0.0/8 or ::1/128"
        let parts = cidr.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), let bytes = Self.bytes(of: parts[0]) else {
            throw .invalidInput(field: "trusted-proxy", problem: "'\(cidr.prefix(60))' is not an address or block", allowed: allowed)
        }
        let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let prefix, (0...bytes.count * 8).contains(prefix) else {
            throw .invalidInput(
                field: "trusted-proxy", problem: "'\(cidr.prefix(60))' has a prefix length that is not 0–\(bytes.count * 8)", allowed: allowed)
        }
        return AddressRange(bytes: bytes, prefix: prefix, text: cidr)
    }

    /// Whether `address` (a peer's, as the socket gives it) lies in this block. An IPv4 address mapped into IPv6
    /// (`::ffff:127.0.0.1`) is read as the IPv4 one.
    public func contains(_ address: String) -> Bool {
        guard let other = Self.bytes(of: address), other.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, other) where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            left -= bits
        }
        return true
    }

    /// The address's bytes: 4 for IPv4 (and IPv4 mapped into IPv6), 16 for IPv6; nil when it is not an address.
    static func bytes(of text: String) -> [UInt8]? {
        let bare = text.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        guard let address = try? SocketAddress(ipAddress: bare, port: 0) else { return nil }
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr.s_addr) { Array($0) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        default:
            return nil
        }
    }
}
