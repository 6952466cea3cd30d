import GRDB

/// The schema as named migrations. A migration that has landed is never edited; changes come as new ones.
/// Each sets `PRAGMA user_version` to its number inside its own transaction, so the two never disagree.
enum Schema {
    /// The migrations, oldest first.
    static let migrations: [(name: String, body: @Sendable (Database) throws -> Void)] = [
        ("v1_night_records", v1),
        ("v2_full_record", v2),
        ("v3_server", v3),
        ("v4_action_links", v4),
        ("v5_server_runs", v5),
        ("v6_alarms", v6),
        ("v7_night_summaries", v7),
        ("v8_setup_and_supply", v8),
        ("v9_wearable_sleep", v9),
        ("v10_wearable_summaries", v10),
        ("v11_device_expiry", v11),
        ("v12_night_regimens", v12),
        ("v13_taken_anyway_audit", v13),
    ]

    /// The schema version this build writes (`user_version`).
    static var version: Int { migrations.count }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (index, migration) in migrations.enumerated() {
            migrator.registerMigration(migration.name) { db in
                try migration.body(db)
                try db.execute(sql: "PRAGMA user_version = \(index + 1)")
            }
        }
        return migrator
    }

    /// The first released schema, as it shipped. Long by design: a migration is frozen once released and must read as
    /// the schema it makes, so it is not split or edited.
    static func v1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE sleep_sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_date TEXT NOT NULL CHECK (session_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    started_at TEXT NOT NULL,
                    time_zone TEXT NOT NULL,
                    ended_at TEXT,
                    end_reason TEXT CHECK (end_reason IN ('checkin', 'missed_checkin_cutoff', 'prep_rollover')),
                    terminal_state TEXT CHECK (terminal_state IN ('completed', 'skipped', 'expired', 'aborted')),
                    -- Derived from the events in the same transaction as every change (D13); never edited alone.
                    dose1_at TEXT,
                    dose2_at TEXT,
                    dose2_skipped INTEGER NOT NULL DEFAULT 0,
                    extra_dose_count INTEGER NOT NULL DEFAULT 0,
                    snooze_count INTEGER NOT NULL DEFAULT 0,
                    interval_minutes INTEGER,
                    CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
                    CHECK ((ended_at IS NULL) = (terminal_state IS NULL))
                );
                CREATE INDEX sleep_sessions_by_date ON sleep_sessions(session_date);
                -- At most one night is open at a time.
                CREATE UNIQUE INDEX sleep_sessions_one_open ON sleep_sessions(ended_at IS NULL) WHERE ended_at IS NULL;

                CREATE TABLE dose_events (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    occurred_at TEXT NOT NULL CHECK (length(occurred_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    utc_offset_minutes INTEGER NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
                    time_zone TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
                    note TEXT CHECK (note IS NULL OR length(note) <= 500),
                    event_type TEXT NOT NULL CHECK (event_type IN ('dose1', 'dose2', 'extra_dose', 'dose2_skipped', 'snooze')),
                    metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata))
                );
                CREATE INDEX dose_events_by_session ON dose_events(session_id, occurred_at);
                CREATE INDEX dose_events_by_time ON dose_events(occurred_at);

                CREATE TABLE sleep_events (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    occurred_at TEXT NOT NULL CHECK (length(occurred_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    utc_offset_minutes INTEGER NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
                    time_zone TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
                    note TEXT CHECK (note IS NULL OR length(note) <= 500),
                    event_type TEXT NOT NULL CHECK (length(event_type) BETWEEN 1 AND 64),
                    category TEXT NOT NULL CHECK (category IN ('physical', 'sleep_cycle', 'mental', 'environment', 'custom'))
                );
                CREATE INDEX sleep_events_by_session ON sleep_events(session_id, occurred_at);
                CREATE INDEX sleep_events_by_time ON sleep_events(occurred_at);

                CREATE TABLE morning_checkins (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    occurred_at TEXT NOT NULL CHECK (length(occurred_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    utc_offset_minutes INTEGER NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
                    time_zone TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
                    note TEXT CHECK (note IS NULL OR length(note) <= 500),
                    sleep_quality INTEGER NOT NULL CHECK (sleep_quality BETWEEN 1 AND 5),
                    feel_rested TEXT NOT NULL CHECK (feel_rested IN ('not_at_all', 'slightly', 'moderate', 'well', 'very_well')),
                    grogginess TEXT NOT NULL CHECK (grogginess IN ('none', 'mild', 'moderate', 'severe', 'cant_function')),
                    mental_clarity INTEGER NOT NULL CHECK (mental_clarity BETWEEN 1 AND 10),
                    mood TEXT NOT NULL CHECK (mood IN ('very_low', 'low', 'neutral', 'good', 'great')),
                    readiness INTEGER NOT NULL CHECK (readiness BETWEEN 1 AND 5),
                    has_physical_symptoms INTEGER NOT NULL DEFAULT 0,
                    has_respiratory_symptoms INTEGER NOT NULL DEFAULT 0,
                    has_narcolepsy_symptoms INTEGER NOT NULL DEFAULT 0,
                    notes TEXT,
                    wellness_score INTEGER NOT NULL CHECK (wellness_score BETWEEN 0 AND 100)
                );
                CREATE UNIQUE INDEX morning_checkins_one_per_session ON morning_checkins(session_id);

                CREATE TABLE settings (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                );

                -- Undo, deletes and edits keep what they changed, so nothing disappears without a trace.
                CREATE TABLE audit_log (
                    id TEXT PRIMARY KEY NOT NULL,
                    at TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting')),
                    session_id TEXT,
                    entity_id TEXT,
                    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details))
                );
                CREATE INDEX audit_log_by_time ON audit_log(at);
                """)
    }

    /// The whole record of a night (issue 4): the full check-in, pre-sleep logs, medications, and an audit log
    /// that also keeps edits, deletes and imports.
    /// Long by design, as v1: one released migration, frozen.
    static func v2(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE morning_checkins ADD COLUMN sleep_inertia_duration TEXT NOT NULL DEFAULT 'five_to_fifteen'
                    CHECK (sleep_inertia_duration IN ('less_than_five', 'five_to_fifteen', 'fifteen_to_thirty', 'thirty_to_sixty', 'more_than_hour'));
                ALTER TABLE morning_checkins ADD COLUMN dream_recall TEXT NOT NULL DEFAULT 'none'
                    CHECK (dream_recall IN ('none', 'vague', 'normal', 'vivid', 'nightmares', 'disturbing'));
                ALTER TABLE morning_checkins ADD COLUMN anxiety_level TEXT NOT NULL DEFAULT 'none'
                    CHECK (anxiety_level IN ('none', 'mild', 'moderate', 'high', 'severe'));
                ALTER TABLE morning_checkins ADD COLUMN had_sleep_paralysis INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN had_hallucinations INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN had_automatic_behavior INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN fell_out_of_bed INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN had_confusion_on_waking INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN physical_symptoms_json TEXT CHECK (physical_symptoms_json IS NULL OR
                json_valid(physical_symptoms_json));
                ALTER TABLE morning_checkins ADD COLUMN respiratory_symptoms_json TEXT CHECK (respiratory_symptoms_json IS NULL OR
                json_valid(respiratory_symptoms_json));
                ALTER TABLE morning_checkins ADD COLUMN used_sleep_therapy INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN sleep_therapy_json TEXT CHECK (sleep_therapy_json IS NULL OR json_valid(sleep_therapy_json));
                ALTER TABLE morning_checkins ADD COLUMN has_sleep_environment INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE morning_checkins ADD COLUMN sleep_environment_json TEXT CHECK (sleep_environment_json IS NULL OR
                json_valid(sleep_environment_json));

                CREATE TABLE pre_sleep_logs (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    occurred_at TEXT NOT NULL CHECK (length(occurred_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    utc_offset_minutes INTEGER NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
                    time_zone TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
                    note TEXT CHECK (note IS NULL OR length(note) <= 500),
                    completion_state TEXT NOT NULL CHECK (completion_state IN ('partial', 'complete', 'skipped')),
                    answers_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(answers_json))
                );
                CREATE UNIQUE INDEX pre_sleep_logs_one_per_session ON pre_sleep_logs(session_id);

                CREATE TABLE medication_events (
                    id TEXT PRIMARY KEY NOT NULL,
                    -- The night of the same session date, if there is one; medications taken by day stand alone.
                    session_id TEXT REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    session_date TEXT NOT NULL,
                    medication_id TEXT NOT NULL,
                    dose_mg REAL NOT NULL CHECK (dose_mg > 0),
                    dose_amount REAL NOT NULL CHECK (dose_amount > 0),
                    dose_unit TEXT NOT NULL CHECK (dose_unit IN ('mg', 'g', 'mL')),
                    formulation TEXT NOT NULL,
                    taken_at TEXT NOT NULL CHECK (length(taken_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    utc_offset_minutes INTEGER NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
                    time_zone TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
                    notes TEXT CHECK (notes IS NULL OR length(notes) <= 500),
                    confirmed_duplicate INTEGER NOT NULL DEFAULT 0,
                    batch_id TEXT NOT NULL
                );
                CREATE INDEX medication_events_by_time ON medication_events(taken_at);
                CREATE INDEX medication_events_by_session ON medication_events(session_id);
                CREATE INDEX medication_events_by_medication ON medication_events(medication_id, taken_at);

                CREATE TABLE audit_log_v2 (
                    id TEXT PRIMARY KEY NOT NULL,
                    at TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting', 'edit_event', 'delete_event',
                        'edit_checkin', 'replace_presleep', 'edit_medication', 'delete_medication', 'import')),
                    session_id TEXT,
                    entity_id TEXT,
                    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details))
                );
                INSERT INTO audit_log_v2 SELECT id, at, action, session_id, entity_id, details FROM audit_log;
                DROP TABLE audit_log;
                ALTER TABLE audit_log_v2 RENAME TO audit_log;
                CREATE INDEX audit_log_by_time ON audit_log(at);
                """)
    }

    /// What `dosetap serve` needs (issue 5): paired devices (tokens stored only as hashes), idempotency records, and
    /// the reminders already fired or missed.
    static func v3(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
                    token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
                    created_at TEXT NOT NULL,
                    revoked_at TEXT
                );
                CREATE TABLE idempotency_keys (
                    device_id TEXT NOT NULL,
                    key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
                    request_hash TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    response TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    PRIMARY KEY (device_id, key)
                );
                CREATE INDEX idempotency_keys_by_time ON idempotency_keys(created_at);
                CREATE TABLE reminder_log (
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    fire_at TEXT NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('fired', 'missed')),
                    recorded_at TEXT NOT NULL,
                    PRIMARY KEY (session_id, kind, fire_at)
                );
                """)
    }

    /// The key that signs reminder action links; one row per purpose, made on first use, deleted by Clear All Data.
    static func v4(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE server_keys (
                    purpose TEXT PRIMARY KEY NOT NULL,
                    secret TEXT NOT NULL CHECK (length(secret) = 64),
                    created_at TEXT NOT NULL
                );
                """)
    }

    /// When `dosetap serve` ran: a row per start, its last sign of life (every 30 s) and its clean stop, so a night can
    /// say when the server, and with it the alarms, was down.
    static func v5(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE server_runs (
                    id TEXT PRIMARY KEY NOT NULL,
                    started_at TEXT NOT NULL CHECK (length(started_at) = 24),
                    last_seen_at TEXT NOT NULL CHECK (length(last_seen_at) = 24),
                    stopped_at TEXT CHECK (stopped_at IS NULL OR length(stopped_at) = 24)
                );
                CREATE INDEX server_runs_by_start ON server_runs(started_at);
                """)
    }

    /// Alarms that reach a closed app (issue 14): Web Push subscriptions per paired device (for the sleeper's alarms,
    /// or for an escalation contact's phone), every delivery attempt per reminder and channel, and every answer to an
    /// alarm. The VAPID key lives in `server_keys` beside the action-link secret.
    static func v6(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE push_subscriptions (
                    id TEXT PRIMARY KEY NOT NULL,
                    device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    endpoint TEXT NOT NULL UNIQUE CHECK (length(endpoint) BETWEEN 12 AND 2000),
                    p256dh TEXT NOT NULL CHECK (length(p256dh) = 87),
                    auth TEXT NOT NULL CHECK (length(auth) = 22),
                    expires_at TEXT CHECK (expires_at IS NULL OR length(expires_at) = 24),
                    role TEXT NOT NULL CHECK (role IN ('alarm', 'contact')),
                    created_at TEXT NOT NULL CHECK (length(created_at) = 24)
                );
                CREATE INDEX push_subscriptions_by_device ON push_subscriptions(device_id);
                CREATE TABLE alarm_deliveries (
                    id TEXT PRIMARY KEY NOT NULL,
                    -- NULL for a test alarm.
                    session_id TEXT REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    fire_at TEXT NOT NULL CHECK (length(fire_at) = 24),
                    channel TEXT NOT NULL CHECK (channel IN ('page', 'push', 'ntfy', 'webhook', 'command')),
                    audience TEXT NOT NULL CHECK (audience IN ('sleeper', 'contact')),
                    -- A name safe to show: a device's name, a URL's host; never a secret.
                    target TEXT NOT NULL,
                    attempt INTEGER NOT NULL CHECK (attempt >= 1),
                    outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'retrying', 'failed', 'removed', 'none')),
                    http_status INTEGER,
                    detail TEXT,
                    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
                    at TEXT NOT NULL CHECK (length(at) = 24)
                );
                CREATE INDEX alarm_deliveries_by_session ON alarm_deliveries(session_id, fire_at);
                CREATE INDEX alarm_deliveries_by_time ON alarm_deliveries(at);
                CREATE TABLE alarm_acknowledgements (
                    id TEXT PRIMARY KEY NOT NULL,
                    session_id TEXT NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    at TEXT NOT NULL CHECK (length(at) = 24),
                    surface TEXT NOT NULL CHECK (surface IN ('page', 'push', 'link', 'cli', 'api', 'button')),
                    -- The action that answered the alarm; NULL for an explicit "I'm up".
                    event_id TEXT
                );
                CREATE INDEX alarm_acknowledgements_by_session ON alarm_acknowledgements(session_id, at);
                """)
    }

    /// What insights read of a night beyond `sleep_sessions`' derived columns (issue 15), so ten years of insights read
    /// a row a night instead of every event. Derived from the events and rewritten with them; every existing night is
    /// summarised here once. Bundles do not carry it: an import rebuilds it with the nights it touches.
    static func v7(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE night_summaries (
                    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
                    dose1_time_zone TEXT,
                    dose2_time_zone TEXT,
                    -- One line per extra dose, oldest first: its instant, a space, its zone.
                    extra_doses TEXT,
                    skip_reason TEXT,
                    slept_through INTEGER NOT NULL CHECK (slept_through IN (0, 1)),
                    awakenings INTEGER NOT NULL CHECK (awakenings >= 0)
                ) WITHOUT ROWID;
                """)
        try NightSummaries.rebuildAll(db)
    }

    /// First-run setup and the medication supply (issue 16): when setup was completed and from where, notices shown
    /// once, the supply ledger (refills and adjustments), the days a refill reminder went out, and the audit actions
    /// for them. A database that already holds doses was set up by an earlier version's means, so it counts as set up.
    static func v8(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE setup_runs (
                    id TEXT PRIMARY KEY NOT NULL,
                    completed_at TEXT NOT NULL CHECK (length(completed_at) = 24),
                    surface TEXT NOT NULL CHECK (surface IN ('web', 'cli', 'api', 'migration'))
                );
                INSERT INTO setup_runs
                    SELECT 'setup-before-v8', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'migration' WHERE EXISTS (SELECT 1 FROM dose_events);
                CREATE TABLE notices_shown (
                    name TEXT PRIMARY KEY NOT NULL,
                    shown_at TEXT NOT NULL CHECK (length(shown_at) = 24)
                );
                CREATE TABLE inventory_events (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('refill_logged', 'inventory_adjustment')),
                    occurred_at TEXT NOT NULL CHECK (length(occurred_at) = 24),
                    recorded_at TEXT NOT NULL CHECK (length(recorded_at) = 24),
                    time_zone TEXT NOT NULL,
                    change_ml REAL CHECK (change_ml IS NULL OR (change_ml BETWEEN -10000 AND 10000 AND change_ml <> 0)),
                    counted_ml REAL CHECK (counted_ml IS NULL OR counted_ml BETWEEN 0 AND 10000),
                    bottles INTEGER CHECK (bottles IS NULL OR bottles BETWEEN 1 AND 12),
                    reason TEXT CHECK (reason IS NULL OR length(reason) <= 1000),
                    CHECK ((change_ml IS NULL) <> (counted_ml IS NULL)),
                    CHECK (kind = 'inventory_adjustment' OR change_ml > 0)
                );
                CREATE INDEX inventory_events_by_time ON inventory_events(occurred_at);
                CREATE TABLE refill_reminders (
                    day TEXT PRIMARY KEY NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    sent_at TEXT NOT NULL CHECK (length(sent_at) = 24),
                    nights_left INTEGER NOT NULL
                );

                CREATE TABLE audit_log_v8 (
                    id TEXT PRIMARY KEY NOT NULL,
                    at TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting', 'edit_event', 'delete_event',
                        'edit_checkin', 'replace_presleep', 'edit_medication', 'delete_medication', 'import',
                        'setup', 'refill_logged', 'inventory_adjustment', 'delete_inventory')),
                    session_id TEXT,
                    entity_id TEXT,
                    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details))
                );
                INSERT INTO audit_log_v8 SELECT id, at, action, session_id, entity_id, details FROM audit_log;
                DROP TABLE audit_log;
                ALTER TABLE audit_log_v8 RENAME TO audit_log;
                CREATE INDEX audit_log_by_time ON audit_log(at);
                """)
    }

    /// Sleep from wearables (issue 17): each sleep-stage record and each vital sample imported, with its source and the
    /// UTC offsets the export gave. Ids are digests of what a record says, so importing an export again adds nothing and a
    /// newer export adds only what is new. The night's figures are derived from these rows when read, never stored.
    static func v9(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE wearable_sleep (
                    id TEXT PRIMARY KEY NOT NULL,
                    provider TEXT NOT NULL CHECK (provider IN ('apple_health', 'whoop')),
                    source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 1000),
                    stage TEXT NOT NULL CHECK (stage IN ('in_bed', 'asleep', 'core', 'deep', 'rem', 'awake')),
                    start_at TEXT NOT NULL CHECK (length(start_at) = 24),
                    end_at TEXT NOT NULL CHECK (length(end_at) = 24 AND end_at >= start_at),
                    start_offset_minutes INTEGER CHECK (start_offset_minutes IS NULL OR start_offset_minutes BETWEEN -1080 AND 1080),
                    end_offset_minutes INTEGER CHECK (end_offset_minutes IS NULL OR end_offset_minutes BETWEEN -1080 AND 1080),
                    imported_at TEXT NOT NULL CHECK (length(imported_at) = 24)
                );
                CREATE INDEX wearable_sleep_by_time ON wearable_sleep(start_at);
                CREATE TABLE wearable_vitals (
                    id TEXT PRIMARY KEY NOT NULL,
                    provider TEXT NOT NULL CHECK (provider IN ('apple_health', 'whoop')),
                    source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 1000),
                    kind TEXT NOT NULL CHECK (kind IN ('heart_rate', 'hrv_sdnn', 'respiratory_rate', 'oxygen_saturation')),
                    start_at TEXT NOT NULL CHECK (length(start_at) = 24),
                    end_at TEXT NOT NULL CHECK (length(end_at) = 24 AND end_at >= start_at),
                    value REAL NOT NULL,
                    imported_at TEXT NOT NULL CHECK (length(imported_at) = 24)
                );
                CREATE INDEX wearable_vitals_by_time ON wearable_vitals(start_at);
                """)
    }

    /// Sleeps a wearable gives as totals (WHOOP's export): one row a sleep with its stage minutes and the band's
    /// readings of that night. The id is a digest of the source and the sleep's bounds, so a later export of the same
    /// sleep fills in what an earlier one lacked (recovery is scored after waking) instead of adding a second sleep.
    /// Ranges mirror the import's validation.
    static func v10(_ db: Database) throws {
        func minutes(_ column: String) -> String { "\(column) REAL CHECK (\(column) IS NULL OR \(column) BETWEEN 0 AND 1440)" }
        func reading(_ column: String, _ low: Int, _ high: Int) -> String {
            "\(column) REAL CHECK (\(column) IS NULL OR \(column) BETWEEN \(low) AND \(high))"
        }
        try db.execute(
            sql: """
                CREATE TABLE wearable_summaries (
                    id TEXT PRIMARY KEY NOT NULL,
                    provider TEXT NOT NULL CHECK (provider IN ('whoop')),
                    source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 1000),
                    start_at TEXT NOT NULL CHECK (length(start_at) = 24),
                    end_at TEXT NOT NULL CHECK (length(end_at) = 24 AND end_at > start_at),
                    offset_minutes INTEGER CHECK (offset_minutes IS NULL OR offset_minutes BETWEEN -1080 AND 1080),
                    nap INTEGER NOT NULL CHECK (nap IN (0, 1)),
                    \(minutes("in_bed_minutes")), \(minutes("asleep_minutes")), \(minutes("light_minutes")),
                    \(minutes("deep_minutes")), \(minutes("rem_minutes")), \(minutes("awake_minutes")),
                    \(reading("recovery_percent", 0, 100)), \(reading("sleep_performance_percent", 0, 100)),
                    \(reading("sleep_efficiency_percent", 0, 100)), \(reading("resting_heart_rate", 20, 250)),
                    \(reading("hrv_ms", 0, 500)), \(reading("respiratory_rate", 4, 60)),
                    \(reading("oxygen_saturation_percent", 50, 100)), \(reading("skin_temp_celsius", 20, 45)),
                    imported_at TEXT NOT NULL CHECK (length(imported_at) = 24)
                );
                CREATE INDEX wearable_summaries_by_time ON wearable_summaries(start_at);
                """)
    }

    /// A paired device expires when unused for 90 days, or at the date chosen for a script's token
    /// (`DeviceLifetime`): its last use (written at most once a day) and that date. Bundles do not carry devices.
    /// Devices paired before count as used at the upgrade: each has its full 90 days, so an upgrade signs no one out.
    static func v11(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE devices ADD COLUMN last_used_at TEXT CHECK (last_used_at IS NULL OR length(last_used_at) = 24);
                ALTER TABLE devices ADD COLUMN expires_at TEXT CHECK (expires_at IS NULL OR length(expires_at) = 24);
                UPDATE devices SET last_used_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE revoked_at IS NULL;
                """)
    }

    /// Each night keeps the regimen it was taken under (issue 37, D19). Every Dose 1 recorded before was twice nightly,
    /// the only regimen DoseTap had: it gets that regimen with its own amount (the profile's if it has none), its
    /// night's Dose 2 amount (likewise), the product and the target of the profile. The regimen is added as the last
    /// key, which is where the sorted encoding of every new Dose 1 puts it, so old and new nights read alike and both
    /// stores write the same bytes (`NightRegimenFill` is shared with PostgreSQL's migration).
    static func v12(_ db: Database) throws {
        try db.execute(sql: NightRegimenFill.sql(.sqlite))
    }

    /// A dose recorded as taken past the night's limits is audited (D20, issue 54): the audit log admits its action.
    static func v13(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE audit_log_v13 (
                    id TEXT PRIMARY KEY NOT NULL,
                    at TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting', 'edit_event', 'delete_event',
                        'edit_checkin', 'replace_presleep', 'edit_medication', 'delete_medication', 'import',
                        'setup', 'refill_logged', 'inventory_adjustment', 'delete_inventory', 'taken_anyway')),
                    session_id TEXT,
                    entity_id TEXT,
                    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details))
                );
                INSERT INTO audit_log_v13 SELECT id, at, action, session_id, entity_id, details FROM audit_log;
                DROP TABLE audit_log;
                ALTER TABLE audit_log_v13 RENAME TO audit_log;
                CREATE INDEX audit_log_by_time ON audit_log(at);
                """)
    }
}
