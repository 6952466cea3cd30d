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
    /// The nights dated `from` through `to` of each of `owners` who shares `view` or `report` with `grantee`, in one
    /// snapshot and three statements whatever their number: row-level security shows `grantee` those nights only while
    /// the share holds (`RowScope.grantee`), so an owner who shares neither is read as having no nights.
    public func clinicRecords(of owners: [String], for grantee: String, from: SessionKey, to: SessionKey) throws -> [String: ClinicRecords] {
        guard !owners.isEmpty else { return [:] }
        return try transaction(readOnly: true, seeing: .grantee(grantee)) { session in
            var binds = PostgresBindings()
            binds.append(owners)
            binds.append(from.description)
            binds.append(to.description)
            let nights = session.send(
                PostgresQuery(
                    unsafeSQL: Self.summarySelect(
                        where: "s.person_id = ANY($1) AND s.session_date BETWEEN $2::date AND $3::date", extra: ", m.wellness_score, s.person_id",
                        joins: " LEFT JOIN morning_checkins AS m ON m.session_id = s.id"), binds: binds))
            let last = session.send(
                """
                SELECT person_id, max(session_date)::text FROM sleep_sessions WHERE person_id = ANY(\(owners)) AND dose1_at IS NOT NULL
                GROUP BY person_id
                """)
            let settings = session.send(
                "SELECT person_id, key, value FROM settings WHERE person_id = ANY(\(owners)) AND key IN ('target_interval', 'time_zone')")
            var found = Dictionary(uniqueKeysWithValues: owners.map { ($0, ClinicRecords()) })
            for row in try session.rows(of: nights) {
                let (_, summary, cells) = try Self.summary(of: row)
                found[try cells[17].decode(String.self)]?.nights.append(
                    ClinicRecords.Night(summary: summary, wellness: try cells[16].decode(Int?.self)))
            }
            for row in try session.rows(of: last) {
                let (owner, date) = try row.decode((String, String?).self)
                found[owner]?.lastNight = date.flatMap(SessionKey.init(parsing:))
            }
            for row in try session.rows(of: settings) {
                let (owner, key, value) = try row.decode((String, String, String).self)
                found[owner]?.settings[key] = value
            }
            return found
        }
    }
}
