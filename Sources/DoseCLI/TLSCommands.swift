import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import Foundation

/// `dosetap tls`: a local certificate authority, so a phone on the home network opens DoseTap as a secure context.
struct TLS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls", abstract: "HTTPS for the home network: a local certificate authority and a server certificate.",
        subcommands: [Init.self])

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make a local CA (once) and a server certificate for these names, beside the database; renews it when due.",
            discussion: """
                Default names: this machine's host name (and NAME.local), localhost, 127.0.0.1 and its LAN addresses. \
                Run it again to renew: the server certificate is issued again when it has fewer than 30 days left or \
                lacks a name; the CA is kept unless --new-ca is given (then every phone must trust the new one).
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Host names and IP addresses the server is reached by (default: see above).") var names: [String] = []
        @Flag(help: "Replace the certificate authority (phones that trusted the old one must trust the new one).") var newCa = false

        func run() throws {
            try Output.run(options) { context in
                let hostName = ProcessInfo.processInfo.hostName
                let texts = names.isEmpty ? MachineAddresses.defaultNames(hostName: hostName) : names
                var subjects: [CertificateSubject] = []
                for text in texts {
                    let subject = try CertificateSubject.parse(text)
                    if !subjects.contains(subject) { subjects.append(subject) }
                }
                let certificates = LocalCertificates(directory: try context.dataFolder.appendingPathComponent("tls").path)
                let outcome = try certificates.prepare(names: subjects, hostName: hostName, now: context.environment.now(), newAuthority: newCa)
                if options.json {
                    Output.line(JSONValue(response: TLSInitResponse(outcome)).rendered())
                    return
                }
                Output.line(
                    outcome.madeAuthority
                        ? "Made a certificate authority: \(outcome.authorityName)." : "Kept the certificate authority \(outcome.authorityName).")
                // What a phone shows when asked to trust the CA: compare before trusting it.
                Output.line("Its SHA-256 fingerprint (compare it on each phone before trusting it): \(outcome.authorityFingerprint)")
                if let reason = outcome.issuedBecause {
                    Output.line("Issued a server certificate (\(reason)) for: " + outcome.names.map(\.description).joined(separator: ", ") + ".")
                } else {
                    Output.line("The server certificate is still good until \(ISO8601.string(outcome.serverNotAfter)).")
                }
                Output.line(
                    """
                    CA certificate (trust it on each phone once; /setup on the server shows how): \(outcome.files.authorityCertificate)
                    Serve with: dosetap serve --host 0.0.0.0 --tls-cert \(outcome.files.serverCertificate) --tls-key \(outcome.files.serverKey)
                    """)
            }
        }
    }
}

/// `tls init --json`: where the files are, and what was done.
struct TLSInitResponse: Encodable {
    var caCertificate, serverCertificate, serverKey, caName, caFingerprint: String
    var madeCA: Bool
    var issued: Bool
    var issuedBecause: String?
    var names: [String]
    var serverNotAfter: Date

    enum CodingKeys: String, CodingKey {
        case caCertificate = "ca_certificate", serverCertificate = "server_certificate", serverKey = "server_key", caName = "ca_name", caFingerprint =
            "ca_fingerprint"
        case madeCA = "made_ca", issued, issuedBecause = "issued_because", names, serverNotAfter = "server_not_after"
    }

    init(_ outcome: LocalCertificates.Outcome) {
        (caCertificate, serverCertificate, serverKey) = (outcome.files.authorityCertificate, outcome.files.serverCertificate, outcome.files.serverKey)
        (caName, madeCA, issued, issuedBecause) = (outcome.authorityName, outcome.madeAuthority, outcome.issuedBecause != nil, outcome.issuedBecause)
        (names, serverNotAfter, caFingerprint) = (outcome.names.map(\.description), outcome.serverNotAfter, outcome.authorityFingerprint)
    }
}
