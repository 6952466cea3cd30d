public import Foundation

/// `scripts/push-service.py`, started for one test: a Web Push service on loopback built on `http_ece` and
/// `cryptography` (PyPI), which makes real subscriptions, verifies each request's VAPID JWT, decrypts its body, and
/// answers with the statuses it was given. It exits when the test process does.
public final class PushService: @unchecked Sendable {
    let peer: ScriptPeer
    /// Where the service writes one JSON line per request.
    public let log: URL
    /// Each subscription as the browser's `PushSubscription.toJSON()` text, by name.
    public let subscriptions: [String: String]

    public enum Failure: Error { case didNotStart(String) }

    /// Starts the service with one subscription per `NAME=STATUS,…` (201 once the list runs out).
    public init(_ specs: [String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).log")
        peer = try ScriptPeer("push-service.py", [log.path] + specs)
        guard let subscriptions = peer.ready?["subscriptions"] as? [String: Any] else {
            throw Failure.didNotStart(peer.readyText + " (does `python3 -m pip install http_ece cryptography` need running?)")
        }
        self.subscriptions = subscriptions.compactMapValues { value in
            (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    deinit { try? FileManager.default.removeItem(at: log) }

    /// Every request received, oldest first, as the service logged it: `subscription`, `status`, `ttl`, `urgency`,
    /// `topic`, `encoding`, the verified `vapid` claims, the decrypted `payload`, or an `error`.
    public var requests: [[String: Any]] { ScriptPeer.lines(of: log) }

    /// The requests made to one subscription.
    public func requests(to name: String) -> [[String: Any]] { requests.filter { $0["subscription"] as? String == name } }
}
