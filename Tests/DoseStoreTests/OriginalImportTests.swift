import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// Databases of the original app, built from seed 004's SQL (versions 1–6) and reference §4.3 (the later layout).
enum OriginalFixture {
    static let v1 = """
        CREATE TABLE current_session (id INTEGER PRIMARY KEY CHECK (id = 1), session_date TEXT NOT NULL, dose1_time TEXT, dose2_time TEXT,
            snooze_count INTEGER NOT NULL DEFAULT 0, dose2_skipped INTEGER NOT NULL DEFAULT 0, updated_at TEXT);
        INSERT INTO current_session VALUES (1, '2024-10-01', '2024-10-02T02:30:00Z', '2024-10-02T05:15:00Z', 1, 0, '2024-10-02T05:15:00Z');
        """
    static let v2 = """
        CREATE TABLE IF NOT EXISTS dose_events (id TEXT PRIMARY KEY, session_date TEXT NOT NULL, event_type TEXT NOT NULL, timestamp TEXT NOT NULL, metadata TEXT);
        CREATE INDEX IF NOT EXISTS idx_dose_events_session ON dose_events(session_date);
        INSERT INTO dose_events VALUES ('d1', '2024-10-05', 'dose_1', '2024-10-06T02:30:00Z', NULL);
        INSERT INTO dose_events VALUES ('d2', '2024-10-05', 'snooze', '2024-10-06T05:05:00.000Z', '{"count": 1}');
        INSERT INTO dose_events VALUES ('d3', '2024-10-05', 'dose_2', '2024-10-06T05:20:00Z', NULL);
        INSERT INTO dose_events VALUES ('d4', '2024-10-06', 'dose_1', '2024-10-07T02:00:00Z', NULL);
        INSERT INTO dose_events VALUES ('d5', '2024-10-06', 'skip', '2024-10-07T05:00:00Z', NULL);
        INSERT INTO dose_events VALUES ('d6', '2024-10-07', 'dose_2', '2024-10-08T05:00:00Z', NULL);
        INSERT INTO dose_events VALUES ('d7', '2024-10-05', 'teleport', '2024-10-06T05:30:00Z', NULL);
        """
    static let v3 = """
        CREATE TABLE IF NOT EXISTS sleep_events (id TEXT PRIMARY KEY, session_date TEXT NOT NULL, event_type TEXT NOT NULL, timestamp TEXT NOT NULL,
            color_hex TEXT, created_at TEXT NOT NULL);
        INSERT INTO sleep_events VALUES ('s1', '2024-10-05', 'bathroom', '2024-10-06T03:00:00Z', '#fff', '2024-10-06 03:00:00');
        INSERT INTO sleep_events VALUES ('s2', '2024-10-05', 'lightsOut', '2024-10-06T02:35:00Z', NULL, '2024-10-06 02:35:00');
        INSERT INTO sleep_events VALUES ('s3', '2024-10-05', 'brief_wake', '2024-10-06T04:00:00Z', NULL, '2024-10-06 04:00:00');
        INSERT INTO sleep_events VALUES ('s4', '2024-10-05', 'Dose 2', '2024-10-06T05:20:00Z', NULL, '2024-10-06 05:20:00');
        INSERT INTO sleep_events VALUES ('s5', '2024-10-05', 'Wake Up', '2024-10-06T11:00:00Z', NULL, '2024-10-06 11:00:00');
        """
    static let v4 = "ALTER TABLE current_session ADD COLUMN terminal_state TEXT;"
    static let v5 = """
        CREATE TABLE IF NOT EXISTS morning_checkins (id TEXT PRIMARY KEY, session_date TEXT NOT NULL UNIQUE, session_id TEXT, completed_at TEXT NOT NULL,
            overall_quality INTEGER NOT NULL, wake_count INTEGER NOT NULL, feeling_rested INTEGER NOT NULL, sleep_latency INTEGER, notes TEXT,
            sleep_therapy TEXT, has_sleep_therapy INTEGER DEFAULT 0, sleep_environment_json TEXT, has_sleep_environment INTEGER DEFAULT 0);
        INSERT INTO morning_checkins VALUES ('m1', '2024-10-05', NULL, '2024-10-06T11:30:00Z', 4, 2, 5, 20, 'ok, "fine"', '["cpap"]', 1,
            '{"aids": ["eye_mask"], "darknessLevel": "very_dark"}', 1);
        INSERT INTO morning_checkins VALUES ('m2', '2024-10-06', NULL, '2024-10-07T11:30:00Z', 9, 0, 3, NULL, NULL, NULL, 0, NULL, 0);
        """
    static let v6 = """
        CREATE TABLE IF NOT EXISTS pre_sleep_logs (id TEXT PRIMARY KEY, session_date TEXT NOT NULL UNIQUE, completed_at TEXT NOT NULL, caffeine_cups INTEGER,
            caffeine_cutoff TEXT, alcohol_drinks INTEGER, exercise_type TEXT, exercise_duration INTEGER, stress_level INTEGER, notes TEXT);
        INSERT INTO pre_sleep_logs VALUES ('p1', '2024-10-05', '2024-10-06T01:30:00Z', 2, '2024-10-05T19:00:00Z', 1, 'moderate', 30, 7, 'long day');
        """
    static let later = """
        CREATE TABLE sleep_events (id TEXT PRIMARY KEY, event_type TEXT NOT NULL, timestamp TEXT NOT NULL, session_date TEXT NOT NULL, session_id TEXT,
            color_hex TEXT, notes TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE dose_events (id TEXT PRIMARY KEY, event_type TEXT NOT NULL, timestamp TEXT NOT NULL, session_date TEXT NOT NULL, session_id TEXT,
            metadata TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP, is_hazard INTEGER DEFAULT 0);
        CREATE TABLE current_session (id INTEGER PRIMARY KEY CHECK (id = 1), dose1_time TEXT, dose2_time TEXT, snooze_count INTEGER DEFAULT 0,
            dose2_skipped INTEGER DEFAULT 0, session_date TEXT NOT NULL, session_id TEXT, session_start_utc TEXT, session_end_utc TEXT,
            updated_at TEXT DEFAULT CURRENT_TIMESTAMP, terminal_state TEXT);
        CREATE TABLE sleep_sessions (session_id TEXT PRIMARY KEY, session_date TEXT NOT NULL, start_utc TEXT NOT NULL, end_utc TEXT, terminal_state TEXT,
            created_at TEXT DEFAULT CURRENT_TIMESTAMP, updated_at TEXT DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE pre_sleep_logs (id TEXT PRIMARY KEY, session_id TEXT, created_at_utc TEXT NOT NULL, local_offset_minutes INTEGER NOT NULL,
            completion_state TEXT NOT NULL DEFAULT 'partial', answers_json TEXT NOT NULL DEFAULT '{}', created_at TEXT DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE morning_checkins (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, timestamp TEXT NOT NULL, session_date TEXT NOT NULL,
            sleep_quality INTEGER NOT NULL DEFAULT 3, feel_rested TEXT NOT NULL DEFAULT 'moderate', grogginess TEXT NOT NULL DEFAULT 'mild',
            sleep_inertia_duration TEXT NOT NULL DEFAULT 'fiveToFifteen', dream_recall TEXT NOT NULL DEFAULT 'none',
            has_physical_symptoms INTEGER NOT NULL DEFAULT 0, physical_symptoms_json TEXT, has_respiratory_symptoms INTEGER NOT NULL DEFAULT 0,
            respiratory_symptoms_json TEXT, mental_clarity INTEGER NOT NULL DEFAULT 5, mood TEXT NOT NULL DEFAULT 'neutral',
            anxiety_level TEXT NOT NULL DEFAULT 'none', stress_level INTEGER, stress_context_json TEXT, readiness_for_day INTEGER NOT NULL DEFAULT 3,
            had_sleep_paralysis INTEGER NOT NULL DEFAULT 0, had_hallucinations INTEGER NOT NULL DEFAULT 0, had_automatic_behavior INTEGER NOT NULL DEFAULT 0,
            fell_out_of_bed INTEGER NOT NULL DEFAULT 0, had_confusion_on_waking INTEGER NOT NULL DEFAULT 0, used_sleep_therapy INTEGER NOT NULL DEFAULT 0,
            sleep_therapy_json TEXT, notes TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP, has_sleep_environment INTEGER NOT NULL DEFAULT 0,
            sleep_environment_json TEXT);
        CREATE TABLE checkin_submissions (id TEXT PRIMARY KEY, source_record_id TEXT NOT NULL, session_id TEXT, session_date TEXT NOT NULL,
            checkin_type TEXT NOT NULL, questionnaire_version TEXT NOT NULL, user_id TEXT NOT NULL, submitted_at_utc TEXT NOT NULL,
            local_offset_minutes INTEGER NOT NULL, responses_json TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP, UNIQUE(source_record_id, checkin_type));
        CREATE TABLE cloudkit_tombstones (key TEXT PRIMARY KEY, record_type TEXT NOT NULL, record_name TEXT NOT NULL, created_at TEXT NOT NULL);
        CREATE TABLE medication_events (id TEXT PRIMARY KEY, session_id TEXT, session_date TEXT NOT NULL, medication_id TEXT NOT NULL, dose_mg INTEGER NOT NULL,
            dose_unit TEXT NOT NULL DEFAULT 'mg', formulation TEXT NOT NULL DEFAULT 'ir', taken_at_utc TEXT NOT NULL, local_offset_minutes INTEGER NOT NULL DEFAULT 0,
            notes TEXT, confirmed_duplicate INTEGER DEFAULT 0, created_at TEXT DEFAULT CURRENT_TIMESTAMP);
        INSERT INTO sleep_sessions VALUES ('ad495b67-0587-54a8-891e-5e8b83d23289', '2025-12-26', '2025-12-27T03:00:00Z', '2025-12-27T13:00:00Z', 'completed', NULL, NULL);
        INSERT INTO dose_events VALUES ('a1', 'dose1', '2025-12-27T03:30:00.000Z', '2025-12-26', 'ad495b67-0587-54a8-891e-5e8b83d23289', '{}', NULL, 0);
        INSERT INTO dose_events VALUES ('a2', 'dose2', '2025-12-27T05:59:00.000Z', '2025-12-26', 'ad495b67-0587-54a8-891e-5e8b83d23289', '{"is_early": true}', NULL, 0);
        INSERT INTO dose_events VALUES ('a3', 'extra_dose', '2025-12-27T06:30:00.000Z', '2025-12-26', 'ad495b67-0587-54a8-891e-5e8b83d23289', NULL, NULL, 1);
        INSERT INTO sleep_events VALUES ('b1', 'wake_temp', '2025-12-27T05:00:00Z', '2025-12-26', 'ad495b67-0587-54a8-891e-5e8b83d23289', NULL, 'thirsty, again', NULL);
        INSERT INTO sleep_events VALUES ('b2', 'nap_start', 'not a time', '2025-12-26', NULL, NULL, NULL, NULL);
        INSERT INTO current_session VALUES (1, '2025-12-27T03:30:00.000Z', '2025-12-27T06:00:00.000Z', 0, 0, '2025-12-26', 'ad495b67-0587-54a8-891e-5e8b83d23289', NULL, NULL, NULL, 'completed');
        INSERT INTO morning_checkins (id, session_id, timestamp, session_date, sleep_quality, feel_rested, grogginess, sleep_inertia_duration, dream_recall,
            mental_clarity, mood, anxiety_level, readiness_for_day, had_hallucinations, notes)
            VALUES ('c1', 'ad495b67-0587-54a8-891e-5e8b83d23289', '2025-12-27T13:00:00Z', '2025-12-26', 4, 'Moderately', 'Can''t function', '5-15 minutes', 'Vivid',
            7, 'Very Low', 'Mild', 2, 1, '=not a formula');
        INSERT INTO pre_sleep_logs VALUES ('p1', 'ad495b67-0587-54a8-891e-5e8b83d23289', '2025-12-27T02:00:00Z', -300, 'complete',
            '{"intendedSleepTime": "30min", "stressLevel": 4, "bodyPain": "mild", "caffeineSources": ["coffee"], "notes": "tired"}', NULL);
        INSERT INTO checkin_submissions VALUES ('morning:c1', 'c1', NULL, '2025-12-26', 'morning', 'morning.v2.2026-02-13', 'local_x', '2025-12-27T13:00:00Z', -300, '{}', NULL);
        INSERT INTO cloudkit_tombstones VALUES ('k', 'r', 'n', '2025-12-27');
        INSERT INTO medication_events VALUES ('med1', NULL, '2025-12-26', 'adderall_ir', 10, 'mg', 'ir', '2025-12-27T14:00:00Z', -300, NULL, 0, NULL);
        INSERT INTO medication_events VALUES ('med2', NULL, '2025-12-26', 'aspirin', 100, 'mg', 'ir', '2025-12-27T14:00:00Z', -300, NULL, 0, NULL);
        """

