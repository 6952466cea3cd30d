public import Foundation

/// One request DoseTap makes to another host: an alarm's webhook or ntfy post, or a Web Push message.
public struct OutboundRequest: Sendable, Equatable {
    /// The target, as the operator or the device gave it.
    public var url: String
    /// The method; every request DoseTap makes today is a POST.
    public var method: String
    /// Header fields in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The body's bytes.
    public var body: Data

    /// A request to `url` with no headers and no body yet.
    public init(post url: String) {
        self.url = url
        method = "POST"
        headers = []
        body = Data()
    }

    /// The first value of a header field, its name in any case.
    public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    public static func == (lhs: OutboundRequest, rhs: OutboundRequest) -> Bool {
        lhs.url == rhs.url && lhs.method == rhs.method && lhs.body == rhs.body
            && lhs.headers.map { [$0.name, $0.value] } == rhs.headers.map { [$0.name, $0.value] }
    }
}

/// What another host answered: what a delivery needs to decide between done, retry and give up.
public struct OutboundAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// `Retry-After` in seconds, when the host sent one as a number.
    public var retryAfter: Int?

    /// An answer from its status and `Retry-After`.
    public init(status: Int, retryAfter: Int? = nil) {
        self.status = status
        self.retryAfter = retryAfter
    }
}

/// Sends outbound requests. The program's sender is an HTTP client that follows no redirect and connects a pinned name
/// to the address `OutboundTargets` checked; a test gives one that records requests and answers as a peer would.
public protocol OutboundSender: Sendable {
    /// Sends `request` over `connection` (never `.refused`: a refused target is not sent to) and reads the answer.
    func send(_ request: OutboundRequest, over connection: OutboundTargets.Connection) async throws -> OutboundAnswer
}

/// The sender of an environment no edge gave one: it sends nothing and says so, so an alarm that could not go out is
/// logged as not sent with the reason, never as sent.
public struct NoOutboundSender: OutboundSender {
    /// The refusal every request meets.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String { "this DoseTap was started without an HTTP client, so nothing can be sent to another host" }
    }

    public init() {}

    public func send(_ request: OutboundRequest, over connection: OutboundTargets.Connection) async throws -> OutboundAnswer {
        throw Unavailable()
    }
}
