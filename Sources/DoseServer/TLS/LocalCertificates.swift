import Crypto
public import DoseCore
import DoseStore
public import Foundation
import SwiftASN1
import X509

/// A name a server certificate is made for: a host name or an IP address.
public enum CertificateSubject: Hashable, Sendable, CustomStringConvertible {
    case dnsName(String)
    case ipAddress(String)

    /// Reads a name as an IPv4 or IPv6 address when it is one, else as a host name; refuses anything else by name.
    public static func parse(_ text: String) throws(DoseError) -> CertificateSubject {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if IPAddressBytes.parse(trimmed) != nil { return .ipAddress(trimmed) }
        let labels = trimmed.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            !trimmed.isEmpty && trimmed.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
        guard valid else {
            throw DoseError.invalidInput(
                field: "name", problem: "'\(String(trimmed.prefix(80)))' is neither a host name nor an IP address",
                allowed: "a host name (letters, digits, hyphens, dots) or an IPv4/IPv6 address")
        }
        return .dnsName(trimmed.lowercased())
    }

    public var description: String {
        switch self {
        case .dnsName(let name): name
        case .ipAddress(let address): address
        }
    }

    var generalName: GeneralName {
        switch self {
        case .dnsName(let name): .dnsName(name)
        case .ipAddress(let address): .ipAddress(ASN1OctetString(contentBytes: ArraySlice(IPAddressBytes.parse(address) ?? [])))
        }
    }
}

/// IPv4 and IPv6 text to the bytes a certificate's subject alternative name holds.
enum IPAddressBytes {
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// A local certificate authority and the server certificate it signs, kept in one owner-only folder beside the
/// database, so a phone that trusts the CA once trusts every renewed server certificate (issue 13).
public struct LocalCertificates: Sendable {
    /// The folder holding the files (mode 0700).
    public let directory: String

    /// A server certificate is valid this long: browsers refuse longer ones (Apple: at most 398 days).
    public static let serverValidity: TimeInterval = 397 * 86_400
    /// It is renewed when fewer than this many seconds remain.
    public static let renewalMargin: TimeInterval = 30 * 86_400
    /// The CA lasts ten years; it is never made again without being asked to.
    public static let authorityValidity: TimeInterval = 3_650 * 86_400
    /// Certificates start an hour early, so a phone whose clock is a little behind still accepts a new one.
    static let clockAllowance: TimeInterval = 3_600
    static let authorityPrefix = "DoseTap-Local-CA-"

    /// The certificates in `directory`.
    public init(directory: String) { self.directory = directory }

    /// The paths `tls init` reports and `serve` reads.
    public struct Files: Sendable, Hashable {
        public var authorityCertificate: String
        public var authorityKey: String
        public var serverCertificate: String
        public var serverKey: String
    }

    /// What `prepare` found and did.
    public struct Outcome: Sendable {
        public var files: Files
        /// The CA's name, as a phone shows it when asked to trust it.
        public var authorityName: String
        public var madeAuthority: Bool
        /// Why a server certificate was issued now, nil when the existing one was kept.
        public var issuedBecause: String?
        public var names: [CertificateSubject]
        public var serverNotAfter: Date
        /// The CA certificate's SHA-256 fingerprint.
        public var authorityFingerprint: String
    }

    var serverCertificatePath: String { directory + "/server.crt" }
    var serverKeyPath: String { directory + "/server.key" }
    var authorityKeyPath: String { directory + "/ca.key" }

