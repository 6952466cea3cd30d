public import Foundation

/// `scripts/smtp-peer.py`, started for one test: a real SMTP server on loopback (aiosmtpd from PyPI) with STARTTLS or
/// implicit TLS, AUTH, and refusals on request, which logs every message it accepts with what Python's e-mail parser
/// reads in it. It exits when the test process does.
public final class SMTPPeer: @unchecked Sendable {
    let peer: ScriptPeer
    /// Where the server writes one JSON line per message accepted.
    public let log: URL
    public let port: Int

    public enum Failure: Error { case didNotStart(String) }

    /// Starts the server with `scripts/smtp-peer.py`'s options (after its log).
    public init(_ options: [String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString).log")
        peer = try ScriptPeer("smtp-peer.py", [log.path] + options)
        guard let port = peer.ready?["port"] as? Int else {
            throw Failure.didNotStart(peer.readyText + " (does `python3 -m pip install aiosmtpd` need running?)")
        }
        self.port = port
    }

    deinit {
        try? FileManager.default.removeItem(at: log)
        try? FileManager.default.removeItem(atPath: log.path + ".held")
    }

    /// Whether the server is holding its first RCPT's answer (`--hold-first-rcpt`): a sender is mid-send.
    public var isHolding: Bool { FileManager.default.fileExists(atPath: log.path + ".held") }

    /// Every message accepted, oldest first: `mail_from`, `rcpt_tos`, `tls`, `auth`, `data`, the parsed `from`, `to`,
    /// `subject`, `date`, `message-id`, `content_type`, `defects`, and the decoded `plain` and `html` parts.
    public var messages: [[String: Any]] { ScriptPeer.lines(of: log) }
}
