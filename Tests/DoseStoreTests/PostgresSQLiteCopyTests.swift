import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// The PostgreSQL workspace: work written for SQLite, run on a copy of one person's rows, must leave PostgreSQL holding
/// exactly what the same work leaves in a SQLite file: every type, every awkward value, inserts, updates, deletes,
/// cascades and replacements, and nothing at all when the work fails.
@Suite("A copy of PostgreSQL records into SQLite keeps what SQLite keeps, value for value", .needsPostgres)
struct PostgresSQLiteCopyTests {
    static let instant = "2026-11-21T23:00:00.000Z"

    /// Rows with the values a careless conversion would bend: fractions, tiny and negative reals, text with quotes,
    /// newlines, emoji and JSON inside, empty text beside NULL, dates, flags.
    static func fill(_ db: Database) throws {
        let at = instant
        try db.execute(
            sql: """
                INSERT INTO sleep_sessions (id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state, dose1_at,
                    dose2_at, dose2_skipped, extra_dose_count, snooze_count, interval_minutes)
                VALUES ('night-1', '2026-11-21', ?, 'America/New_York', ?, 'checkin', 'completed', ?, NULL, 1, 0, 2, NULL);
                INSERT INTO dose_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note, event_type, metadata)
                VALUES ('dose-1', 'night-1', ?, ?, -300, 'America/New_York', 'user', 'it''s "fine"' || char(10) || 'then 😴', 'dose1',
                    '{"amount_mg":2250.5,"note":"a \\"quoted\\" word"}');
                INSERT INTO sleep_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note, event_type, category)
                VALUES ('sleep-1', 'night-1', ?, ?, 345, 'Asia/Kathmandu', 'button', '', 'bathroom', 'physical');
                INSERT INTO night_summaries (session_id, dose1_time_zone, dose2_time_zone, extra_doses, skip_reason, slept_through, awakenings)
                VALUES ('night-1', 'America/New_York', NULL, ?, 'felt fine', 1, 3);
                INSERT INTO medication_events (id, session_id, session_date, medication_id, dose_mg, dose_amount, dose_unit, formulation, taken_at,
                    recorded_at, utc_offset_minutes, time_zone, source, notes, confirmed_duplicate, batch_id)
                VALUES ('med-1', 'night-1', '2026-11-21', 'modafinil', 0.1, 1e-7, 'mg', 'tablet', ?, ?, -300, 'America/New_York', 'user', NULL, 1, 'b');
                INSERT INTO inventory_events (id, kind, occurred_at, recorded_at, time_zone, change_ml, counted_ml, bottles, reason)
                VALUES ('inv-1', 'inventory_adjustment', ?, ?, 'UTC', -0.3333333333333333, NULL, NULL, 'spilt ½ a cap');
                INSERT INTO wearable_summaries (id, provider, source, start_at, end_at, offset_minutes, nap, in_bed_minutes, asleep_minutes, light_minutes,
                    deep_minutes, rem_minutes, awake_minutes, recovery_percent, sleep_performance_percent, sleep_efficiency_percent, resting_heart_rate,
                    hrv_ms, respiratory_rate, oxygen_saturation_percent, skin_temp_celsius, imported_at)
                VALUES ('w-1', 'whoop', 'WHOOP 4.0', ?, '2026-11-22T07:00:00.000Z', -300, 0, 479.99999999999994, 0.1, NULL, 1439.9999999999998, 0, 0,
                    33.333333333333336, 100, 99.99, 20, 0.000001, 60, 50, 36.6, ?);
                INSERT INTO devices (id, name, token_hash, created_at, revoked_at) VALUES ('dev-1', 'Mum''s phone', ?, ?, NULL);
                INSERT INTO push_subscriptions (id, device_id, endpoint, p256dh, auth, expires_at, role, created_at)
                VALUES ('sub-1', 'dev-1', 'https://push.example/abc', ?, ?, NULL, 'alarm', ?);
                INSERT INTO settings (key, value, updated_at) VALUES ('time_zone', '"Europe/Zürich"', ?);
                INSERT INTO audit_log (id, at, action, session_id, entity_id, details) VALUES ('audit-1', ?, 'setting', NULL, 'time_zone', '{"old":"a\\nb"}');
                INSERT INTO notices_shown (name, shown_at) VALUES ('hint', ?);
                INSERT INTO refill_reminders (day, sent_at, nights_left) VALUES ('2026-11-21', ?, -2);
                INSERT INTO server_keys (purpose, secret, created_at) VALUES ('links', ?, ?);
                """,
            arguments: [
                at, "2026-11-22T12:00:00.000Z", at, at, at, at, at, "\(at) America/New_York\n\(at) UTC", at, at, at, at, at, at,
                String(repeating: "a", count: 64), at, String(repeating: "p", count: 87), String(repeating: "q", count: 22), at, at, at, at, at,
                String(repeating: "f", count: 64), at,
            ])
    }

