import DoseApp
import DoseCore
import HTTPTypes
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// How long a client may take and how many may be connected at once. The server is the alarm clock: no client, slow or
/// hostile, may hold it, so every phase of a connection has a deadline and the connection count has a cap.
public struct ConnectionLimits: Sendable {
    /// From a request's first byte (or a new connection) to the end of its headers.
    public var headerTimeout: TimeAmount
    /// From the end of the headers to the end of the body.
    public var bodyTimeout: TimeAmount
    /// A kept-alive connection with no request in flight is closed after this long.
    public var idleTimeout: TimeAmount
    /// Open connections at most; past it the oldest connection that is not being answered is closed.
    public var maxConnections: Int

    /// The defaults: 10 s for headers, 30 s for a body, 60 s idle, 512 connections.
    public init(
        headerTimeout: TimeAmount = .seconds(10), bodyTimeout: TimeAmount = .seconds(30), idleTimeout: TimeAmount = .seconds(60),
        maxConnections: Int = 512
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}

extension ConnectionLimits {
    /// Limits given in whole seconds, as `dosetap serve` takes them.
    public init(headerSeconds: Int, bodySeconds: Int, idleSeconds: Int, maxConnections: Int) {
        self.init(
            headerTimeout: .seconds(Int64(headerSeconds)), bodyTimeout: .seconds(Int64(bodySeconds)), idleTimeout: .seconds(Int64(idleSeconds)),
            maxConnections: maxConnections)
    }
}

/// Every open connection and what it is doing, shared by all event loops, so a connection over the cap can shed the
/// one that has waited longest without being answered: a slow or idle client, never a response being written (an
/// event stream to an open page) unless nothing else can go.
final class ConnectionGovernor: Sendable {
    private struct Entry {
        let channel: any Channel
        var answering: Bool
        var since: NIODeadline
    }

