public import DoseApp
public import DoseCore
import DoseStore
import Foundation
import Logging

/// POSTs each notice to a webhook, retrying with backoff. `json` sends the notice object; `ntfy` sends the message
/// as the body with ntfy's Title, Priority and Tags headers.
public struct WebhookDelivery: ReminderDelivery {
    public enum Format: String, Sendable, CaseIterable { case json, ntfy }

    public let url: String
    public let format: Format
    public let audience: ReminderAudience
    /// Sends the requests (`AppEnvironment.http`).
    public let sender: any OutboundSender
    public let retries: RetryPolicy
    /// The rule a target chosen by a device must pass before each attempt; nil for the operator's own `--webhook`.
    public let targets: OutboundTargets?
    let logger: Logger

    /// A webhook that sends, waits between retries and logs through `environment`. `checkingTargets` holds the URL to
    /// `environment.outbound` before each attempt: for a target a device chose, not the operator's own `--webhook`.
    public init(
        url: String, format: Format, audience: ReminderAudience = .sleeper, environment: AppEnvironment, checkingTargets: Bool = false,
        backoff: [Duration] = [.seconds(1), .seconds(4), .seconds(15)]
    ) {
        self.url = url
        self.format = format
        self.audience = audience
        sender = environment.http
        targets = checkingTargets ? environment.outbound : nil
        retries = RetryPolicy(backoff: backoff, sleep: environment.sleep)
        var logger = environment.logger
        logger[metadataKey: "channel"] = "webhook"
        self.logger = logger
    }

    /// The alarm-log channel: ntfy or a JSON webhook.
    var channel: AlarmChannel { format == .ntfy ? .ntfy : .webhook }
    /// What the log shows of the URL: its host, never its path (an ntfy topic is its secret).
    var target: String { URLComponents(string: url)?.host ?? "webhook" }

    public func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        if log.deliveredBefore(notice, channel: channel, target: target) { return }
        var request = OutboundRequest(post: url)
        // The same occurrence always carries the same key, so a receiver can drop a copy sent again after a crash.
        request.headers.append(("Idempotency-Key", notice.occurrence))
        switch format {
        case .json:
            request.headers.append(("Content-Type", "application/json"))
            request.body = Data(notice.json.rendered().utf8)
        case .ntfy:
            request.headers.append(("Title", notice.audience == .contact ? "DoseTap — please check on them" : "DoseTap"))
            request.headers.append(("Priority", notice.rings ? "urgent" : "default"))
            request.headers.append(("Tags", notice.audience == .contact ? "warning" : notice.rings ? "alarm_clock" : "pill"))
            // `view` buttons open the link's page, which asks once more and shows any refusal in words; an `http`
            // button would act unseen and swallow a refusal.
            let buttons = ActionLink.Action.allCases.compactMap { action in notice.links[action].map { "view, \(action.label), \($0)" } }
            if !buttons.isEmpty { request.headers.append(("Actions", buttons.joined(separator: "; "))) }
            request.body = Data(notice.message.utf8)
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
                let answer = try await sender.send(request, over: connection)
                (status, retryAfter) = (answer.status, answer.retryAfter)
                if (200..<300).contains(answer.status) {
                    log.record(notice, channel: channel, target: target, attempt: attempt, outcome: .accepted, httpStatus: status, started: started)
                    return
                }
            } catch let error as NoOutboundSender.Unavailable {
                return log.record(
                    notice, channel: channel, target: target, attempt: attempt, outcome: .failed, detail: "not sent: \(error)", started: started)
            } catch {
                // The URL may carry a secret: log only the attempt and the error's type.
                logger.warning("webhook delivery failed", metadata: ["attempt": "\(attempt)", "error": "\(type(of: error))"])
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
