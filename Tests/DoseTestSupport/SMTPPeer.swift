public import Foundation

/// `scripts/smtp-peer.py`, started for one test: a real SMTP server on loopback (aiosmtpd from PyPI) with STARTTLS or
/// implicit TLS, AUTH, and refusals on request, which logs every message it accepts with what Python's e-mail parser
/// reads in it. It exits when the test process does.
public final class SMTPPeer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    /// Where the server writes one JSON line per message accepted.
    public let log: URL
    public let port: Int

    public enum Failure: Error { case didNotStart(String) }

    /// Starts the server with `scripts/smtp-peer.py`'s options (after its log).
    public init(_ options: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/smtp-peer.py")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString).log")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, log.path] + options
        let output = Pipe()
        process.standardOutput = output
        // It exits when this end of its stdin closes; its stderr is not the test runner's, which would wait for it.
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let started = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let port = started["port"] as? Int else {
            process.terminate()
            throw Failure.didNotStart(String(decoding: line, as: UTF8.self) + " (does `python3 -m pip install aiosmtpd` need running?)")
        }
        self.port = port
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(at: log)
        try? FileManager.default.removeItem(atPath: log.path + ".held")
    }

    /// Whether the server is holding its first RCPT's answer (`--hold-first-rcpt`): a sender is mid-send.
    public var isHolding: Bool { FileManager.default.fileExists(atPath: log.path + ".held") }

    /// Every message accepted, oldest first: `mail_from`, `rcpt_tos`, `tls`, `auth`, `data`, the parsed `from`, `to`,
    /// `subject`, `date`, `message-id`, `content_type`, `defects`, and the decoded `plain` and `html` parts.
    public var messages: [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
