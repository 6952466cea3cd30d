public import Foundation
import PostgresNIO

/// One message in the mail queue (`PostgresSchema.v17MailJobs`).
public struct MailJob: Sendable, Equatable {
    /// What the message is for.
    public enum Kind: String, Sendable {
        case signIn = "sign_in"
        case invitation
        case alert
    }

    public var id: String
    public var recipient: String
    public var kind: Kind
    public var subject: String
    public var text: String
    public var html: String
    /// Tries made before this one.
    public var attempts: Int

    public init(id: String, recipient: String, kind: Kind, subject: String, text: String, html: String, attempts: Int = 0) {
        self.id = id
        self.recipient = recipient
        self.kind = kind
        self.subject = subject
        self.text = text
        self.html = html
        self.attempts = attempts
    }
}

/// How a try at sending a message ended.
public enum MailOutcome: Sendable, Equatable {
    case sent
    /// Try again at this time; the reason is kept for the operator.
    case retry(at: Date, reason: String)
    /// Given up: a permanent refusal, or out of tries.
    case failed(reason: String)
}

/// A message as the operator's page lists it: never its body.
public struct MailQueueEntry: Sendable, Equatable {
    public var id: String
    public var recipient: String
    public var kind: String
    public var state: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var nextAttemptAt: Date
}

/// The mail queue of a shared store: queued in the scheduler's scope, claimed by one instance under a lease (an
/// instance that dies mid-send gives its messages to the others once the lease runs out), and kept once done.
extension PostgresStore {
    /// Queues `job` to be sent from `now`, unless `recipient` was already sent `hourlyLimit` messages within the hour, or
    /// (with `quietSeconds`) a message of the same kind within that many seconds; false when it was held back.
    public func queueMail(_ job: MailJob, at now: Date, hourlyLimit: Int, quietSeconds: Int = 0) throws -> Bool {
        try transaction(seeing: .scheduler) { session in
            !(try session.rows(
                """
                INSERT INTO mail_jobs (id, recipient, kind, subject, body_text, body_html, state, next_attempt_at, created_at)
                SELECT \(job.id), \(job.recipient), \(job.kind.rawValue), \(job.subject), \(job.text), \(job.html), 'pending', \(now), \(now)
                WHERE (SELECT count(*) FROM mail_jobs WHERE recipient = \(job.recipient)
                       AND created_at > \(now)::timestamptz - interval '1 hour') < \(hourlyLimit)
                AND NOT EXISTS (SELECT 1 FROM mail_jobs WHERE recipient = \(job.recipient) AND kind = \(job.kind.rawValue) AND \(quietSeconds) > 0
                                AND created_at > \(now)::timestamptz - make_interval(secs => \(quietSeconds)))
                RETURNING 1
                """
            ).isEmpty)
        }
    }

    /// How many messages were queued for `recipient` in the hour before `now`.
    public func mailQueued(to recipient: String, inHourBefore now: Date) throws -> Int {
        try transaction(readOnly: true, seeing: .scheduler) { session in
            try session.rows(
                "SELECT count(*)::bigint FROM mail_jobs WHERE recipient = \(recipient) AND created_at > \(now)::timestamptz - interval '1 hour'"
            ).first?.decode(Int.self) ?? 0
        }
    }

    /// Claims up to `limit` messages due by `now` that no live lease holds, for `owner` until `now + lease`; another
    /// instance's claim in progress is skipped, never waited for.
    public func claimMail(owner: String, now: Date, lease: TimeInterval, limit: Int) throws -> [MailJob] {
        try transaction(seeing: .scheduler) { session in
            try session.rows(
                """
                UPDATE mail_jobs AS job SET lease_owner = \(owner), lease_until = \(now.addingTimeInterval(lease))
                FROM (SELECT id FROM mail_jobs
                      WHERE state = 'pending' AND next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until <= \(now))
                      ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED) AS due
                WHERE job.id = due.id
                RETURNING job.id, job.recipient, job.kind, job.subject, job.body_text, job.body_html, job.attempts
                """
            ).map { row in
                let (id, recipient, kind, subject, text, html, attempts) = try row.decode(
                    (String, String, String, String, String?, String?, Int).self)
                return MailJob(
                    id: id, recipient: recipient, kind: MailJob.Kind(rawValue: kind) ?? .alert, subject: subject, text: text ?? "",
                    html: html ?? "", attempts: attempts)
            }
        }
    }

