public import Foundation

/// `scripts/push-service.py`, started for one test: a Web Push service on loopback built on `http_ece` and
/// `cryptography` (PyPI), which makes real subscriptions, verifies each request's VAPID JWT, decrypts its body, and
/// answers with the statuses it was given. It exits when the test process does.
public final class PushService: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    /// Where the service writes one JSON line per request.
    public let log: URL
    /// Each subscription as the browser's `PushSubscription.toJSON()` text, by name.
    public let subscriptions: [String: String]

    public enum Failure: Error { case didNotStart(String) }

    /// Starts the service with one subscription per `NAME=STATUS,…` (201 once the list runs out).
    public init(_ specs: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/push-service.py")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).log")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, log.path] + specs
        let output = Pipe()
        process.standardOutput = output
        // The service exits when this end of its stdin closes, so it never outlives the test process; its stderr is
        // not the test runner's, which would otherwise wait for it.
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let listing = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let subscriptions = listing["subscriptions"] as? [String: Any]
        else {
            process.terminate()
            throw Failure.didNotStart(String(decoding: line, as: UTF8.self) + " (does `python3 -m pip install http_ece cryptography` need running?)")
        }
        self.subscriptions = subscriptions.compactMapValues { value in
            (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(at: log)
    }

    /// Every request received, oldest first, as the service logged it: `subscription`, `status`, `ttl`, `urgency`,
    /// `topic`, `encoding`, the verified `vapid` claims, the decrypted `payload`, or an `error`.
    public var requests: [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The requests made to one subscription.
    public func requests(to name: String) -> [[String: Any]] { requests.filter { $0["subscription"] as? String == name } }
}
