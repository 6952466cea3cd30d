import Foundation

/// Who may make an account on a shared DoseTap (SPEC §5.7): the operator's choice, `serve --sign-up`.
public enum SignUpPolicy: Sendable, Equatable, CustomStringConvertible {
    /// Only the operator adds people (`dosetap person add`).
    case closed
    /// Someone invited by a person of this DoseTap may make an account for the invited address.
    case invited
    /// Anyone with an address of this domain may make an account, invited or not (the sign-up page), as a clinic would
    /// want.
    case domain(String)

    public static let allowed = "closed, invited, or domain=DOMAIN (such as domain=clinic.example.org)"

    /// Reads `--sign-up`; a clear refusal names what is wrong and what is allowed.
    public static func parse(_ text: String) throws(DoseError) -> SignUpPolicy {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch trimmed {
        case "closed": return .closed
        case "invited": return .invited
        default:
            guard trimmed.hasPrefix("domain=") else {
                throw .invalidInput(field: "sign-up", problem: "'\(text.prefix(60))' is not a sign-up policy", allowed: allowed)
            }
            let domain = String(trimmed.dropFirst("domain=".count))
            // A domain is what an address may end with: checked as the part after the @ of one.
            guard (try? EmailAddress("x@" + domain)) != nil else {
                throw .invalidInput(field: "sign-up", problem: "'\(domain.prefix(60))' is not a domain name", allowed: allowed)
            }
            return .domain(domain)
        }
    }

    /// Whether someone invited at `address`, who has no account, may make one.
    public func allowsInvitee(_ address: EmailAddress) -> Bool {
        switch self {
        case .closed: false
        case .invited: true
        case .domain: allowsSignUp(address)
        }
    }

    /// The domain whose addresses may ask for an account on the sign-up page; nil when the page is closed.
    public var openDomain: String? {
        if case .domain(let domain) = self { domain } else { nil }
    }

    /// Whether anyone at `address`, invited or not, may make an account from the sign-up page.
    public func allowsSignUp(_ address: EmailAddress) -> Bool {
        openDomain.map { address.text.hasSuffix("@" + $0) } ?? false
    }

    public var description: String {
        switch self {
        case .closed: "closed"
        case .invited: "invited"
        case .domain(let domain): "domain=\(domain)"
        }
    }
}