    /// Updates, deletes (one cascading to its children), and a replacement that removes a row under another key.
    static func change(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE wearable_summaries SET asleep_minutes = 0.30000000000000004, light_minutes = 12.5 WHERE id = 'w-1';
                UPDATE dose_events SET note = NULL WHERE id = 'dose-1';
                DELETE FROM devices WHERE id = 'dev-1';
                INSERT OR REPLACE INTO notices_shown (name, shown_at) VALUES ('hint', '2026-11-23T00:00:00.000Z');
                INSERT INTO refill_reminders (day, sent_at, nights_left) VALUES ('2026-11-22', '2026-11-22T09:00:00.000Z', 0);
                DELETE FROM sleep_sessions WHERE id = 'night-1';
                """)
    }

    @Test("raw rows of every kind, then updates, deletes, cascades and a replacement: the same digests as on SQLite")
    func sameRowsAsSQLite() throws {
        let sqlite = try AppDatabase.inMemory()
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try sqlite.write { try Self.fill($0) }
        try store.onRecords(of: "local", only: try store.everyTableName()) { copy in try copy.write { try Self.fill($0) } }
        let filled = try sqlite.contents().digests()
        #expect(try store.contents(of: "local").digests() == filled)
        #expect(try sqlite.contents().rowCount() == 14)

        try sqlite.write { try Self.change($0) }
        try store.onRecords(of: "local", only: try store.everyTableName()) { copy in try copy.write { try Self.change($0) } }
        let changed = try sqlite.contents().digests()
        #expect(changed != filled)
        #expect(try store.contents(of: "local").digests() == changed)
        // The session's events, summary and medication went with it; the device's subscription with the device.
        #expect(changed["dose_events"]?.rows == 0 && changed["push_subscriptions"]?.rows == 0 && changed["medication_events"]?.rows == 0)
    }

    @Test("work that fails keeps nothing, and another person's rows are neither read nor touched")
    func failureAndIsolation() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.addPerson("other")
        try store.onRecords(of: "other", only: try store.everyTableName()) { copy in try copy.write { try Self.fill($0) } }
        let before = try store.contents(of: "local").digests()
        #expect(try store.contents(of: "local").rowCount() == 1, "only the service's rows (the key) are shared")

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.onRecords(of: "local") { copy in
                try copy.write { db in try db.execute(sql: "INSERT INTO notices_shown (name, shown_at) VALUES ('x', ?)", arguments: [Self.instant]) }
                throw Refused()
            }
        }
        #expect(try store.contents(of: "local").digests() == before, "the failed work left nothing")
        let seen = try store.onRecords(of: "local") { copy in try copy.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM dose_events") } }
        #expect(seen == 0, "another person's night is not in this person's copy")
        try store.onRecords(of: "local") { copy in try copy.write { try $0.execute(sql: "DELETE FROM sleep_sessions; DELETE FROM devices") } }
        #expect(try store.contents(of: "other").rowCount() == 14, "deleting everything of one person leaves the other's rows")
        #expect(try store.contents(of: "local").rowCount() == 1, "and the service's key, which a person's work never holds unless it names it")
    }

    @Test("the report's nights, copied a chunk at a time in one snapshot, are the file's nights in the file's order", .needsPostgres)
    func nightsInChunks() throws {
        let sqlite = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
        for day in 1...7 {
            let dose1 = WallClock.date(2026, 11, day, 22, 0)
            try StoreFixture.act(sqlite.ledger, .dose1, at: dose1, clock: clock)
            try StoreFixture.act(sqlite.ledger, .log(event: "bathroom"), at: StoreFixture.minutes(Double(20 + day), after: dose1), clock: clock)
            try StoreFixture.act(sqlite.ledger, .dose2, at: StoreFixture.minutes(Double(150 + 5 * day), after: dose1), clock: clock)
        }
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.fill("local", with: try sqlite.contents(), withService: true)
        let (from, to) = (SessionKey(year: 2026, month: 11, day: 2)!, SessionKey(year: 2026, month: 11, day: 6)!)
        let expected = try sqlite.history.nights(from: from, to: to).map { ($0.session.id, $0.session.events.map(\.id), $0.intervalMinutes) }
        #expect(expected.count == 5)
        for chunk in [1, 2, 5, 366] {
            var seen: [(SessionID, [EventID], Int?)] = []
            try store.forEachNight(of: "local", from: from, to: to, chunksOf: chunk) {
                seen.append(($0.session.id, $0.session.events.map(\.id), $0.intervalMinutes))
            }
            #expect(
                seen.map(\.0) == expected.map(\.0) && seen.map(\.1) == expected.map(\.1) && seen.map(\.2) == expected.map(\.2), "chunks of \(chunk)")
        }
    }

    @Test("events.csv through a cursor: every event once, in order, whatever the person's id holds", .needsPostgres)
    func eventsThroughCursor() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let header = DataTransfer.eventsCSVHeader + "\r\n"
        #expect(try store.eventsCSV(of: "it's') OR true --") == header, "a quote in the id is a quote, not SQL")
        let sqlite = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
        for day in 1...3 {
            try StoreFixture.act(sqlite.ledger, .dose1, at: WallClock.date(2026, 11, day, 22, 0), clock: clock)
        }
        try store.fill("local", with: try sqlite.contents(), withService: true)
        // Three Dose 1s, and the two Dose 2s skipped when their nights closed: five rows, fetched two and one at a time too.
        let file = try sqlite.transfer.eventsCSV()
        #expect(file.components(separatedBy: "\r\n").count == 7, "\(file)")
        for rowsPerFetch in [1, 2, 4000] {
            #expect(try store.eventsCSV(of: "local", rowsPerFetch: rowsPerFetch) == file, "\(rowsPerFetch) a fetch")
        }
    }

    @Test("a support bundle's records read in PostgreSQL are the file's: events, medications, supply, settings and counts", .needsPostgres)
    func supportRecordsAsTheFile() throws {
        let sqlite = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
        for day in 1...3 {
            let dose1 = WallClock.date(2026, 11, day, 22, 0)
            try StoreFixture.act(sqlite.ledger, .dose1, at: dose1, clock: clock)
            try StoreFixture.act(sqlite.ledger, .log(event: "bathroom"), at: StoreFixture.minutes(30, after: dose1), clock: clock)
        }
        try sqlite.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO medication_events (id, session_id, session_date, medication_id, dose_mg, dose_amount, dose_unit,
                        formulation, taken_at, recorded_at, utc_offset_minutes, time_zone, source, batch_id)
                    SELECT 'm1', id, session_date, 'modafinil', 200, 200, 'mg', 'tablet', '2026-11-02T08:00:00.000Z',
                        '2026-11-02T08:00:00.000Z', 0, 'UTC', 'user', 'b1' FROM sleep_sessions ORDER BY id LIMIT 1
                    """)
            try db.execute(
                sql: """
                    INSERT INTO inventory_events (id, kind, occurred_at, recorded_at, time_zone, change_ml, reason)
                    VALUES ('i1', 'refill_logged', '2026-11-01T12:00:00.000Z', '2026-11-01T12:00:00.000Z', 'UTC', 180, 'pharmacy')
                    """)
        }
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        try store.fill("local", with: try sqlite.contents(), withService: true)
        let file = try sqlite.transfer.supportRecords(machineTimeZoneID: "UTC")
        let copies = store.sqliteCopiesMade
        for rowsPerFetch in [1, 4000] {
            let postgres = try store.supportRecords(of: "local", machineTimeZoneID: "UTC", rowsPerFetch: rowsPerFetch)
            #expect(postgres.events.count == 8 && postgres.events.map(\.id) == file.events.map(\.id))
            #expect(postgres.events.map(\.type) == file.events.map(\.type) && postgres.events.map(\.occurredAt) == file.events.map(\.occurredAt))
            #expect(postgres.events.map(\.doseSequence) == file.events.map(\.doseSequence))
            #expect(postgres.medications.map(\.id) == ["m1"] && postgres.medications.map(\.takenAt) == file.medications.map(\.takenAt))
            #expect(postgres.inventory == file.inventory && postgres.inventory.count == 1)
            #expect(postgres.settings == file.settings)
            let service = try store.serviceTableNames()
            #expect(postgres.counts.filter { !service.contains($0.key) } == file.counts.filter { !service.contains($0.key) })
            #expect(postgres.counts["dose_events"] == 5 && postgres.counts["sleep_events"] == 3 && postgres.counts["medication_events"] == 1)
        }
        #expect(store.sqliteCopiesMade == copies, "read without a copy into SQLite")
    }
}

