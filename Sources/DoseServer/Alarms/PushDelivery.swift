public import DoseApp
public import DoseCore
public import DoseStore
import Foundation
import Logging

/// How Web Push requests are made: the VAPID contact and the retries (the sender is `AppEnvironment.http`).
public struct PushOptions: Sendable {
    /// The VAPID `sub` claim (`mailto:` or `https:`).
    public var subject: String
    public var retries: RetryPolicy

    public init(
        subject: String = VAPID.defaultSubject,
        backoff: [Duration] = [.seconds(2), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300)],
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.subject = subject
        retries = RetryPolicy(backoff: backoff, sleep: sleep)
    }
}

/// Web Push (RFC 8030) to every subscription of one role: each notice encrypted for each browser (RFC 8291), signed
/// with the server's VAPID key (RFC 8292), with `TTL` set to the seconds it stays useful, `Urgency: high` and a
/// `Topic`, retried with backoff while it is useful. A 404 or 410 removes the subscription.
public struct PushDelivery: ReminderDelivery {
    let environment: AppEnvironment
    let role: PushRole
    let options: PushOptions
    let logger: Logger

    public init(environment: AppEnvironment, role: PushRole, options: PushOptions) {
        self.environment = environment
        self.role = role
        self.options = options
        var logger = environment.logger
        logger[metadataKey: "channel"] = "push"
        self.logger = logger
    }

    public var audience: ReminderAudience { role == .alarm ? .sleeper : .contact }

    public func deliver(_ notice: ReminderNotice, log: DeliveryLog) async {
        let app = environment.useCases()
        guard let subscriptions = try? app.alarms.subscriptions(role: role), !subscriptions.isEmpty else { return }
        guard let vapid = try? app.alarms.vapid(subject: options.subject) else {
            logger.error("the VAPID key could not be read; no push was sent")
            return
        }
        let signer = try? app.reminders.signer()
        var seen: [String: Int] = [:]
        await withTaskGroup(of: Void.self) { group in
            for (subscription, device) in subscriptions {
                // A device with two subscriptions (two browsers on one token) shows as "phone", "phone #2".
                seen[device, default: 0] += 1
                let target = seen[device] == 1 ? device : "\(device) #\(seen[device] ?? 0)"
                if log.deliveredBefore(notice, channel: .push, target: target) { continue }
                // Its links are issued to the subscription's device, so revoking the device voids them.
                let payload = Data(notice.issued(to: subscription.deviceID, signer: signer).pushPayload.rendered().utf8)
                group.addTask { await send(payload, notice, to: subscription, device: target, vapid: vapid, log: log) }
            }
        }
    }

    func send(_ payload: Data, _ notice: ReminderNotice, to subscription: PushSubscriptionRecord, device: String, vapid: VAPID, log: DeliveryLog)
        async
    {
        var attempt = 0
        while true {
            attempt += 1
            let started = ContinuousClock.now
            let now = log.now()
            func record(_ outcome: DeliveryOutcome, _ status: Int?, _ detail: String?) {
                log.record(
                    notice, channel: .push, target: device, attempt: attempt, outcome: outcome, httpStatus: status, detail: detail, started: started)
            }
            let ttl = Int(notice.usefulUntil.timeIntervalSince(now).rounded(.down))
            guard ttl > 0 else { return record(.failed, nil, "it stopped being useful before it could be delivered") }
            var status: Int?
            var retryAfter: Int?
            let targets = environment.outbound
            let endpointURL = subscription.endpoint
            let connection = (try? await BlockingWork.run { targets.checkBeforeConnecting(endpointURL) }) ?? .refused("it could not be checked")
            if case .refused(let problem) = connection { return record(.failed, nil, "not sent: \(problem)") }
            do {
                guard let request = try request(payload, notice.topic, to: subscription, ttl: ttl, vapid: vapid) else {
                    return record(.failed, nil, "the subscription is damaged; subscribe again")
                }
                let answer = try await environment.http.send(request, over: connection)
                (status, retryAfter) = (answer.status, answer.retryAfter)
            } catch let error as WebPushError {
                return record(.failed, nil, error.description)
            } catch let error as NoOutboundSender.Unavailable {
                return record(.failed, nil, "not sent: \(error)")
            } catch {
                // A device's name is the person's own words: the log gets the attempt and the error's type only.
                logger.warning("push delivery failed", metadata: ["attempt": "\(attempt)", "error": "\(type(of: error))"])
            }
            switch status {
            case let code? where (200..<300).contains(code):
                return record(.accepted, code, nil)
            case 404?, 410?:
                // The browser unsubscribed, or the subscription expired: it will never take a push again.
                try? environment.useCases().alarms.forget(endpoint: subscription.endpoint)
                return record(.removed, status, "the push service says this subscription is gone; it was removed")
            case nil, 429?, (500...599)?:
                let detail = status.map { "HTTP \($0)" } ?? "could not reach the push service"
                guard
                    let delay = options.retries.delay(after: attempt, retryAfterSeconds: retryAfter, now: log.now(), usefulUntil: notice.usefulUntil)
                else { return record(.failed, status, detail) }
                record(.retrying, status, detail)
                guard await options.retries.wait(delay) else { return }
            case let code?:
                return record(.failed, code, "the push service refused it (HTTP \(code))")
            }
        }
    }

    /// The push request for one subscription (RFC 8030, RFC 8291's encryption, RFC 8292's VAPID), or nil when the stored
    /// subscription is damaged.
    func request(_ payload: Data, _ topic: String, to subscription: PushSubscriptionRecord, ttl: Int, vapid: VAPID) throws -> OutboundRequest? {
        guard let endpoint = URL(string: subscription.endpoint), let key = Base64URL.decode(subscription.p256dh),
            let auth = Base64URL.decode(subscription.auth)
        else { return nil }
        var request = OutboundRequest(post: subscription.endpoint)
        request.headers = [
            ("TTL", String(ttl)), ("Urgency", "high"), ("Topic", topic), ("Content-Encoding", "aes128gcm"),
            ("Content-Type", "application/octet-stream"),
        ]
        // The push service checks the token's expiry against its own clock, which is the real one, whatever clock the
        // night runs on (`--now`, a test's).
        request.headers.append(("Authorization", try vapid.authorization(endpoint: endpoint, now: environment.wallClock())))
        request.body = try WebPushMessage.encrypt(payload, userAgentPublicKey: key, authSecret: auth)
        return request
    }
}