    /// Seed 004's versions, cumulatively.
    static func versions(upTo version: Int) -> String {
        [v1, v2, v3, v4, v5, v6].prefix(version).joined(separator: "\n") + "\nPRAGMA user_version = \(version);"
    }

    static func make(_ sql: String, in directory: URL, name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: sql) }
        return path
    }

    /// Rows per table of a source database.
    static func counts(_ path: String) throws -> [String: Int] {
        try DatabaseQueue(path: path).read { db in
            var counts: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
            }
            return counts
        }
    }
}

@Suite("Importing the original app's database")
struct OriginalImportTests {
    @Test("every schema version 1–6 and the later layout: every row imported, skipped or rejected", arguments: [1, 2, 3, 4, 5, 6, 7])
    func everyRowAccountedFor(version: Int) throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sql = version == 7 ? OriginalFixture.later : OriginalFixture.versions(upTo: version)
        let path = try OriginalFixture.make(sql, in: directory, name: "v\(version).sqlite")
        FuzzCorpus.keep(URL(fileURLWithPath: path), as: .originalDatabase, named: "version-\(version)")
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 1, 15, 12, 0))
        let report = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        for (table, count) in try OriginalFixture.counts(path) {
            let accounted = (report.imported[table] ?? 0) + (report.skipped[table] ?? 0) + report.rejected.filter { $0.file == table }.count
            #expect(accounted == count, "\(table): \(count) rows, \(accounted) accounted for")
        }
        let again = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        #expect(again.importedTotal == 0, "a second import adds nothing")
    }

    @Test("versions 2–6: names and values mapped, dose-like sleep events and doses without Dose 1 rejected")
    func mappingV6() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try OriginalFixture.make(OriginalFixture.versions(upTo: 6), in: directory, name: "v6.sqlite")
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 1, 15, 12, 0))
        let report = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        #expect(Set(report.rejected.map(\.file)) == ["dose_events", "sleep_events", "morning_checkins"])
        #expect(report.rejected.contains { $0.reason.contains("teleport") })
        #expect(report.rejected.contains { $0.reason.contains("dose recorded as a sleep event") })
        #expect(report.rejected.contains { $0.reason.contains("without a Dose 1") })
        let night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2024-10-05")!).first)
        let kinds = night.session.events.map(\.kind.wireName)
        #expect(kinds.contains("lights_out") && kinds.contains("wake_temp") && kinds.contains("wake_final"))
        #expect(night.intervalMinutes == 170)
        #expect(night.checkIn?.sleepQuality == 4)
        #expect(night.checkIn?.feelRested == .veryWell)
        #expect(night.checkIn?.sleepTherapy == [.cpap])
        #expect(night.checkIn?.notes?.contains("wake count: 2") == true)
        #expect(night.preSleep?.stressLevel == 4)
        #expect(night.preSleep?.exercise == .moderate)
        #expect(night.terminalState == .completed)
        let v1Night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2024-10-01")!).first)
        #expect(v1Night.intervalMinutes == 165)
    }

    @Test("the later layout: raw values of both vocabularies mapped, UUID night ids kept, unknown medications rejected")
    func mappingLater() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try OriginalFixture.make(OriginalFixture.later, in: directory, name: "later.sqlite")
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 1, 15, 12, 0))
        let report = try ledger.database.transfer.importFile(at: path, clock: clock.store)
        let night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2025-12-26")!).first)
        #expect(night.session.id.rawValue == "ad495b67-0587-54a8-891e-5e8b83d23289")
        let checkIn = try #require(night.checkIn)
        #expect(checkIn.feelRested == .moderate)
        #expect(checkIn.grogginess == .cantFunction)
        #expect(checkIn.sleepInertia == .fiveToFifteen)
        #expect(checkIn.mood == .veryLow)
        #expect(checkIn.hadHallucinations)
        #expect(checkIn.notes == "=not a formula")
        #expect(NightFacts(night.session.events).dose2?.metadata.isEarly == true)
        #expect(night.session.events.first { $0.id.rawValue == "b1" }?.note == "thirsty, again")
        #expect(night.preSleep?.intendedSleepTime == .in30Minutes)
        #expect(report.notes.contains { $0.contains("caffeineSources") })
        #expect(report.rejected.contains { $0.file == "medication_events" && $0.reason.contains("aspirin") })
        #expect(report.rejected.contains { $0.file == "sleep_events" && $0.reason.contains("time") })
        #expect(night.medications.map(\.medicationID) == ["adderall_ir"])
    }

    @Test("a database that is not the original app's is refused, and nothing is written")
    func foreign() throws {
        let directory = try StoreFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try OriginalFixture.make("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup');", in: directory, name: "r.sqlite")
        let ledger = try StoreFixture.ledger()
        let before = try StoreFixture.snapshot(ledger)
        #expect(
            StoreFixture.isFileProblem(
                StoreFixture.refusal { _ = try ledger.database.transfer.importFile(at: path, clock: TestClock(StoreFixture.dose1).store) }))
        #expect(try StoreFixture.snapshot(ledger) == before)
    }
}
