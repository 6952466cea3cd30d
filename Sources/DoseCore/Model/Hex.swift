import Foundation

/// `0`–`9`, `a`–`f` as ASCII.
private let lowercaseHexDigits = Array("0123456789abcdef".utf8)

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hex, two digits each (tokens, secrets, digests).
    public var hexString: String {
        // Written into one buffer: an import digests a million records, and building small arrays per byte showed.
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(lowercaseHexDigits[Int(byte >> 4)])
            text.append(lowercaseHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from hex digits (either case); nil for an odd count or any other character.
    public init?(hexDigits text: String) {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.value(of: digits[pair]), let low = Self.value(of: digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self = bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