@Suite("events.csv a piece at a time")
struct CSVPiecesTests {
    @Test("lines are handed on in pieces of about 64 KiB, never split, and together they are the whole file")
    func pieces() throws {
        var seen: [String] = []
        var pieces = CSVPieces()
        let line = String(repeating: "x", count: 99) + "\r\n"
        for _ in 0..<2_000 { try pieces.add(line) { seen.append($0) } }
        try pieces.flush { seen.append($0) }
        try pieces.flush { seen.append($0) }
        #expect(seen.joined() == String(repeating: line, count: 2_000))
        #expect(seen.count == 4 && seen.dropLast().allSatisfy { $0.utf8.count >= CSVPieces.size && $0.utf8.count < CSVPieces.size + 101 })
        #expect(seen.allSatisfy { $0.hasSuffix("\r\n") }, "a piece ends where a line does")
    }

    @Test("the file's events.csv in pieces is its events.csv whole")
    func sqlitePieces() throws {
        let sqlite = try AppDatabase.inMemory()
        let clock = TestClock(WallClock.date(2026, 11, 1, 22, 0))
        for day in 1...3 { try StoreFixture.act(sqlite.ledger, .dose1, at: WallClock.date(2026, 11, day, 22, 0), clock: clock) }
        var pieces: [String] = []
        try sqlite.transfer.eventsCSV { pieces.append($0) }
        #expect(pieces.joined() == (try sqlite.transfer.eventsCSV()) && pieces.count == 1)
    }
}
