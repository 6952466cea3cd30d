import DoseCore
import Foundation
import PostgresNIO

/// Finding and removing a person's whole nights in PostgreSQL, in the night transaction (under the person's lock).
extension PostgresNightTransaction {
    func deletionCandidates(_ selection: NightSelection) throws -> [NightDeletionCandidate] {
        let filter: String
        var binds = PostgresBindings()
        binds.append(person)
        if let dates = try selection.namedDates() {
            binds.append(dates)
            filter = "s.session_date = ANY($2::date[])"
        } else if case .before(let date) = selection {
            binds.append(date.description)
            filter = "s.session_date < $2::date"
        } else {
            return []
        }
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT s.id, to_char(s.session_date, 'YYYY-MM-DD'), s.ended_at IS NULL,
                        (SELECT count(*)::int FROM dose_events d WHERE d.session_id = s.id),
                        (SELECT count(*)::int FROM sleep_events e WHERE e.session_id = s.id),
                        (SELECT event_type || ' ' || dosetap_instant(occurred_at) FROM dose_events d WHERE d.session_id = s.id
                            AND d.event_type IN ('dose1', 'dose2', 'extra_dose') ORDER BY occurred_at DESC LIMIT 1)
                    FROM sleep_sessions s WHERE s.person_id = $1 AND \(filter) ORDER BY s.session_date, s.started_at
                    """, binds: binds))
        return try rows.map { row in
            let (id, date, open, doses, others, latest) = try row.decode((String, String, Bool, Int, Int, String?).self)
            return NightDeletionCandidate(
                id: id, date: SessionKey(parsing: date) ?? SessionKey(year: 1970, month: 1, day: 1)!, isOpen: open, doseEvents: doses,
                otherEvents: others, latestDose: NightDeletionCandidate.latestDose(latest))
        }
    }

    func removeNight(_ id: String) throws {
        write("DELETE FROM audit_log WHERE person_id = \(person) AND session_id = \(id)", changingNights: false)
        write("DELETE FROM idempotency_keys WHERE person_id = \(person) AND strpos(response, \(id)) > 0", changingNights: false)
        write("DELETE FROM sleep_sessions WHERE person_id = \(person) AND id = \(id)")
    }
}
