import DoseCore
public import Foundation
public import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Why a message was not submitted: a refusal that will not change (5xx, or a server that cannot be trusted with it) is
/// permanent; anything else (4xx, a connection lost, a timeout) may be tried again.
public struct SMTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var permanent: Bool
    public var reason: String

    public var description: String { reason }
}

/// Submits one message per connection to the configured server (SPEC §5.7), in the process, on SwiftNIO and
/// swift-nio-ssl. In the process rather than through a sendmail-like program: an instance killed mid-send takes its
/// connection with it, so the server, which accepts a message only at the final dot, never has half of one; a child
/// program would live on and deliver a message that another instance then sends again.
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings
    /// How long one reply may take (and the connection, to open).
    public var timeout: TimeAmount = .seconds(30)
    /// The name this client gives in EHLO.
    public var clientName = "dosetap.localhost"

    public init(settings: SMTPSettings) { self.settings = settings }

    /// Submits `message` from the configured sender; returns the server's last reply to it.
    @discardableResult
    public func send(_ message: MailMessage, at date: Date) async throws(SMTPFailure) -> String {
        let channel: any Channel
        let replies = SMTPReplies()
        do {
            let tls = try settings.security == .implicitTLS ? makeTLSContext() : nil
            let name = serverHostname
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: name)) }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        try channel.pipeline.syncOperations.addHandler(replies)
                    }
                }
                .connect(host: settings.host, port: settings.port).get()
        } catch let failure as SMTPFailure {
            throw failure
        } catch {
            throw SMTPFailure(permanent: false, reason: "\(settings.redacted) could not be reached: \(error)")
        }
        defer { channel.close(promise: nil) }
        do {
            return try await converse(channel, replies, message, date)
        } catch let failure as SMTPFailure {
            throw failure
        } catch {
            throw SMTPFailure(permanent: false, reason: "the connection to \(settings.redacted) failed: \(error)")
        }
    }

    private func converse(_ channel: any Channel, _ replies: SMTPReplies, _ message: MailMessage, _ date: Date) async throws -> String {
        func reply(expecting codes: ClosedRange<Int>, to what: String) async throws -> SMTPReply {
            let answer = try await replies.next(on: channel.eventLoop, within: timeout).get()
            guard codes.contains(answer.code) else {
                throw SMTPFailure(permanent: answer.code >= 500, reason: "\(settings.redacted) answered \(what) with \(answer.text)")
            }
            return answer
        }
        func say(_ line: String, _ codes: ClosedRange<Int>, _ what: String) async throws -> SMTPReply {
            try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n")).get()
            return try await reply(expecting: codes, to: what)
        }
        _ = try await reply(expecting: 220...220, to: "the connection")
        var features = try await say("EHLO \(clientName)", 250...250, "EHLO").features
        var secure = settings.security == .implicitTLS
        if !secure {
            if features.contains("STARTTLS") {
                _ = try await say("STARTTLS", 220...220, "STARTTLS")
                let (tls, name) = (try makeTLSContext(), serverHostname)
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: name), position: .first)
                }.get()
                secure = true
                features = try await say("EHLO \(clientName)", 250...250, "EHLO after STARTTLS").features
            } else if !settings.isLoopback {
                throw SMTPFailure(
                    permanent: true, reason: "\(settings.redacted) does not offer STARTTLS, and mail leaves this machine only encrypted")
            }
        }
        if let user = settings.user {
            guard secure || settings.isLoopback else {
                throw SMTPFailure(permanent: true, reason: "credentials are sent to \(settings.redacted) only over TLS")
            }
            let plain = Data("\u{0}\(user)\u{0}\(settings.password ?? "")".utf8).base64EncodedString()
            _ = try await say("AUTH PLAIN \(plain)", 235...235, "AUTH")
        }
        _ = try await say("MAIL FROM:<\(settings.from.text)>", 250...250, "MAIL FROM")
        _ = try await say("RCPT TO:<\(message.to.text)>", 250...251, "RCPT TO")
        _ = try await say("DATA", 354...354, "DATA")
        let body = Self.dotStuffed(message.rendered(from: settings.from, at: date))
        let accepted = try await say(body + ".", 250...250, "the message")
        try? await channel.writeAndFlush(ByteBuffer(string: "QUIT\r\n")).get()
        return accepted.text
    }

    /// Lines that begin with a dot get another (RFC 5321 §4.5.2), so no line of the message ends it early.
    static func dotStuffed(_ rendered: String) -> String {
        rendered.components(separatedBy: "\r\n").map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n")
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.trustedCertificates { configuration.trustRoots = .file(file) }
        return try NIOSSLContext(configuration: configuration)
    }

    /// The name checked against the certificate and sent as SNI; nil for an address, checked against its IP entries.
    private var serverHostname: String? {
        (try? SocketAddress(ipAddress: settings.host.trimmingCharacters(in: ["[", "]"]), port: 0)) != nil ? nil : settings.host
    }
}

/// One SMTP reply: its code and its lines' text.
struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]

    var text: String { "\(code) " + lines.joined(separator: " / ") }
    /// The extensions an EHLO reply names (first word of each line after the greeting), upper case.
    var features: Set<String> { Set(lines.dropFirst().compactMap { $0.split(separator: " ").first.map { $0.uppercased() } }) }
}

/// Reads replies: lines of "NNN-text" continued until one "NNN text"; a line longer than 4,096 bytes ends the connection.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > 4_096 { throw SMTPFailure(permanent: false, reason: "the mail server sent a line of over 4,096 bytes") }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        var line = buffer.readString(length: length) ?? ""
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
            throw SMTPFailure(permanent: false, reason: "the mail server sent something that is not a reply: \(line.prefix(80))")
        }
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return .continue }
        context.fireChannelRead(Self.wrapInboundOut(SMTPReply(code: code, lines: lines)))
        lines = []
        return .continue
    }
}

/// Hands each reply to the conversation, in order; a closed connection or an error fails whoever waits.
final class SMTPReplies: ChannelInboundHandler, Sendable {
    typealias InboundIn = SMTPReply

    private struct State {
        var arrived: [SMTPReply] = []
        var waiting: [EventLoopPromise<SMTPReply>] = []
        var ended: (any Error)?
    }

    private let state = Mutex(State())

    /// The next reply, failed after `limit`.
    func next(on loop: any EventLoop, within limit: TimeAmount) -> EventLoopFuture<SMTPReply> {
        let promise = loop.makePromise(of: SMTPReply.self)
        state.withLock { state in
            if !state.arrived.isEmpty {
                promise.succeed(state.arrived.removeFirst())
            } else if let ended = state.ended {
                promise.fail(ended)
            } else {
                state.waiting.append(promise)
            }
        }
        let timer = loop.scheduleTask(in: limit) {
            promise.fail(SMTPFailure(permanent: false, reason: "the mail server did not answer within \(limit.nanoseconds / 1_000_000_000) s"))
        }
        promise.futureResult.whenComplete { _ in timer.cancel() }
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = unwrapInboundIn(data)
        let waiter = state.withLock { state -> EventLoopPromise<SMTPReply>? in
            if state.waiting.isEmpty {
                state.arrived.append(reply)
                return nil
            }
            return state.waiting.removeFirst()
        }
        waiter?.succeed(reply)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(SMTPFailure(permanent: false, reason: "the mail server closed the connection"))
        context.fireChannelInactive()
    }

    private func end(_ error: any Error) {
        let waiting = state.withLock { state in
            if state.ended == nil { state.ended = error }
            defer { state.waiting = [] }
            return state.waiting
        }
        for promise in waiting { promise.fail(error) }
    }
}
