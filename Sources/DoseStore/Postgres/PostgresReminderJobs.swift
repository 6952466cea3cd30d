public import DoseCore
public import Foundation
import PostgresNIO

/// One occurrence of a person's reminder plan in `reminder_jobs`, claimed by one instance under a lease.
public struct ReminderJob: Sendable, Hashable {
    /// Where the job stands: not yet taken from the plan, or taken (logged as fired) and being delivered.
    public enum State: String, Sendable {
        case pending, sending
    }

    public var person: String
    public var night: SessionID
    public var kind: String
    public var fireAt: Date
    public var state: State

    /// The occurrence's key, the same as its reminder log entry's.
    public var logKey: String { Reminder.logKey(kind: kind, fireAt: fireAt) }
}

/// The reminder jobs of a shared store (`PostgresSchema.v12ReminderJobs`): every instance claims what is due, and a
/// claim is a lease, so an instance that dies gives its work to the others once the lease runs out.
extension PostgresStore {
    /// Claims up to `limit` jobs due by `now` that no live lease holds (one whose holder died is taken over), for
    /// `owner` until `now + lease`; only `person`'s when one is named. Another instance's claim in progress is skipped,
    /// never waited for. Also says when the next unclaimed job falls due, for the claimer's wake-up.
    public func claimReminderJobs(owner: String, now: Date, lease: TimeInterval, limit: Int, person: String? = nil) throws
        -> (claimed: [ReminderJob], nextDue: Date?)
    {
        try transaction(seeing: .scheduler) { session in
            let only = person ?? ""
            let claimed = try session.rows(
                """
                UPDATE reminder_jobs AS job SET lease_owner = \(owner), lease_until = \(now.addingTimeInterval(lease)), claims = job.claims + 1
                FROM (SELECT session_id, kind, fire_at FROM reminder_jobs
                      WHERE state IN ('pending', 'sending') AND fire_at <= \(now) AND (lease_until IS NULL OR lease_until <= \(now))
                        AND (\(only) = '' OR person_id = \(only))
                      ORDER BY fire_at LIMIT \(limit) FOR UPDATE SKIP LOCKED) AS due
                WHERE job.session_id = due.session_id AND job.kind = due.kind AND job.fire_at = due.fire_at
                RETURNING job.person_id, job.session_id, job.kind, dosetap_instant(job.fire_at), job.state
                """
            ).map { row in
                let (person, night, kind, fireAt, state) = try row.decode((String, String, String, String, String).self)
                return ReminderJob(
                    person: person, night: SessionID(rawValue: night), kind: kind, fireAt: NightRecords.instant(fireAt),
                    state: ReminderJob.State(rawValue: state) ?? .pending)
            }
            let next = try session.rows(
                """
                SELECT dosetap_instant(min(fire_at)) FROM reminder_jobs
                WHERE state IN ('pending', 'sending') AND fire_at > \(now) AND (\(only) = '' OR person_id = \(only))
                """
            ).first?.decode(String?.self).map(NightRecords.instant)
            return (claimed, next)
        }
    }

    /// Extends every lease `owner` holds to `until` (a delivery retrying for minutes keeps its jobs).
    public func renewReminderLeases(owner: String, until: Date) throws {
        try transaction(seeing: .scheduler) { session in
            try session.execute(
                "UPDATE reminder_jobs SET lease_until = \(until) WHERE lease_owner = \(owner) AND state IN ('pending', 'sending')")
        }
    }

    /// Records that `owner` delivered `jobs` on every channel (or ended their retries), or that they were not due after
    /// all (the plan moved, or another instance logged them): either way no instance takes them again.
    public func finishReminderJobs(_ jobs: [ReminderJob], owner: String, at instant: Date) throws {
        guard !jobs.isEmpty else { return }
        try transaction(seeing: .scheduler) { session in
            try session.execute(
                """
                UPDATE reminder_jobs AS job SET state = CASE job.state WHEN 'sending' THEN 'sent' ELSE 'cancelled' END,
                    done_at = \(instant), lease_owner = NULL, lease_until = NULL
                FROM unnest(\(jobs.map(\.night.rawValue)), \(jobs.map(\.kind)), \(jobs.map { ISO8601.string($0.fireAt) })) AS done(night, kind, fire_at)
                WHERE job.session_id = done.night AND job.kind = done.kind AND job.fire_at = done.fire_at::timestamptz
                    AND job.lease_owner = \(owner) AND job.state IN ('pending', 'sending')
                """)
        }
    }

    /// Gives back at once every lease `owner` holds (a graceful shutdown), so another instance takes them now.
    public func releaseReminderLeases(owner: String) throws {
        try transaction(seeing: .scheduler) { session in
            try session.execute(
                "UPDATE reminder_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = \(owner) AND state IN ('pending', 'sending')")
        }
    }

    /// Whether the database answers a read (`/health`).
    public func ping() throws {
        try transaction(readOnly: true) { session in _ = try session.rows("SELECT 1") }
    }

