import DoseApp
import DoseCore
import Foundation
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The server's TLS context. A renewed certificate replaces it in place, and each new connection takes the current one,
/// so the server never has to stop (it is the night's alarm clock) to serve a renewed certificate.
final class TLSContextHolder: Sendable {
    /// The context in use, and the certificate file's bytes it was made from.
    private let context: NIOLockedValueBox<(context: NIOSSLContext, certificate: Data?)>

    init(_ files: TLSFiles) throws { context = NIOLockedValueBox((try files.context(), Self.read(files))) }

    var current: NIOSSLContext { context.withLockedValue { $0.context } }

    /// Reads the files again; on any failure the context in use stays.
    func reload(_ files: TLSFiles) throws {
        let certificate = Self.read(files)
        let next = try files.context()
        context.withLockedValue { $0 = (next, certificate) }
    }

    /// Reloads when the certificate file is no longer the one in use: another instance (or an ACME client) renewed it.
    /// Returns whether it did.
    func reloadIfChanged(_ files: TLSFiles) throws -> Bool {
        guard let certificate = Self.read(files), certificate != context.withLockedValue({ $0.certificate }) else { return false }
        try reload(files)
        return true
    }

    private static func read(_ files: TLSFiles) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: files.certificate)) }
}

/// HTTPS over DoseTap's guarded HTTP/1.1 channel, with the holder's current context for each connection.
struct RenewingTLSChannel: ServerChildChannel {
    typealias Value = GuardedHTTP1Channel.Value
    let base: GuardedHTTP1Channel
    let holder: TLSContextHolder

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: holder.current))
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async { await base.handle(value: value, logger: logger) }
}

extension HTTPServerBuilder {
    /// HTTPS with DoseTap's connection limits and a context that renewal can replace.
    static func guardedHTTPS(_ governor: ConnectionGovernor, _ holder: TLSContextHolder) -> HTTPServerBuilder {
        .init { responder in RenewingTLSChannel(base: guardedHTTP1Channel(responder, governor), holder: holder) }
    }
}

/// Looks at the certificate every `interval` while the server runs: one that `tls init` made and that has fallen due is
/// issued again and swapped in for new connections; of any other that is due, it warns in the log.
struct CertificateRenewalService: Service {
    let files: TLSFiles
    let holder: TLSContextHolder
    let environment: AppEnvironment
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await environment.sleep(interval)
                if Task.isCancelled { return }
                check()
            }
        }
    }

    func check() {
        do {
            switch try LocalCertificates.renewIfDue(files, hostName: ProcessInfo.processInfo.hostName, now: environment.now()) {
            case .renewed(let note):
                try holder.reload(files)
                // The sentence names the certificate's files; the diagnostic log keeps the fixed message only.
                logger.notice("the server certificate was renewed")
                logger.notice("\(note) New connections use it.")
            case .due(let warning):
                logger.warning("the server certificate is due")
                logger.warning("\(warning)")
            case nil:
                // Renewed by someone else (another instance of the store, an ACME client): new connections get it too.
                if try holder.reloadIfChanged(files) { logger.notice("the server certificate file changed; new connections use it") }
            }
        } catch {
            logger.error("the server certificate could not be renewed", metadata: ["error": "\(type(of: error))"])
        }
    }
}
