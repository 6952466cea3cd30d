public import AsyncHTTPClient
public import DoseApp
public import DoseCore
import DoseStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// POSTs each notice to a webhook, retrying with backoff. `json` sends the notice object; `ntfy` sends the message
/// as the body with ntfy's Title, Priority and Tags headers.
public struct WebhookDelivery: ReminderDelivery {
    public enum Format: String, Sendable, CaseIterable { case json, ntfy }

    public let url: String
    public let format: Format
    public let audience: ReminderAudience
    public let client: HTTPClient
    public let retries: RetryPolicy
    /// The rule a target chosen by a device must pass before each attempt; nil for the operator's own `--webhook`.
    public let targets: OutboundTargets?
    let logger = Logger(label: "dosetap.webhook")

    public init(
        url: String, format: Format, audience: ReminderAudience = .sleeper, client: HTTPClient = OutboundHTTP.client, targets: OutboundTargets? = nil,
        backoff: [Duration] = [.seconds(1), .seconds(4), .seconds(15)], sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.url = url
        self.format = format
        self.audience = audience
        self.client = client
        self.targets = targets
        retries = RetryPolicy(backoff: backoff, sleep: sleep)
    }

    /// The alarm-log channel: ntfy or a JSON webhook.
    var channel: AlarmChannel { format == .ntfy ? .ntfy : .webhook }
    /// What the log shows of the URL: its host, never its path (an ntfy topic is its secret).
    var target: String { URLComponents(string: url)?.host ?? "webhook" }

    public func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        switch format {
        case .json:
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: notice.json.rendered()))
        case .ntfy:
            request.headers.add(name: "Title", value: notice.audience == .contact ? "DoseTap — please check on them" : "DoseTap")
            request.headers.add(name: "Priority", value: notice.rings ? "urgent" : "default")
            request.headers.add(name: "Tags", value: notice.audience == .contact ? "warning" : notice.rings ? "alarm_clock" : "pill")
            // `view` buttons open the link's page, which asks once more and shows any refusal in words; an `http`
            // button would act unseen and swallow a refusal.
            let buttons = ActionLink.Action.allCases.compactMap { action in notice.links[action].map { "view, \(action.label), \($0)" } }
            if !buttons.isEmpty { request.headers.add(name: "Actions", value: buttons.joined(separator: "; ")) }
            request.body = .bytes(ByteBuffer(string: notice.message))
        }
        var attempt = 0
        while true {
            attempt += 1
            let started = ContinuousClock.now
            var status: Int?
            var retryAfter: Int?
            var connection = OutboundTargets.Connection.direct
            if let targets {
                connection = (try? await BlockingWork.run { [url] in targets.checkBeforeConnecting(url) }) ?? .refused("it could not be checked")
            }
            if case .refused(let problem) = connection {
                log.record(
                    notice, channel: channel, target: target, attempt: attempt, outcome: .failed, detail: "not sent: \(problem)", started: started)
                return
            }
            do {
                (status, retryAfter) = try await OutboundHTTP.send(request, with: client, connection)
                if (200..<300).contains(status ?? 0) {
                    log.record(notice, channel: channel, target: target, attempt: attempt, outcome: .accepted, httpStatus: status, started: started)
                    return
                }
            } catch {
                // The URL may carry a secret: log only the attempt.
                logger.warning("webhook delivery failed", metadata: ["attempt": "\(attempt)"])
            }
            let detail = status.map { "HTTP \($0)" } ?? "could not reach it"
            guard let delay = retries.delay(after: attempt, retryAfterSeconds: retryAfter, now: log.now(), usefulUntil: notice.usefulUntil) else {
                log.record(
                    notice, channel: channel, target: target, attempt: attempt, outcome: .failed, httpStatus: status, detail: detail, started: started
                )
                return
            }
            log.record(
                notice, channel: channel, target: target, attempt: attempt, outcome: .retrying, httpStatus: status, detail: detail, started: started)
            guard await retries.wait(delay) else { return }
        }
    }
}
