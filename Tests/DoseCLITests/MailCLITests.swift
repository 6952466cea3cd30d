import DoseTestSupport
import Foundation
import Testing

/// Mail end to end (issue 56): the built `dosetap` queues a sign-in link, `serve --smtp` sends it to a real SMTP server
/// (aiosmtpd, `scripts/smtp-peer.py`), and the link in the mail signs a browser in.
@Suite("mail from the built binary: person add --mail, serve --smtp, mail list", .serialized)
struct MailCLITests {
    static let now = "2026-11-21 21:00"

    @Test("a sign-in link queued by `person add --mail` is mailed once by serve, and the link in the mail signs in", PeopleCLITests.enabled)
    func signInLinkByMail() async throws {
        let (store, _, _) = try PSQL.grantedStore()
        let peer = try SMTPPeer([])
        let added = try PeopleCLITests.run(
            ["person", "add", "alice@example.org", "--mail", "--link-base", "https://dosetap.example"], store, now: Self.now)
        #expect(added.status == 0 && added.json["mailed"] as? Bool == true && added.json["link"] is NSNull, "\(added.stdout)")
        let queued = try PeopleCLITests.run(["mail", "list"], store, now: Self.now)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(queued.stdout.utf8)) as? [[String: Any]], "\(queued.stdout)")
        #expect(entries.count == 1 && entries.first?["state"] as? String == "pending" && entries.first?["kind"] as? String == "sign_in")
        #expect(!queued.stdout.contains("dts_"), "the queue never shows the link")

        let server = try Server(
            try CLI(), now: Self.now, arguments: ["--smtp", "smtp://127.0.0.1:\(peer.port)", "--mail-from", "dosetap@example.org"],
            variables: ["DOSETAP_DATABASE_URL": store])
        // The server sends within a second or two of starting; a generous bound for a slow machine.
        var waited = 0
        while peer.messages.isEmpty, waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        let mail = try #require(peer.messages.first, "nothing arrived in 30 s")
        #expect(mail["rcpt_tos"] as? [String] == ["alice@example.org"] && mail["subject"] as? String == "Your DoseTap sign-in link")
        let text = try #require(mail["plain"] as? String)
        let lines = text.split(separator: "\n").map(String.init)
        let link = try #require(lines.first { $0.hasPrefix("https://dosetap.example/signin?token=dts_") }, "\(text)")
        let token = String(link.split(separator: "=").last ?? "")
        let signedIn = try Curl.call(server.base + "/signin", post: "token=\(token)", origin: server.base)
        #expect(signedIn.status == 303, "the mailed link signs in: \(signedIn.status) \(signedIn.body.prefix(200))")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
        #expect(peer.messages.count == 1, "sent once")
        let sent = try PeopleCLITests.run(["mail", "list"], store, now: Self.now)
        #expect(sent.stdout.contains("\"state\":\"sent\"") && sent.stdout.contains("\"attempts\":1"), "\(sent.stdout)")
    }

    @Test(
        "an instance killed mid-send leaves nothing sent; another sends the message once its lease runs out, and once only",
        PeopleCLITests.enabled)
    func killedMidSend() async throws {
        let (store, _, _) = try PSQL.grantedStore()
        // The server holds its answer to the first RCPT for a minute: the first instance is killed while it waits.
        let peer = try SMTPPeer(["--hold-first-rcpt", "60"])
        _ = try PeopleCLITests.run(["person", "add", "alice@example.org", "--mail", "--link-base", "https://dosetap.example"], store, now: Self.now)
        let mailing = ["--smtp", "smtp://127.0.0.1:\(peer.port)", "--mail-from", "dosetap@example.org", "--mail-lease-seconds", "2", "--clock-runs"]
        let first = try Server(try CLI(), now: Self.now, arguments: mailing, variables: ["DOSETAP_DATABASE_URL": store])
        var waited = 0
        while !peer.isHolding, waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(peer.isHolding, "the first instance reached RCPT")
        try await first.kill9()
        let second = try Server(try CLI(), now: Self.now, arguments: mailing, variables: ["DOSETAP_DATABASE_URL": store])
        waited = 0
        while peer.messages.isEmpty, waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        // A few rounds more, in which a second copy would go if the lease or the record were wrong.
        try await Task.sleep(for: .seconds(3))
        #expect(try await second.terminate(within: .seconds(20)) == 0)
        #expect(peer.messages.count == 1, "once: \(peer.messages.count)")
        let sent = try PeopleCLITests.run(["mail", "list"], store, now: Self.now)
        #expect(sent.stdout.contains("\"state\":\"sent\""), "\(sent.stdout)")
    }

    @Test("serve --smtp on a SQLite file, or --mail-from without --smtp, is refused by name and serves nothing", .readsSQLiteFile)
    func refusals() throws {
        let cli = try CLI()
        for (arguments, problem) in [
            (["--smtp", "smtp://127.0.0.1:2525", "--mail-from", "dosetap@example.org"], "this store is a SQLite file"),
            (["--mail-from", "dosetap@example.org"], "without --smtp"),
            (["--smtp", "smtp://127.0.0.1:2525"], "without --mail-from"),
            (["--smtp", "http://mail.example.org:25", "--mail-from", "dosetap@example.org"], "is not an SMTP URL"),
        ] {
            let refused = try cli.run(["serve", "--port", "0"] + arguments)
            #expect(refused.status == 64 && refused.errorCode == "400_INVALID_INPUT" && refused.stdout.contains(problem), "\(refused.stdout)")
        }
    }
}
