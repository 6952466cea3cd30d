public import DoseCore
public import Foundation
import PostgresNIO

/// One person's nights as a clinic's list reads them: each night's summary with its check-in's wellness, the last
/// night logged (however old), and the settings that judge their nights.
public struct ClinicRecords: Sendable {
    public struct Night: Sendable {
        public let summary: NightSummary
        public let wellness: Int?
    }

    public var nights: [Night] = []
    public var lastNight: SessionKey?
    /// `target_interval` and `time_zone`, when the person set them.
    public var settings: [String: String] = [:]
}

extension PostgresStore {
    /// The nights dated `from` through `to` of each of `owners`, in one snapshot and one round trip: every statement is
    /// sent before any is waited for, each owner's under their own row scope (`dosetap.person`, set in turn), so
    /// row-level security holds for each read as for any of theirs. The caller decides who may be read (the shares).
    public func clinicRecords(of owners: [String], from: SessionKey, to: SessionKey) throws -> [String: ClinicRecords] {
        guard !owners.isEmpty else { return [:] }
        return try transaction(readOnly: true, seeing: .nobody) { session in
            let nights = Self.summarySelect(
                where: "s.person_id = $1 AND s.session_date BETWEEN $2::date AND $3::date", extra: ", m.wellness_score",
                joins: " LEFT JOIN morning_checkins AS m ON m.session_id = s.id")
            let sent = owners.map { owner in
                session.send("SELECT set_config('dosetap.person', \(owner), true)")
                var binds = PostgresBindings()
                binds.append(owner)
                binds.append(from.description)
                binds.append(to.description)
                return (
                    owner: owner, nights: session.send(PostgresQuery(unsafeSQL: nights, binds: binds)),
                    last: session.send("SELECT max(session_date)::text FROM sleep_sessions WHERE person_id = \(owner) AND dose1_at IS NOT NULL"),
                    settings: session.send(
                        "SELECT key, value FROM settings WHERE person_id = \(owner) AND key IN ('target_interval', 'time_zone')")
                )
            }
            var found: [String: ClinicRecords] = [:]
            for reads in sent {
                var records = ClinicRecords()
                records.nights = try session.rows(of: reads.nights).map { row in
                    let (_, summary, cells) = try Self.summary(of: row)
                    return ClinicRecords.Night(summary: summary, wellness: try cells[16].decode(Int?.self))
                }
                records.lastNight = try session.rows(of: reads.last).first?.decode(String?.self).flatMap(SessionKey.init(parsing:))
                for row in try session.rows(of: reads.settings) {
                    let (key, value) = try row.decode((String, String).self)
                    records.settings[key] = value
                }
                found[reads.owner] = records
            }
            return found
        }
    }
}
