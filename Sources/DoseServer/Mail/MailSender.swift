public import DoseApp
import DoseCore
public import DoseStore
public import Foundation
import Logging
import ServiceLifecycle

/// Sends the mail queue of a shared store (SPEC §5.7), whichever instances run: each round claims the messages due that
/// no live lease holds, sends each on its own connection, and records how it ended. A message is sent once across
/// instances: a claim is a lease, and the server accepts a message only at its final dot, so an instance killed
/// mid-send leaves nothing sent, and another sends it once the lease runs out. (Killed in the instant between the
/// server's acceptance and the record of it, the message goes twice, with the same `Message-ID`.) A refusal that will
/// not change gives the message up at once; anything else is tried again after `backoff`, then given up.
public actor MailSender {
    let store: PostgresStore
    let client: SMTPClient
    let environment: AppEnvironment
    /// This instance's name on its leases, unique per run.
    public nonisolated let owner: String
    /// How long a claim holds: longer than one message can take (the client's timeouts).
    public static let defaultLease: TimeInterval = 180
    let lease: TimeInterval
    /// Waits before the second, third, … try; after the last, the message is given up.
    public static let backoff: [TimeInterval] = [60, 300, 1_800, 7_200, 21_600]
    static let batch = 20

    public init(store: PostgresStore, client: SMTPClient, environment: AppEnvironment, lease: TimeInterval = MailSender.defaultLease) {
        self.store = store
        self.lease = lease
        self.client = client
        self.environment = environment
        owner = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/mail/\(UUID().uuidString.prefix(8))"
    }

    /// One round: claims what is due and sends it, one message after another. Returns how many it claimed.
    @discardableResult
    public func round() async -> Int {
        let (store, owner, now, lease) = (self.store, self.owner, environment.now(), self.lease)
        guard let claimed = try? await BlockingWork.run({ try store.claimMail(owner: owner, now: now, lease: lease, limit: Self.batch) })
        else { return 0 }
        for job in claimed {
            let outcome = await send(job)
            let finishedAt = environment.now()
            do {
                try await BlockingWork.run { try store.finishMail(job.id, owner: owner, at: finishedAt, outcome) }
            } catch {
                environment.logger.error("mail \(job.id): its outcome could not be recorded; the lease runs out and it is tried again: \(error)")
            }
        }
        return claimed.count
    }

    /// Sends one message; what the try came to.
    func send(_ job: MailJob) async -> MailOutcome {
        guard let recipient = try? EmailAddress(job.recipient) else { return .failed(reason: "'\(job.recipient)' is not an address") }
        let message = MailMessage(to: recipient, subject: job.subject, text: job.text, html: job.html, id: "\(job.id)@dosetap")
        do {
            try await client.send(message, at: environment.wallClock())
            environment.logger.info("mail \(job.id) (\(job.kind.rawValue)) sent")
            return .sent
        } catch {
            environment.logger.warning("mail \(job.id) (\(job.kind.rawValue)) not sent: \(error.reason)")
            if error.permanent || job.attempts >= Self.backoff.count { return .failed(reason: String(error.reason.prefix(500))) }
            return .retry(at: environment.now().addingTimeInterval(Self.backoff[job.attempts]), reason: String(error.reason.prefix(500)))
        }
    }

    /// Rounds until cancelled, a second apart unless a round found a full batch.
    public func run(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            if await round() >= Self.batch { continue }
            do { try await environment.sleep(interval) } catch { break }
        }
    }
}

/// Sends the mail queue beside the HTTP server until a graceful shutdown.
struct MailSendingService: Service {
    let sender: MailSender

    func run() async throws {
        await cancelWhenGracefulShutdown { await sender.run() }
    }
}