    /// Up to `limit` people whose nights or settings changed since their reminder jobs were planned (by a writer that
    /// did not plan them: an import, an older version), oldest change first.
    public func peopleToPlan(limit: Int) throws -> [String] {
        try transaction(readOnly: true) { session in
            try session.rows(
                "SELECT id FROM people WHERE jobs_version IS DISTINCT FROM night_version ORDER BY night_version LIMIT \(limit)"
            ).map { try $0.decode(String.self) }
        }
    }

    /// The version of each of `people`'s nights (`people.night_version`, moved by every write of a night): one read that
    /// tells which of the people with a page open here have a night another instance changed.
    public func nightVersions(of people: [String]) throws -> [String: Int64] {
        guard !people.isEmpty else { return [:] }
        return try transaction(readOnly: true) { session in
            let rows = try session.rows("SELECT id, night_version FROM people WHERE id = ANY(\(people))").map { try $0.decode((String, Int64?).self) }
            return Dictionary(rows.map { ($0.0, $0.1 ?? 0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The people with an escalation ladder and a reminder due within five hours either side of `now`: the only ones
    /// whose ladder can have a rung due (a rung lies inside the Dose 2 window, `EscalationLadder.minutes`, and Dose 1 plans the night's
    /// reminders), so the ladder is read for them alone, not for everyone.
    public func peopleWithALadder(around now: Date) throws -> [String] {
        try transaction(readOnly: true, seeing: .scheduler) { session in
            try session.rows(
                """
                SELECT DISTINCT j.person_id FROM reminder_jobs AS j
                WHERE j.fire_at BETWEEN \(now)::timestamptz - interval '5 hours' AND \(now)::timestamptz + interval '5 hours'
                    AND EXISTS (SELECT 1 FROM shares AS s WHERE s.person_id = j.person_id AND s.ladder_rank IS NOT NULL)
                """
            ).map { try $0.decode(String.self) }
        }
    }

    /// The people who keep a supply (an inventory event of theirs exists): a refill reminder can be due for them alone.
    public func peopleKeepingASupply() throws -> [String] {
        try transaction(readOnly: true, seeing: .scheduler) { session in
            try session.rows("SELECT DISTINCT person_id FROM inventory_events ORDER BY person_id").map { try $0.decode(String.self) }
        }
    }

    /// Deletes up to `limit` jobs done (sent, missed or cancelled) before `cutoff`; returns how many. The reminder log
    /// keeps what each did, so a job is needed only while it may still be claimed.
    @discardableResult
    public func purgeReminderJobs(doneBefore cutoff: Date, limit: Int = 5_000) throws -> Int {
        try transaction(seeing: .scheduler) { session in
            try session.rows(
                """
                WITH gone AS (
                    DELETE FROM reminder_jobs WHERE (session_id, kind, fire_at) IN (
                        SELECT session_id, kind, fire_at FROM reminder_jobs
                        WHERE state IN ('sent', 'missed', 'cancelled') AND fire_at < \(cutoff) LIMIT \(limit))
                    RETURNING 1)
                SELECT count(*)::bigint FROM gone
                """
            ).first?.decode(Int.self) ?? 0
        }
    }

    /// Plans `person`'s reminder jobs again from their open night, under their lock (a no-op when nothing changed).
    public func planReminderJobs(of person: String) throws {
        try PostgresNightRepository(store: self, person: person).write { night in
            (night as? PostgresNightTransaction)?.writing?.planMayChange = true
        }
    }
}

extension PostgresNightTransaction {
    /// Writes the open night's reminder plan as jobs: occurrences new to the plan are added, pending ones it no longer
    /// has (a Dose 2 taken, a snooze, a setting) go, and those already taken stay as they are. Sent with the
    /// transaction, so a plan commits with the action that made it, or not at all.
    func planReminderJobs() throws {
        guard let writing else { return }
        let night: NightSession? =
            if let kept = writing.kept { kept } else { try openNight() }
        let settings = try self.settings(machineTimeZoneID: writing.settings?.zone ?? "UTC")
        var plan = ReminderPlan.plan(for: night, settings: settings)
        // The re-fire depends on whether anyone answered the alarm; the log is read only when the plan has one.
        if let night, plan.contains(where: { $0.kind == .wakeAlarmRefire }) {
            plan = ReminderPlan.plan(for: night, settings: settings, acknowledgedAt: try alarmAnswers(night: night.id))
        }
        let kinds = plan.map(\.kind.rawValue)
        let times = plan.map { ISO8601.string($0.fireAt) }
        session.send(
            """
            DELETE FROM reminder_jobs WHERE person_id = \(person) AND state = 'pending' AND (session_id, kind, fire_at) NOT IN (
                SELECT \(night?.id.rawValue ?? ""), kind, fire_at::timestamptz FROM unnest(\(kinds), \(times)) AS planned(kind, fire_at))
            """)
        if let night, !plan.isEmpty {
            session.send(
                """
                INSERT INTO reminder_jobs (session_id, person_id, kind, fire_at, state)
                SELECT \(night.id.rawValue), \(person), kind, fire_at::timestamptz, 'pending' FROM unnest(\(kinds), \(times)) AS planned(kind, fire_at)
                ON CONFLICT DO NOTHING
                """)
        }
        session.send("UPDATE people SET jobs_version = night_version WHERE id = \(person)")
        writing.planMayChange = false
    }
}
