public import AsyncHTTPClient
import DoseApp
import DoseCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// POSTs each reminder to a webhook, retrying with backoff. `json` sends the notice object; `ntfy` sends the message
/// as the body with ntfy's Title, Priority and Tags headers.
public struct WebhookDelivery: ReminderDelivery {
    public enum Format: String, Sendable, CaseIterable { case json, ntfy }

    public let url: String
    public let format: Format
    public let client: HTTPClient
    /// Delays before the second, third, … attempts.
    public let backoff: [Duration]
    let sleep: @Sendable (Duration) async throws -> Void
    let logger = Logger(label: "dosetap.webhook")

    public init(
        url: String, format: Format, client: HTTPClient = .shared, backoff: [Duration] = [.seconds(1), .seconds(4), .seconds(15)],
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.url = url
        self.format = format
        self.client = client
        self.backoff = backoff
        self.sleep = sleep
    }

    public func deliver(_ notice: ReminderNotice) async {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        switch format {
        case .json:
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: notice.json.rendered()))
        case .ntfy:
            request.headers.add(name: "Title", value: "DoseTap")
            request.headers.add(name: "Priority", value: notice.kind.rings ? "urgent" : "default")
            request.headers.add(name: "Tags", value: notice.kind.rings ? "alarm_clock" : "pill")
            // `view` buttons open the link's page, which asks once more and shows any refusal in words; an `http`
            // button would act unseen and swallow a refusal.
            let buttons = ActionLink.Action.allCases.compactMap { action in notice.links[action].map { "view, \(action.label), \($0)" } }
            if !buttons.isEmpty { request.headers.add(name: "Actions", value: buttons.joined(separator: "; ")) }
            request.body = .bytes(ByteBuffer(string: notice.kind.message))
        }
        for attempt in 0...backoff.count {
            if attempt > 0 { try? await sleep(backoff[attempt - 1]) }
            do {
                let response = try await client.execute(request, timeout: .seconds(10))
                if (200..<300).contains(Int(response.status.code)) { return }
            } catch {
                // The URL may carry a secret: log only the attempt.
                logger.warning("webhook delivery failed", metadata: ["attempt": "\(attempt + 1)"])
            }
        }
    }
}