    /// Records how `owner`'s try at message `id` ended; a message another instance took over meanwhile is left to it.
    /// A message sent or given up loses its body, which holds a one-use link.
    public func finishMail(_ id: String, owner: String, at now: Date, _ outcome: MailOutcome) throws {
        try transaction(seeing: .scheduler) { session in
            switch outcome {
            case .sent:
                try session.execute(
                    """
                    UPDATE mail_jobs SET state = 'sent', attempts = attempts + 1, done_at = \(now), body_text = NULL, body_html = NULL,
                        lease_owner = NULL, lease_until = NULL WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending'
                    """)
            case .retry(let at, let reason):
                try session.execute(
                    """
                    UPDATE mail_jobs SET attempts = attempts + 1, next_attempt_at = \(at), last_error = \(reason),
                        lease_owner = NULL, lease_until = NULL WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending'
                    """)
            case .failed(let reason):
                try session.execute(
                    """
                    UPDATE mail_jobs SET state = 'failed', attempts = attempts + 1, done_at = \(now), last_error = \(reason),
                        body_text = NULL, body_html = NULL, lease_owner = NULL, lease_until = NULL WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending'
                    """)
            }
        }
    }

    /// Deletes every message to `recipient` (a person removed: the address and the links were theirs).
    public func forgetMail(to recipient: String) throws {
        try transaction(seeing: .scheduler) { session in try session.execute("DELETE FROM mail_jobs WHERE recipient = \(recipient)") }
    }

    /// The newest `limit` messages, for the operator: pending and failed first.
    public func mailQueue(limit: Int = 100) throws -> [MailQueueEntry] {
        try transaction(readOnly: true, seeing: .scheduler) { session in
            try session.rows(
                """
                SELECT id, recipient, state, kind, attempts, last_error, created_at, next_attempt_at FROM mail_jobs
                ORDER BY state = 'sent', created_at DESC LIMIT \(limit)
                """
            ).map { row in
                let (id, recipient, state, kind, attempts, error, created, next) = try row.decode(
                    (String, String, String, String, Int, String?, Date, Date).self)
                return MailQueueEntry(
                    id: id, recipient: recipient, kind: kind, state: state, attempts: attempts, lastError: error, createdAt: created,
                    nextAttemptAt: next)
            }
        }
    }
}

/// The sizes of a shared store's queues, by state, for the operator's monitoring.
public struct QueueCounts: Sendable, Equatable {
    /// Reminder jobs: `pending` (not yet due or not claimed), `leased` (an instance holds them now).
    public var reminderJobs: [(String, Int)]
    /// Mail: `queued` (pending), `failed`.
    public var mail: [(String, Int)]

    public static func == (a: QueueCounts, b: QueueCounts) -> Bool {
        a.reminderJobs.map { "\($0)=\($1)" } == b.reminderJobs.map { "\($0)=\($1)" } && a.mail.map { "\($0)=\($1)" } == b.mail.map { "\($0)=\($1)" }
    }
}

extension PostgresStore {
    /// The reminder jobs and mail waiting, leased or failed now, in one read.
    public func queueCounts() throws -> QueueCounts {
        try transaction(readOnly: true, seeing: .scheduler) { session in
            let row = try session.rows(
                """
                SELECT (SELECT count(*) FROM reminder_jobs WHERE state IN ('pending', 'sending') AND (lease_until IS NULL OR lease_until <= now())),
                    (SELECT count(*) FROM reminder_jobs WHERE state IN ('pending', 'sending') AND lease_until > now()),
                    (SELECT count(*) FROM mail_jobs WHERE state = 'pending'), (SELECT count(*) FROM mail_jobs WHERE state = 'failed')
                """
            ).first
            let (pending, leased, queued, failed) = try row?.decode((Int, Int, Int, Int).self) ?? (0, 0, 0, 0)
            return QueueCounts(reminderJobs: [("pending", pending), ("leased", leased)], mail: [("queued", queued), ("failed", failed)])
        }
    }
}
