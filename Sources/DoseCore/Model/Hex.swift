import Foundation

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hex, two digits each (tokens, secrets, digests).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in self { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