    /// The CA certificate's path, if a CA was made here.
    public func authorityCertificatePath() -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(Self.authorityPrefix) && $0.hasSuffix(".crt") }.sorted().first.map { directory + "/" + $0 }
    }

    /// The CA a phone is asked to trust: its name, its file name, its DER bytes, and the SHA-256 fingerprint a person
    /// can compare with what `tls init` printed. Nil when no CA was made here.
    public func authority() throws -> (name: String, fileName: String, der: [UInt8], fingerprint: String)? {
        guard let path = authorityCertificatePath() else { return nil }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: try String(contentsOfFile: path, encoding: .utf8))
        } catch {
            throw DoseError.invalidFile(problem: "\(path) is not a readable PEM certificate (\(error))")
        }
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        return (Self.commonName(of: certificate), URL(fileURLWithPath: path).lastPathComponent, der, Self.fingerprint(der))
    }

    /// SHA-256 of a certificate's DER bytes, as colon-separated upper-case hex (the form phones show).
    static func fingerprint(_ der: [UInt8]) -> String {
        SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// Makes the CA if there is none (or, with `newAuthority`, replaces it), and issues a server certificate for
    /// `names` unless the current one covers them, comes from this CA and has more than the renewal margin left.
    public func prepare(names: [CertificateSubject], hostName: String, now: Date, newAuthority: Bool = false) throws -> Outcome {
        try createDirectory()
        var (authority, authorityKey, madeAuthority) = (Certificate?.none, P256.Signing.PrivateKey?.none, false)
        if let path = authorityCertificatePath(), !newAuthority {
            guard FileManager.default.fileExists(atPath: authorityKeyPath) else {
                throw DoseError.invalidFile(
                    problem:
                        "\(path) is here but its key \(authorityKeyPath) is not, so no new server certificate can be signed. Restore the key, "
                        + "or run `dosetap tls init --new-ca` and trust the new CA on every phone again"
                )
            }
            authority = try Certificate(pemEncoded: try String(contentsOfFile: path, encoding: .utf8))
            authorityKey = try P256.Signing.PrivateKey(pemRepresentation: try String(contentsOfFile: authorityKeyPath, encoding: .utf8))
        } else {
            if let old = authorityCertificatePath() { try FileManager.default.removeItem(atPath: old) }
            let made = try Self.makeAuthority(hostName: hostName, now: now)
            (authority, authorityKey, madeAuthority) = (made.certificate, made.key, true)
            try SafeFile.write(made.key.pemRepresentation, to: authorityKeyPath)
            try SafeFile.write(try made.certificate.serializeAsPEM().pemString, to: directory + "/" + Self.authorityFileName(hostName))
        }
        guard let authority, let authorityKey, let authorityPath = authorityCertificatePath() else {
            throw DoseError.invalidFile(problem: "the certificate authority in \(directory) could not be read")
        }
        let current = try? Certificate(pemEncoded: String(contentsOfFile: serverCertificatePath, encoding: .utf8))
        let hasKey = FileManager.default.fileExists(atPath: serverKeyPath)
        var reason = Self.renewalReason(current: hasKey ? current : nil, authority: authority, names: names, now: now)
        if madeAuthority { reason = "a new certificate authority was made" }
        var notAfter = current?.notValidAfter ?? now
        if reason != nil {
            let key = P256.Signing.PrivateKey()
            let certificate = try Self.issueServer(names: names, key: key, authority: authority, authorityKey: authorityKey, now: now)
            try SafeFile.write(key.pemRepresentation, to: serverKeyPath)
            try SafeFile.write(try certificate.serializeAsPEM().pemString, to: serverCertificatePath)
            notAfter = certificate.notValidAfter
        }
        return Outcome(
            files: Files(
                authorityCertificate: authorityPath, authorityKey: authorityKeyPath, serverCertificate: serverCertificatePath,
                serverKey: serverKeyPath),
            authorityName: Self.commonName(of: authority), madeAuthority: madeAuthority, issuedBecause: reason, names: names,
            serverNotAfter: notAfter,
            authorityFingerprint: try self.authority()?.fingerprint ?? "")
    }

    /// Why the server certificate must be issued again, or nil when it is still good.
    static func renewalReason(current: Certificate?, authority: Certificate, names: [CertificateSubject], now: Date) -> String? {
        guard let current else { return "there was no server certificate" }
        guard current.issuer == authority.subject, current.signatureAlgorithm == .ecdsaWithSHA256,
            authority.publicKey.isValidSignature(current.signature, for: current)
        else { return "the server certificate was not signed by this CA" }
        if current.notValidAfter.timeIntervalSince(now) < renewalMargin { return "the server certificate expires within 30 days" }
        let covered = Set((try? current.extensions.subjectAlternativeNames).map { Array($0) } ?? [])
        let missing = names.filter { !covered.contains($0.generalName) }
        if !missing.isEmpty { return "the server certificate does not name " + missing.map(\.description).joined(separator: ", ") }
        return nil
    }

    static func authorityFileName(_ hostName: String) -> String {
        let safe = hostName.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "-" }
        return authorityPrefix + String(String(safe).prefix(40)) + ".crt"
    }

    static func commonName(of certificate: Certificate) -> String {
        certificate.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }.map { "\($0.value)" } ?? "DoseTap CA"
    }

    static func makeAuthority(hostName: String, now: Date) throws -> (certificate: Certificate, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            OrganizationName("DoseTap")
            CommonName("DoseTap local CA (\(String(hostName.prefix(40))))")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-clockAllowance), notValidAfter: now.addingTimeInterval(authorityValidity),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: signingKey.publicKey)
            },
            issuerPrivateKey: signingKey)
        return (certificate, key)
    }

    static func issueServer(
        names: [CertificateSubject], key: P256.Signing.PrivateKey, authority: Certificate, authorityKey: P256.Signing.PrivateKey, now: Date
    ) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let subject = try DistinguishedName {
            OrganizationName("DoseTap")
            CommonName(String((names.first?.description ?? "dosetap").prefix(64)))
        }
        let authorityIdentifier = (try? authority.extensions.subjectKeyIdentifier)?.keyIdentifier
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-clockAllowance), notValidAfter: now.addingTimeInterval(serverValidity),
            issuer: authority.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.map(\.generalName))
                SubjectKeyIdentifier(hash: publicKey)
                if let authorityIdentifier { AuthorityKeyIdentifier(keyIdentifier: authorityIdentifier) }
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
    }

    func createDirectory() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory, 0o700)
    }
}