    let limits: ConnectionLimits
    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])
    private let shedCount = NIOLockedValueBox(0)

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Connections open now.
    var count: Int { entries.withLockedValue { $0.count } }
    /// Connections closed to make room since the server started.
    var shed: Int { shedCount.withLockedValue { $0 } }

    /// Registers a new connection; returns the connection to close when the cap is exceeded.
    func opened(_ channel: any Channel, now: NIODeadline) -> (any Channel)? {
        let victim: (any Channel)? = entries.withLockedValue { entries in
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, answering: false, since: now)
            guard entries.count > limits.maxConnections else { return nil }
            let others = entries.filter { $0.key != ObjectIdentifier(channel) }.map(\.value)
            let waiting = others.filter { !$0.answering }.min { $0.since < $1.since }
            let oldest = waiting ?? others.min { $0.since < $1.since }
            guard let oldest else { return nil }
            entries[ObjectIdentifier(oldest.channel)] = nil
            return oldest.channel
        }
        if victim != nil { shedCount.withLockedValue { $0 += 1 } }
        return victim
    }

    /// Records that a connection is (or is no longer) being answered. Its `since` moves only when that changes: a
    /// client that starts sending a request has still waited since it connected (or was last answered), so under load,
    /// when bytes are read late, a connection's place in the shedding order is still the order it came in.
    func update(_ channel: any Channel, answering: Bool, since: NIODeadline) {
        entries.withLockedValue { entries in
            guard let entry = entries[ObjectIdentifier(channel)], entry.answering != answering else { return }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, answering: answering, since: since)
        }
    }

    /// Forgets a closed connection.
    func closed(_ channel: any Channel) {
        _ = entries.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// The phase a connection is in and its deadline; shared by the connection's two handlers, on its event loop.
final class ConnectionClock {
    enum Phase: Equatable {
        /// Connected or kept alive, no byte of a request yet.
        case waiting(fresh: Bool)
        case readingHead
        case readingBody
        /// The request is read; its response is being written (an event stream may take hours).
        case answering
    }

    /// nil only for a handler that never joined a connection's pipeline; such a clock does nothing.
    let governor: ConnectionGovernor?
    private(set) var phase = Phase.waiting(fresh: true)
    private var deadline: Scheduled<Void>?
    private var channel: (any Channel)?

    init(governor: ConnectionGovernor?) { self.governor = governor }

    func start(_ channel: any Channel) {
        guard self.channel == nil, let governor else { return }
        self.channel = channel
        if let victim = governor.opened(channel, now: .now()) { victim.close(promise: nil) }
        enter(.waiting(fresh: true))
    }

    func stop() {
        deadline?.cancel()
        deadline = nil
        if let channel { governor?.closed(channel) }
    }

    /// Moves to a phase and arms its deadline; answering has none.
    func enter(_ next: Phase) {
        guard let channel, let governor else { return }
        phase = next
        deadline?.cancel()
        deadline = nil
        let limits = governor.limits
        let timeout: TimeAmount? =
            switch next {
            case .waiting(fresh: true), .readingHead: limits.headerTimeout
            case .waiting(fresh: false): limits.idleTimeout
            case .readingBody: limits.bodyTimeout
            case .answering: nil
            }
        governor.update(channel, answering: next == .answering, since: .now())
        if let timeout {
            deadline = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
    }

    /// Whether a request is between its head and its response's end, so the router owns any error.
    var requestInFlight: Bool { phase == .readingBody || phase == .answering }
}

/// First in the pipeline: sees raw bytes, so the header deadline starts at a request's first byte, and registers the
/// connection with the governor.
final class ConnectionBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let clock: ConnectionClock

    init(clock: ConnectionClock) { self.clock = clock }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { clock.start(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        clock.start(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        clock.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { clock.stop() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .waiting = clock.phase { clock.enter(.readingHead) }
        context.fireChannelRead(data)
    }
}

/// After HTTP decoding: follows requests and responses to move the connection's deadline, and answers malformed
/// framing that arrives outside a request (a bad request line or header) with the JSON error body, not a bare 400.
final class ConnectionPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
    /// The connection's clock, owned by its bytes handler (Hummingbird makes this handler before the connection exists).
    private var clock = ConnectionClock(governor: nil)

    func handlerAdded(context: ChannelHandlerContext) {
        if let bytes = try? context.pipeline.syncOperations.handler(type: ConnectionBytesHandler.self) { clock = bytes.clock }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a refusal at the head, the rest of that request is dropped while the connection closes.
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let refusal = Self.refusal(of: head) {
                refusing = true
                return answerAndClose(context, status: refusal.status, error: refusal.error)
            }
            answered = false
            clock.enter(.readingBody)
        case .body: break
        // A response can end before its request does (a refusal before the body is read): then the request's end
        // leaves the connection idle, not answering, or it would wait forever with no deadline.
        case .end: clock.enter(answered ? .waiting(fresh: false) : .answering)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answered = true
            if clock.phase == .answering { clock.enter(.waiting(fresh: false)) }
        }
        context.write(data, promise: promise)
    }

    /// Whether the current request's response has ended.
    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !clock.requestInFlight else {
            // Inside a request the router's error middleware answers it (a malformed chunk while the body is read).
            context.fireErrorCaught(error)
            return
        }
        answerAndClose(context, status: .badRequest, error: ConnectionPartsHandler.malformed)
    }

    /// Set once a request was refused at its head; the connection is closing.
    private var refusing = false

    /// A request refused before it reaches the router: `CONNECT` (DoseTap is no proxy), and a `Content-Length` that is
    /// not a number or is larger than any route takes (answered now, not after waiting for bytes that never come).
    static func refusal(of head: HTTPRequest) -> (status: HTTPResponse.Status, error: DoseError)? {
        if head.method == .connect {
            return (
                .methodNotAllowed,
                DoseError.methodNotAllowed(method: "CONNECT", path: head.path ?? "", allowed: ["GET", "POST", "PUT", "PATCH", "DELETE"])
            )
        }
        let lengths = head.headerFields[values: .contentLength]
        guard !lengths.isEmpty else { return nil }
        guard lengths.count == 1, let length = lengths.first.flatMap({ Int($0) }), length >= 0 else {
            return (.badRequest, malformed)
        }
        if length > ServerLimits.importBody { return (.contentTooLarge, DoseError.tooLarge(what: "the request body", limit: "20 MiB")) }
        return nil
    }

    /// Writes the JSON error with its length and `Connection: close`, then closes the connection.
    private func answerAndClose(_ context: ChannelHandlerContext, status: HTTPResponse.Status, error: DoseError) {
        let body = ByteBuffer(string: JSONValue(response: ErrorResponse(error)).rendered())
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close"]
        SecurityHeadersMiddleware.apply(to: &fields)
        let head = HTTPResponse(status: status, headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// The answer to bytes that are not HTTP/1.1.
    static let malformed = DoseError.invalidInput(
        field: "request", problem: "the request is not well-formed HTTP/1.1",
        allowed: "an HTTP/1.1 request with valid headers and framing")
}

/// HTTP/1.1 with the connection limits: Hummingbird's own channel, with a handler before its decoder (first bytes,
/// the connection cap) and one after (request and response phases).
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel
    let governor: ConnectionGovernor

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let clock = ConnectionClock(governor: governor)
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionBytesHandler(clock: clock), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with DoseTap's connection limits.
    static func guardedHTTP1(_ governor: ConnectionGovernor) -> HTTPServerBuilder {
        .init { responder in guardedHTTP1Channel(responder, governor) }
    }

    /// One guarded HTTP/1.1 connection, plain or (wrapped) behind TLS.
    static func guardedHTTP1Channel(_ responder: @escaping HTTPChannelHandler.Responder, _ governor: ConnectionGovernor) -> GuardedHTTP1Channel {
        GuardedHTTP1Channel(
            inner: HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [ConnectionPartsHandler()])), governor: governor
        )
    }
}
