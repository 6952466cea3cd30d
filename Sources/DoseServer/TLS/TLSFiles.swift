import DoseCore
import NIOSSL

/// A server certificate (PEM, the server's first, then any intermediates) and its private key (PEM).
public struct TLSFiles: Sendable, Hashable {
    /// The paths of the certificate chain and of the key.
    public var certificate, key: String

    /// The files at these paths.
    public init(certificate: String, key: String) { (self.certificate, self.key) = (certificate, key) }

    /// Reads both files now into a server context, so a wrong path or a key that is not the certificate's stops `serve`
    /// before it listens (and keeps the running context when a renewal goes wrong).
    func context() throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw DoseError.invalidFile(problem: "\(certificate) is not a readable PEM certificate (\(error))")
        }
        do {
            key = try NIOSSLPrivateKey(file: self.key, format: .pem)
        } catch {
            throw DoseError.invalidFile(problem: "\(self.key) is not a readable PEM private key (\(error))")
        }
        guard !chain.isEmpty else { throw DoseError.invalidFile(problem: "\(certificate) holds no certificate") }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw DoseError.invalidFile(problem: "\(self.key) does not belong to the certificate in \(certificate) (\(error))")
        }
    }
}
