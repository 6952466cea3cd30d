import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseServer

/// The mail client against a real SMTP server (aiosmtpd from PyPI, `scripts/smtp-peer.py`), its certificate issued by
/// DoseTap's own local CA (`tls init`), which the client is told to trust.
@Suite("SMTP submission against an independent server (aiosmtpd)")
struct SMTPClientTests {
    static let now = ISO8601DateFormatter().date(from: "2026-11-29T23:00:00Z")!

    /// A CA and a certificate for 127.0.0.1 in a fresh folder: (CA file, certificate, key).
    static func certificates() throws -> (authority: String, certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-tls-\(UUID().uuidString)").path
        let made = try LocalCertificates(directory: folder).prepare(
            names: [try CertificateSubject.parse("127.0.0.1")], hostName: "mail-test", now: Date())
        return (made.files.authorityCertificate, made.files.serverCertificate, made.files.serverKey)
    }

    static func message(_ text: String = "Open this link to sign in:\nhttps://dosetap.example/signin/abc\n") throws -> MailMessage {
        MailMessage(
            to: try EmailAddress("dave@example.org"), subject: "Your DoseTap sign-in link", text: text,
            html: "<p>Open <a href=\"https://dosetap.example/signin/abc\">this link</a> to sign in.</p>", id: "job-1@dosetap.test")
    }

    static func client(_ url: String, trusting authority: String?) throws -> SMTPClient {
        var client = SMTPClient(settings: try SMTPSettings.parse(url: url, from: "dosetap@example.org", trustedCertificates: authority))
        client.timeout = .seconds(10)
        return client
    }

    @Test("STARTTLS, then AUTH, then one message: the server reads both parts, the headers and the envelope as sent")
    func startTLSWithAuth() async throws {
        let tls = try Self.certificates()
        let peer = try SMTPPeer(["--cert", tls.certificate, "--key", tls.key, "--auth", "mailer:s3cret pass"])
        let client = try Self.client("smtp://mailer:s3cret%20pass@127.0.0.1:\(peer.port)", trusting: tls.authority)
        let text = "A line.\n.a line that begins with a dot\n..and two\n"
        let reply = try await client.send(try Self.message(text), at: Self.now)
        #expect(reply.hasPrefix("250"), "\(reply)")
        let received = try #require(peer.messages.first)
        #expect(peer.messages.count == 1)
        #expect(received["tls"] as? Bool == true && received["auth"] as? String == "mailer", "\(received)")
        #expect(received["mail_from"] as? String == "dosetap@example.org" && received["rcpt_tos"] as? [String] == ["dave@example.org"])
        #expect(received["subject"] as? String == "Your DoseTap sign-in link")
        #expect(received["message-id"] as? String == "<job-1@dosetap.test>")
        #expect(received["date"] as? String == "Sun, 29 Nov 2026 23:00:00 +0000")
        #expect(received["content_type"] as? String == "multipart/alternative" && (received["defects"] as? [String])?.isEmpty == true)
        #expect(received["plain"] as? String == text, "dot-stuffing undone by the server: the dots arrive as written")
        #expect((received["html"] as? String)?.contains("<a href=\"https://dosetap.example/signin/abc\">") == true)
    }

    @Test("smtps:// speaks TLS from the first byte")
    func implicitTLS() async throws {
        let tls = try Self.certificates()
        let peer = try SMTPPeer(["--cert", tls.certificate, "--key", tls.key, "--implicit-tls"])
        try await Self.client("smtps://127.0.0.1:\(peer.port)", trusting: tls.authority).send(try Self.message(), at: Self.now)
        #expect(peer.messages.count == 1 && peer.messages.first?["tls"] as? Bool == true)
    }

    @Test("a certificate from a CA not trusted is refused before anything is sent")
    func untrustedCertificate() async throws {
        let tls = try Self.certificates()
        let other = try Self.certificates()
        let peer = try SMTPPeer(["--cert", tls.certificate, "--key", tls.key])
        await #expect(throws: SMTPFailure.self) {
            try await Self.client("smtp://127.0.0.1:\(peer.port)", trusting: other.authority).send(try Self.message(), at: Self.now)
        }
        #expect(peer.messages.isEmpty)
    }

    @Test("a relay on loopback without STARTTLS is used in plain text; the message arrives")
    func plainLoopbackRelay() async throws {
        let peer = try SMTPPeer([])
        try await Self.client("smtp://localhost:\(peer.port)", trusting: nil).send(try Self.message(), at: Self.now)
        #expect(peer.messages.count == 1 && peer.messages.first?["tls"] as? Bool == false)
    }

    @Test(
        "the server's refusals keep their kind: 5xx is permanent, 4xx may be tried again, a wrong password is permanent",
        arguments: [("550 5.1.1 no such user", true), ("450 4.2.0 mailbox busy", false)])
    func refusals(reply: String, permanent: Bool) async throws {
        let peer = try SMTPPeer(["--rcpt-reply", reply])
        let client = try Self.client("smtp://127.0.0.1:\(peer.port)", trusting: nil)
        let message = try Self.message()
        do {
            try await client.send(message, at: Self.now)
            Issue.record("\(reply) was taken as accepted")
        } catch {
            #expect(error.permanent == permanent && error.reason.contains(String(reply.prefix(3))), "\(error)")
        }
        #expect(peer.messages.isEmpty)
    }

    @Test("a wrong password is a permanent refusal, and nothing is sent")
    func wrongPassword() async throws {
        let tls = try Self.certificates()
        let peer = try SMTPPeer(["--cert", tls.certificate, "--key", tls.key, "--auth", "mailer:right"])
        let client = try Self.client("smtp://mailer:wrong@127.0.0.1:\(peer.port)", trusting: tls.authority)
        let message = try Self.message()
        do {
            try await client.send(message, at: Self.now)
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.permanent && error.reason.contains("AUTH"), "\(error)")
        }
        #expect(peer.messages.isEmpty)
    }

    @Test(
        "bad settings are refused by name, with what is allowed",
        arguments: [
            ("http://mail.example.org:587", "dosetap@example.org", "not an SMTP URL"),
            ("smtp://mail.example.org", "dosetap@example.org", "no port"),
            ("smtp://:587", "dosetap@example.org", "no host"),
            ("smtp://mail.example.org:587/inbox", "dosetap@example.org", "path or query"),
            ("smtp://mail.example.org:587", "not-an-address", "exactly one @"),
        ])
    func badSettings(url: String, from: String, problem: String) {
        #expect {
            _ = try SMTPSettings.parse(url: url, from: from)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }
}
