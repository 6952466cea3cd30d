public import DoseCore
import Foundation

/// Where and how `serve` submits mail (SPEC §5.7): `smtp://[USER:PASSWORD@]HOST:PORT` is submission with STARTTLS,
/// required except to a relay on loopback; `smtps://` is implicit TLS. Credentials are sent only over TLS, or to loopback.
public struct SMTPSettings: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: Sendable, Equatable {
        /// TLS from the first byte (`smtps://`).
        case implicitTLS
        /// Plain, upgraded by STARTTLS before anything else is said; refused when the server does not offer it, unless
        /// the server is on loopback (a local MTA), where the conversation never leaves the machine.
        case startTLS
    }

    public var host: String
    public var port: Int
    public var user: String?
    public var password: String?
    public var security: Security
    /// The envelope and `From:` address.
    public var from: EmailAddress
    /// A PEM file of certificates to trust for the mail server instead of the system's (a relay with a private CA).
    public var trustedCertificates: String?

    /// Whether the server is on this machine, where plain SMTP is allowed.
    public var isLoopback: Bool { Self.loopbackNames.contains(host.lowercased()) || host.hasPrefix("127.") }

    static let loopbackNames: Set<String> = ["localhost", "::1", "[::1]"]

    /// Reads `--smtp URL` and `--mail-from ADDRESS`; a clear refusal names what is wrong and what is allowed.
    public static func parse(url text: String, from: String?, trustedCertificates: String? = nil) throws(DoseError) -> SMTPSettings {
        let allowed = "smtp://[USER:PASSWORD@]HOST:PORT (STARTTLS) or smtps://[USER:PASSWORD@]HOST:PORT (implicit TLS)"
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme) else {
            throw .invalidInput(field: "smtp", problem: "'\(text.prefix(100))' is not an SMTP URL", allowed: allowed)
        }
        guard let host = url.host, !host.isEmpty else { throw .invalidInput(field: "smtp", problem: "the URL names no host", allowed: allowed) }
        guard let port = url.port, (1...65535).contains(port) else {
            throw .invalidInput(field: "smtp", problem: "the URL names no port", allowed: allowed + " (587 for submission, 465 for smtps)")
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil else {
            throw .invalidInput(field: "smtp", problem: "the URL has a path or query, which SMTP does not use", allowed: allowed)
        }
        guard let fromText = from else {
            throw .invalidInput(field: "mail-from", problem: "--smtp was given without --mail-from", allowed: "the address mail is sent from")
        }
        let sender = try EmailAddress(fromText, field: "mail-from")
        if let trustedCertificates, !FileManager.default.isReadableFile(atPath: trustedCertificates) {
            throw .invalidInput(
                field: "smtp-ca", problem: "'\(trustedCertificates.prefix(200))' cannot be read", allowed: "a readable PEM file of certificates")
        }
        return SMTPSettings(
            host: host, port: port, user: url.user?.removingPercentEncoding, password: url.password?.removingPercentEncoding,
            security: scheme == "smtps" ? .implicitTLS : .startTLS, from: sender, trustedCertificates: trustedCertificates)
    }

    /// The URL without its password, for the log and the operator's page.
    public var redacted: String {
        (security == .implicitTLS ? "smtps://" : "smtp://") + (user.map { "\($0)@" } ?? "") + "\(host):\(port)"
    }
}