extension LocalCertificates {
    /// What a look at a served certificate found.
    public enum Check: Sendable, Equatable {
        /// `tls init` made it and it was due: it was issued again; the message says until when.
        case renewed(String)
        /// Someone else's certificate is due or past its end; the message says when.
        case due(String)

        /// The words for a person or the log.
        public var message: String {
            switch self {
            case .renewed(let text), .due(let text): text
            }
        }
    }

    /// What `serve` does about its certificate at start and while it runs: one that `tls init` made here and that is due
    /// (under 30 days left) is issued again for the same names; any other that is due or past is reported. Nil when all
    /// is well. An unreadable file is left to `TLSFiles`, which refuses it by name.
    public static func renewIfDue(_ files: TLSFiles, hostName: String, now: Date) throws -> Check? {
        guard let current = try? Certificate(pemEncoded: String(contentsOfFile: files.certificate, encoding: .utf8)) else { return nil }
        let left = current.notValidAfter.timeIntervalSince(now)
        guard left < renewalMargin else { return nil }
        let absolute = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.path }
        let managed = LocalCertificates(directory: URL(fileURLWithPath: absolute(files.certificate)).deletingLastPathComponent().path)
        let isManaged =
            absolute(files.certificate) == managed.serverCertificatePath && absolute(files.key) == managed.serverKeyPath
            && FileManager.default.fileExists(atPath: managed.authorityKeyPath) && managed.authorityCertificatePath() != nil
        guard isManaged else {
            let when = ISO8601.string(current.notValidAfter)
            return .due(
                left <= 0
                    ? "Warning: \(files.certificate) expired at \(when); phones will refuse to connect until it is renewed."
                    : "Warning: \(files.certificate) expires at \(when), in \(Int(left / 86_400)) days; renew it before then.")
        }
        let names = ((try? current.extensions.subjectAlternativeNames).map { Array($0) } ?? []).compactMap(CertificateSubject.init)
        let outcome = try managed.prepare(names: names, hostName: hostName, now: now)
        return .renewed(
            "Renewed the server certificate (\(outcome.issuedBecause ?? "it was due")); it is good until \(ISO8601.string(outcome.serverNotAfter)).")
    }
}

extension CertificateSubject {
    /// The subject a certificate's alternative name stands for; nil for kinds DoseTap does not issue.
    init?(_ name: GeneralName) {
        switch name {
        case .dnsName(let host): self = .dnsName(host)
        case .ipAddress(let octets):
            let bytes = Array(octets.bytes)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            guard bytes.count == 4 || bytes.count == 16, inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return nil }
            self = .ipAddress(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        default: return nil
        }
    }
}
