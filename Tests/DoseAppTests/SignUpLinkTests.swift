import DoseApp
import DoseCore
import Foundation
import Testing

/// The sign-up page's mailed links (issue 56): signed, not stored, so every part of one is checked before it is used.
@Suite("sign-up links")
struct SignUpLinkTests {
    static let signer = SignUpLinkSigner(secretHex: String(repeating: "3c", count: 32))
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let link = SignUpLink(email: "dana@clinic.example.org", expiresAt: now.addingTimeInterval(SignUpLinkSigner.lifetime), nonce: "0123abcd")

    @Test("a link reads back as made, until the second before it expires")
    func roundTrip() throws {
        let token = Self.signer.token(for: Self.link)
        #expect(token.hasPrefix("dtu_") && token.allSatisfy { $0.isLetter || $0.isNumber || "._-".contains($0) })
        #expect(try Self.signer.link(from: token, now: Self.now) == Self.link)
        #expect(try Self.signer.link(from: token, now: Self.link.expiresAt.addingTimeInterval(-1)) == Self.link)
        #expect(throws: DoseError.self) { try Self.signer.link(from: token, now: Self.link.expiresAt) }
        #expect(throws: DoseError.self) { try Self.signer.link(from: token, now: Self.link.expiresAt.addingTimeInterval(1)) }
    }

    @Test(
        "a changed part, another DoseTap's key, or a token of another shape is refused, with the one sentence that says nothing of why",
        arguments: [
            { (token: String) in token.replacingOccurrences(of: "dtu_", with: "dts_") },
            { token in
                // Another address, the signature kept.
                var parts = token.split(separator: ".").map(String.init)
                parts[0] = "dtu_" + Data("eve@clinic.example.org".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                return parts.joined(separator: ".")
            },
            { token in
                // A later expiry, the signature kept.
                var parts = token.split(separator: ".").map(String.init)
                parts[1] = String(Int(parts[1])! + 86_400)
                return parts.joined(separator: ".")
            },
            { token in String(token.dropLast()) + (token.last == "A" ? "B" : "A") },
            { token in token + ".extra" },
            { token in String(token.prefix(20)) },
            { _ in "" },
            { token in token + String(repeating: "A", count: 500) },
            { token in SignUpLinkSigner(secretHex: String(repeating: "4d", count: 32)).token(for: SignUpLinkTests.link) },
        ] as [@Sendable (String) -> String])
    func refusals(change: @Sendable (String) -> String) {
        let changed = change(Self.signer.token(for: Self.link))
        #expect {
            _ = try Self.signer.link(from: changed, now: Self.now)
        } throws: { error in
            "\(error)".contains("this link does not work here") && "\(error)".contains("/signup")
        }
    }
}
