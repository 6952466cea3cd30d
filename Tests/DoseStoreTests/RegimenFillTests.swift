import DoseCore
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import DoseStore

/// Each night keeps the regimen it was taken under (issue 37): the migrations give every Dose 1 recorded before the
/// regimen of its time, on both stores, byte for byte as a new Dose 1 is written.
@Suite("Nights from before regimens: the fill on SQLite and PostgreSQL")
struct RegimenFillTests {
    /// The profile of the person whose nights are filled: Xyrem, a 195-minute target, Dose 2 of 2.75 g, Dose 1 default.
    static let settings = [("medication_product", "xyrem"), ("target_interval", "195"), ("dose2_mg", "2750")]

    static let regimenOfThen = #""regimen":{"doses_mg":[3000,2500],"kind":"twice_nightly","product":"xyrem","target_minutes":195}"#
    static let regimenOfProfile = #""regimen":{"doses_mg":[2250,2750],"kind":"twice_nightly","product":"xyrem","target_minutes":195}"#
    static let onceNightly =
        #"{"amount_mg":6000,"dose_index":1,"is_early":false,"is_late":false,"regimen":{"doses_mg":[6000],"kind":"once_nightly","product":"xywav"}}"#

    /// Per night: its Dose 1's metadata before, its Dose 2's (if any), and the Dose 1's after the fill.
    static let nights: [(dose1: String, dose2: String?, filled: String)] = [
        // Its own amounts, Dose 2's from its night: the regimen it was really taken under.
        (
            #"{"amount_mg":3000,"dose_index":1,"is_early":false,"is_late":false}"#,
            #"{"amount_mg":2500,"dose_index":2,"is_early":false,"is_late":false}"#,
            #"{"amount_mg":3000,"dose_index":1,"is_early":false,"is_late":false,"# + regimenOfThen + "}"
        ),
        // From before doses kept their amount, and with no Dose 2: the profile's amounts.
        (#"{"dose_index":1,"is_early":false,"is_late":false}"#, nil, #"{"dose_index":1,"is_early":false,"is_late":false,"# + regimenOfProfile + "}"),
        // Written as an empty object: the regimen is its one key.
        ("{}", nil, "{" + regimenOfProfile + "}"),
        // Already carrying a regimen (once nightly): left as it is.
        (onceNightly, nil, onceNightly),
    ]

    @Test("SQLite's migration v12 fills every Dose 1 with the regimen of its time, and a filled night reads as a new one is written")
    func sqlite() throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: "v11_device_expiry")
        try queue.write { db in
            for (key, value) in Self.settings {
                try db.execute(
                    sql: "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, '2026-01-01T00:00:00.000Z')", arguments: [key, value])
            }
            for (index, night) in Self.nights.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO sleep_sessions (id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state)
                        VALUES (?, ?, '2026-01-0\(index + 1)T03:00:00.000Z', 'UTC', '2026-01-0\(index + 1)T12:00:00.000Z', 'checkin', 'completed')
                        """, arguments: ["night-\(index)", "2026-01-0\(index + 1)"])
                for (kind, metadata) in [("dose1", night.dose1), ("dose2", night.dose2)] {
                    guard let metadata else { continue }
                    try db.execute(
                        sql: """
                            INSERT INTO dose_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, event_type, metadata)
                            VALUES (?, ?, '2026-01-0\(index + 1)T03:00:00.000Z', '2026-01-0\(index + 1)T03:00:00.000Z', 0, 'UTC', 'user', ?, ?)
                            """, arguments: ["\(kind)-\(index)", "night-\(index)", kind, metadata])
                }
            }
        }
        try Schema.migrator.migrate(queue)
        let filled = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT metadata FROM dose_events WHERE event_type = 'dose1' ORDER BY session_id")
        }
        #expect(filled == Self.nights.map(\.filled))
        // What the app itself would write for such a Dose 1: the fill's bytes are the encoder's.
        for text in filled.prefix(2) {
            let decoded = try JSONDecoder().decode(EventMetadata.self, from: Data(text.utf8))
            #expect(String(decoding: try NightRecords.metadataEncoder.encode(decoded), as: UTF8.self) == text)
        }
    }

    @Test("PostgreSQL's migration v14 fills each person's Dose 1s from that person's profile, byte for byte as SQLite's", .needsPostgres)
    func postgres() throws {
        let owner = try PostgresTestDatabase.freshOwnerStore()
        defer { owner.close() }
        try owner.addPerson("other")
        try owner.withConnection { session in
            for person in ["local", "other"] {
                // The other person keeps the defaults, so each Dose 1 is filled from its own person's profile.
                for (key, value) in person == "local" ? Self.settings : [] {
                    try session.execute("INSERT INTO settings (person_id, key, value, updated_at) VALUES (\(person), \(key), \(value), now())")
                }
                for (index, night) in Self.nights.enumerated() {
                    let id = "\(person)-night-\(index)"
                    try session.execute(
                        """
                        INSERT INTO sleep_sessions (id, person_id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state)
                        VALUES (\(id), \(person), \("2026-01-0\(index + 1)")::date, now(), 'UTC', now(), 'checkin', 'completed')
                        """)
                    for (kind, metadata) in [("dose1", night.dose1), ("dose2", night.dose2)] {
                        guard let metadata else { continue }
                        try session.execute(
                            """
                            INSERT INTO dose_events (id, person_id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, event_type, metadata)
                            VALUES (\("\(person)-\(kind)-\(index)"), \(person), \(id), now(), now(), 0, 'UTC', 'user', \(kind), \(metadata))
                            """)
                    }
                }
            }
            for statement in PostgresSchema.statements(of: PostgresSchema.v14NightRegimens) {
                try session.execute(PostgresQuery(unsafeSQL: statement))
            }
            let filled = try session.rows("SELECT person_id, metadata FROM dose_events WHERE event_type = 'dose1' ORDER BY person_id, session_id")
                .map { try $0.decode((String, String).self) }
            #expect(filled.filter { $0.0 == "local" }.map(\.1) == Self.nights.map(\.filled))
            let defaults = filled.filter { $0.0 == "other" }.map(\.1)
            #expect(defaults[1].hasSuffix(#""regimen":{"doses_mg":[2250,2250],"kind":"twice_nightly","product":"xywav","target_minutes":165}}"#))
            let forced = try session.rows(
                "SELECT relforcerowsecurity FROM pg_class WHERE relname IN ('dose_events', 'settings') AND relnamespace = current_schema()::regnamespace"
            )
            .map { try $0.decode(Bool.self) }
            #expect(forced == [true, true], "row security is forced again after the fill")
        }
    }

    @Test("a bundle from before (schema 11) is brought up with each Dose 1 given the regimen of its time; other rows keep their bytes")
    func bundleUpgrade() throws {
        let header = "id,session_id,occurred_at,recorded_at,utc_offset_minutes,time_zone,source,note,event_type,metadata"
        let rows = [
            #"d1,n1,2026-01-01T03:00:00.000Z,2026-01-01T03:00:00.000Z,0,UTC,user,"'=SUM(A1), ""quoted""",dose1,"{""amount_mg"":3000,""dose_index"":1,""is_early"":false,""is_late"":false}""#,
            #"d2,n1,2026-01-01T06:00:00.000Z,2026-01-01T06:00:00.000Z,0,UTC,user,,dose2,"{""amount_mg"":2500,""dose_index"":2,""is_early"":false,""is_late"":false}""#,
            #"d3,n2,2026-01-02T03:00:00.000Z,2026-01-02T03:00:00.000Z,0,UTC,user,,dose1,"{""dose_index"":1,""is_early"":false,""is_late"":false}""#,
        ]
        let text = ([header] + rows).joined(separator: "\r\n") + "\r\n"
        var profile = DoseSettings(timeZoneID: "UTC")
        for (key, value) in Self.settings { profile = try profile.setting(key, to: value) }
        let upgraded = try CSV.parse(try NightRegimenFill.stampedDoseEvents(text, profile: profile))
        #expect(upgraded.header == header.split(separator: ",").map(String.init))
        #expect(upgraded.rows.map { $0[9] } == [Self.nights[0].filled, Self.nights[0].dose2!, Self.nights[1].filled])
        #expect(upgraded.rows[0][7] == #"'=SUM(A1), "quoted""#, "a guarded note keeps its guard and its quotes")
        #expect(
            try NightRegimenFill.stampedDoseEvents(try NightRegimenFill.stampedDoseEvents(text, profile: profile), profile: profile)
                == NightRegimenFill.stampedDoseEvents(text, profile: profile), "a second upgrade changes nothing")
    }
}
