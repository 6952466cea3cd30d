import Foundation

/// An e-mail address as DoseTap keeps it: checked, trimmed and lower-cased, so two spellings of one address are one
/// address (`Alice@Example.org` is `alice@example.org`). It names a person in a shared store and an invitation's
/// addressee, and is where DoseTap's mail to them goes (`serve --smtp`).
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address, lower case.
    public let text: String

    /// What an address may be, for error messages.
    public static let allowed =
        "an e-mail address such as name@example.org: up to 64 letters, digits or . _ % + - before the @, "
        + "and a domain name of letters, digits and hyphens with at least one dot after it (254 characters at most)"

    /// Checks `raw` (surrounding spaces removed) and keeps it in lower case; `field` names the input in the refusal.
    public init(_ raw: String, field: String = "email") throws(DoseError) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let problem = Self.problem(with: trimmed) {
            throw DoseError.invalidInput(field: field, problem: problem, allowed: Self.allowed)
        }
        text = trimmed
    }

    public var description: String { text }

    /// Why `address` (trimmed, lower case) is not one, or nil.
    static func problem(with address: String) -> String? {
        guard !address.isEmpty else { return "it is empty" }
        let shown = address.count > 60 ? String(address.prefix(60)) + "…" : address
        guard address.unicodeScalars.count <= 254 else { return "'\(shown)' is longer than 254 characters" }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "'\(shown)' does not have exactly one @" }
        let local = parts[0]
        let domain = parts[1]
        let localCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789._%+-")
        guard !local.isEmpty, local.count <= 64, local.allSatisfy({ localCharacters.contains($0) }) else {
            return "the part of '\(shown)' before the @ is not 1–64 letters, digits or . _ % + -"
        }
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else {
            return "the part of '\(shown)' before the @ starts or ends with a dot, or has two in a row"
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let labelCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard labels.count >= 2,
            labels.allSatisfy({ label in
                (1...63).contains(label.count) && label.allSatisfy { labelCharacters.contains($0) } && !label.hasPrefix("-")
                    && !label.hasSuffix("-")
            }),
            labels.last?.allSatisfy(\.isLetter) == true
        else { return "'\(domain.prefix(60))' after the @ is not a domain name such as example.org" }
        return nil
    }
}
