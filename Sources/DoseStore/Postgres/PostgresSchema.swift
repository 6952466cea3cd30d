import DoseCore
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// The PostgreSQL schema: named migrations that are never edited once landed, applied in order under an advisory lock
/// so several instances starting at once apply each exactly once. `dosetap_migrations` records which have run.
///
/// The tables mirror SQLite's with PostgreSQL's types: instants are `timestamptz` (read back through
/// `dosetap_instant`, the same fixed-width UTC text the SQLite store keeps, so both stores give byte-identical
/// exports), dates are `date`, flags `boolean`. JSON columns stay text checked by a cast to `jsonb`, so an export gives
/// back exactly the bytes written. Every row that belongs to a person carries `person_id`.
enum PostgresSchema {
    /// The migrations, oldest first.
    static let migrations: [(name: String, sql: String)] = [
        ("v1_nights", v1Nights), ("v2_records", v2Records), ("v3_night_versions", v3NightVersions), ("v4_people", v4People),
        ("v5_sign_in", v5SignIn), ("v6_person_keys", v6PersonKeys), ("v7_sharing", v7Sharing), ("v8_ladder", v8Ladder),
        ("v9_row_security", v9RowSecurity), ("v10_expiry_and_limits", v10ExpiryAndLimits),
        ("v11_pairing_codes", v11PairingCodes), ("v12_reminder_jobs", v12ReminderJobs),
        ("v13_shared_upkeep", v13SharedUpkeep), ("v14_night_regimens", v14NightRegimens),
        ("v15_taken_anyway_audit", v15TakenAnywayAudit),
    ]

    /// A key for `pg_advisory_xact_lock`, the same in every instance: "DOSETAP" in ASCII.
    static let lockKey: Int64 = 0x444F_5345_5441_50

    /// Applies the migrations the store lacks, each in its own transaction with its record.
    static func migrate(_ store: PostgresStore) throws {
        // Almost always every migration has run: one read, no lock, which also brings the store's first two people for
        // `soloPerson`. A store without the table takes the locked path.
        let opening = try? store.withConnection { session in
            try session.rows(
                "SELECT name, (SELECT array_agg(id) FROM (SELECT id FROM people ORDER BY id LIMIT 2) AS first) FROM dosetap_migrations"
            ).map { try $0.decode((String, [String]?).self) }
        }
        if let opening, Set(opening.map(\.0)).isSuperset(of: migrations.map(\.name)) {
            store.peopleAtOpening.withLockedValue { $0 = opening.first?.1 ?? [] }
            return
        }
        do {
            try apply(to: store)
        } catch let failure as PostgresFailure where failure.state == "42501" {
            // The service's own role owns nothing, so it cannot bring the schema up to date: its owner must, once.
            throw DoseError.storageUnavailable(
                problem: """
                    \(store.location.redacted) lacks some of this dosetap's migrations, and \(store.location.username) may not apply them \
                    (\(failure.message)); run `dosetap store grant \(store.location.username) --database OWNER_URL` as the schema's owner
                    """)
        }
    }

    /// Applies the migrations missing, under the lock.
    private static func apply(to store: PostgresStore) throws {
        try store.transaction { session in
            try session.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            if let schema = store.location.schema { try session.execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)")) }
            try session.execute(
                "CREATE TABLE IF NOT EXISTS dosetap_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            let applied = Set(try session.rows("SELECT name FROM dosetap_migrations").map { try $0.decode(String.self) })
            for migration in migrations where !applied.contains(migration.name) {
                // One statement at a time: the extended protocol takes one per message.
                for statement in statements(of: migration.sql) { try session.execute(PostgresQuery(unsafeSQL: statement)) }
                try session.execute("INSERT INTO dosetap_migrations (name) VALUES (\(migration.name))")
            }
        }
    }

    /// A migration's statements: each ends with a semicolon at the end of its line.
    static func statements(of sql: String) -> [String] {
        sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The night tables, settings, people and the audit log.
    static let v1Nights = """
        CREATE FUNCTION dosetap_instant(timestamptz) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

        CREATE TABLE people (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            created_at timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE settings (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            key text NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
            value text NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (person_id, key)
        );

        CREATE TABLE sleep_sessions (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_date date NOT NULL,
            started_at timestamptz NOT NULL,
            time_zone text NOT NULL,
            ended_at timestamptz,
            end_reason text CHECK (end_reason IN ('checkin', 'missed_checkin_cutoff', 'prep_rollover')),
            terminal_state text CHECK (terminal_state IN ('completed', 'skipped', 'expired', 'aborted')),
            -- Derived from the events in the same transaction as every change (D13); never edited alone.
            dose1_at timestamptz,
            dose2_at timestamptz,
            dose2_skipped boolean NOT NULL DEFAULT false,
            extra_dose_count integer NOT NULL DEFAULT 0,
            snooze_count integer NOT NULL DEFAULT 0,
            interval_minutes integer,
            CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
            CHECK ((ended_at IS NULL) = (terminal_state IS NULL))
        );
        CREATE INDEX sleep_sessions_by_date ON sleep_sessions (person_id, session_date);
        CREATE INDEX sleep_sessions_by_end ON sleep_sessions (person_id, ended_at);
        -- One open night per person: what SQLite's single writer and its one-open index held.
        CREATE UNIQUE INDEX sleep_sessions_one_open ON sleep_sessions (person_id) WHERE ended_at IS NULL;

        CREATE TABLE dose_events (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            occurred_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
            time_zone text NOT NULL,
            source text NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
            note text CHECK (note IS NULL OR char_length(note) <= 500),
            event_type text NOT NULL CHECK (event_type IN ('dose1', 'dose2', 'extra_dose', 'dose2_skipped', 'snooze')),
            metadata text NOT NULL DEFAULT '{}' CHECK (metadata::jsonb IS NOT NULL)
        );
        CREATE INDEX dose_events_by_session ON dose_events (session_id, occurred_at);
        CREATE INDEX dose_events_by_time ON dose_events (person_id, occurred_at);

        CREATE TABLE sleep_events (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            occurred_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
            time_zone text NOT NULL,
            source text NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
            note text CHECK (note IS NULL OR char_length(note) <= 500),
            event_type text NOT NULL CHECK (length(event_type) BETWEEN 1 AND 64),
            category text NOT NULL CHECK (category IN ('physical', 'sleep_cycle', 'mental', 'environment', 'custom'))
        );
        CREATE INDEX sleep_events_by_session ON sleep_events (session_id, occurred_at);
        CREATE INDEX sleep_events_by_time ON sleep_events (person_id, event_type, occurred_at);

        CREATE TABLE morning_checkins (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text NOT NULL UNIQUE REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            occurred_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
            time_zone text NOT NULL,
            source text NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
            note text CHECK (note IS NULL OR char_length(note) <= 500),
            sleep_quality integer NOT NULL CHECK (sleep_quality BETWEEN 1 AND 5),
            feel_rested text NOT NULL CHECK (feel_rested IN ('not_at_all', 'slightly', 'moderate', 'well', 'very_well')),
            grogginess text NOT NULL CHECK (grogginess IN ('none', 'mild', 'moderate', 'severe', 'cant_function')),
            sleep_inertia_duration text NOT NULL
                CHECK (sleep_inertia_duration IN ('less_than_five', 'five_to_fifteen', 'fifteen_to_thirty', 'thirty_to_sixty', 'more_than_hour')),
            dream_recall text NOT NULL CHECK (dream_recall IN ('none', 'vague', 'normal', 'vivid', 'nightmares', 'disturbing')),
            mental_clarity integer NOT NULL CHECK (mental_clarity BETWEEN 1 AND 10),
            mood text NOT NULL CHECK (mood IN ('very_low', 'low', 'neutral', 'good', 'great')),
            anxiety_level text NOT NULL CHECK (anxiety_level IN ('none', 'mild', 'moderate', 'high', 'severe')),
            readiness integer NOT NULL CHECK (readiness BETWEEN 1 AND 5),
            had_sleep_paralysis boolean NOT NULL,
            had_hallucinations boolean NOT NULL,
            had_automatic_behavior boolean NOT NULL,
            fell_out_of_bed boolean NOT NULL,
            had_confusion_on_waking boolean NOT NULL,
            has_physical_symptoms boolean NOT NULL,
            physical_symptoms_json text CHECK (physical_symptoms_json IS NULL OR physical_symptoms_json::jsonb IS NOT NULL),
            has_respiratory_symptoms boolean NOT NULL,
            respiratory_symptoms_json text CHECK (respiratory_symptoms_json IS NULL OR respiratory_symptoms_json::jsonb IS NOT NULL),
            has_narcolepsy_symptoms boolean NOT NULL,
            used_sleep_therapy boolean NOT NULL,
            sleep_therapy_json text CHECK (sleep_therapy_json IS NULL OR sleep_therapy_json::jsonb IS NOT NULL),
            has_sleep_environment boolean NOT NULL,
            sleep_environment_json text CHECK (sleep_environment_json IS NULL OR sleep_environment_json::jsonb IS NOT NULL),
            notes text,
            wellness_score integer NOT NULL CHECK (wellness_score BETWEEN 0 AND 100)
        );
        CREATE INDEX morning_checkins_by_time ON morning_checkins (person_id, occurred_at);

        CREATE TABLE night_summaries (
            session_id text PRIMARY KEY REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            dose1_time_zone text,
            dose2_time_zone text,
            -- One line per extra dose, oldest first: its instant, a space, its zone.
            extra_doses text,
            skip_reason text,
            slept_through boolean NOT NULL,
            awakenings integer NOT NULL CHECK (awakenings >= 0)
        );

        CREATE TABLE reminder_log (
            session_id text NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            kind text NOT NULL,
            fire_at timestamptz NOT NULL,
            outcome text NOT NULL CHECK (outcome IN ('fired', 'missed')),
            recorded_at timestamptz NOT NULL,
            PRIMARY KEY (session_id, kind, fire_at)
        );

        CREATE TABLE alarm_acknowledgements (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            session_id text NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            at timestamptz NOT NULL,
            surface text NOT NULL CHECK (surface IN ('page', 'push', 'link', 'cli', 'api', 'button')),
            -- The action that answered the alarm; NULL for an explicit "I'm up".
            event_id text
        );
        CREATE INDEX alarm_acknowledgements_by_session ON alarm_acknowledgements (session_id, at);

        CREATE TABLE idempotency_keys (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            device_id text NOT NULL,
            key text NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
            request_hash text NOT NULL,
            status integer NOT NULL,
            response text NOT NULL,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (device_id, key)
        );
        CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at);

        CREATE TABLE audit_log (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            at timestamptz NOT NULL,
            action text NOT NULL CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting', 'edit_event', 'delete_event',
                'edit_checkin', 'replace_presleep', 'edit_medication', 'delete_medication', 'import',
                'setup', 'refill_logged', 'inventory_adjustment', 'delete_inventory')),
            session_id text,
            entity_id text,
            details text NOT NULL DEFAULT '{}' CHECK (details::jsonb IS NOT NULL)
        );
        CREATE INDEX audit_log_by_time ON audit_log (person_id, at);
        """

    /// Everything beyond the night: the journal and medications, devices and alarms, the supply, setup and wearables,
    /// and the service's own keys and runs (which belong to no person).
    static let v2Records = """
        CREATE TABLE pre_sleep_logs (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text NOT NULL UNIQUE REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            occurred_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
            time_zone text NOT NULL,
            source text NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
            note text CHECK (note IS NULL OR char_length(note) <= 500),
            completion_state text NOT NULL CHECK (completion_state IN ('partial', 'complete', 'skipped')),
            answers_json text NOT NULL DEFAULT '{}' CHECK (answers_json::jsonb IS NOT NULL)
        );

        CREATE TABLE medication_events (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            session_date date NOT NULL,
            medication_id text NOT NULL,
            dose_mg double precision NOT NULL CHECK (dose_mg > 0),
            dose_amount double precision NOT NULL CHECK (dose_amount > 0),
            dose_unit text NOT NULL CHECK (dose_unit IN ('mg', 'g', 'mL')),
            formulation text NOT NULL,
            taken_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            utc_offset_minutes integer NOT NULL CHECK (utc_offset_minutes BETWEEN -1080 AND 1080),
            time_zone text NOT NULL,
            source text NOT NULL CHECK (source IN ('user', 'button', 'link', 'system', 'imported')),
            notes text CHECK (notes IS NULL OR char_length(notes) <= 500),
            confirmed_duplicate boolean NOT NULL DEFAULT false,
            batch_id text NOT NULL
        );
        CREATE INDEX medication_events_by_time ON medication_events (person_id, taken_at);
        CREATE INDEX medication_events_by_session ON medication_events (session_id);

        CREATE TABLE devices (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
            token_hash text NOT NULL UNIQUE CHECK (length(token_hash) = 64),
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        );
        CREATE INDEX devices_by_person ON devices (person_id);

        CREATE TABLE push_subscriptions (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            endpoint text NOT NULL UNIQUE CHECK (length(endpoint) BETWEEN 12 AND 2000),
            p256dh text NOT NULL CHECK (length(p256dh) = 87),
            auth text NOT NULL CHECK (length(auth) = 22),
            expires_at timestamptz,
            role text NOT NULL CHECK (role IN ('alarm', 'contact')),
            created_at timestamptz NOT NULL
        );
        CREATE INDEX push_subscriptions_by_device ON push_subscriptions (device_id);

        CREATE TABLE alarm_deliveries (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            session_id text REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            kind text NOT NULL,
            fire_at timestamptz NOT NULL,
            channel text NOT NULL CHECK (channel IN ('page', 'push', 'ntfy', 'webhook', 'command')),
            audience text NOT NULL CHECK (audience IN ('sleeper', 'contact')),
            target text NOT NULL,
            attempt integer NOT NULL CHECK (attempt >= 1),
            outcome text NOT NULL CHECK (outcome IN ('accepted', 'retrying', 'failed', 'removed', 'none')),
            http_status integer,
            detail text,
            duration_ms integer NOT NULL CHECK (duration_ms >= 0),
            at timestamptz NOT NULL
        );
        CREATE INDEX alarm_deliveries_by_session ON alarm_deliveries (session_id, fire_at);
        CREATE INDEX alarm_deliveries_by_time ON alarm_deliveries (person_id, at);

        -- The service's keys and runs belong to the service, not to a person.
        CREATE TABLE server_keys (
            purpose text PRIMARY KEY,
            secret text NOT NULL CHECK (length(secret) = 64),
            created_at timestamptz NOT NULL
        );

        CREATE TABLE server_runs (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            started_at timestamptz NOT NULL,
            last_seen_at timestamptz NOT NULL,
            stopped_at timestamptz
        );
        CREATE INDEX server_runs_by_start ON server_runs (started_at);

        CREATE TABLE setup_runs (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            completed_at timestamptz NOT NULL,
            surface text NOT NULL CHECK (surface IN ('web', 'cli', 'api', 'migration'))
        );

        CREATE TABLE notices_shown (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            name text NOT NULL,
            shown_at timestamptz NOT NULL,
            PRIMARY KEY (person_id, name)
        );

        CREATE TABLE inventory_events (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (kind IN ('refill_logged', 'inventory_adjustment')),
            occurred_at timestamptz NOT NULL,
            recorded_at timestamptz NOT NULL,
            time_zone text NOT NULL,
            change_ml double precision CHECK (change_ml IS NULL OR (change_ml BETWEEN -10000 AND 10000 AND change_ml <> 0)),
            counted_ml double precision CHECK (counted_ml IS NULL OR counted_ml BETWEEN 0 AND 10000),
            bottles integer CHECK (bottles IS NULL OR bottles BETWEEN 1 AND 12),
            reason text CHECK (reason IS NULL OR char_length(reason) <= 1000),
            CHECK ((change_ml IS NULL) <> (counted_ml IS NULL)),
            CHECK (kind = 'inventory_adjustment' OR change_ml > 0)
        );
        CREATE INDEX inventory_events_by_time ON inventory_events (person_id, occurred_at);

        CREATE TABLE refill_reminders (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            day date NOT NULL,
            sent_at timestamptz NOT NULL,
            nights_left integer NOT NULL,
            PRIMARY KEY (person_id, day)
        );

        CREATE TABLE wearable_sleep (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            provider text NOT NULL CHECK (provider IN ('apple_health', 'whoop')),
            source text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 1000),
            stage text NOT NULL CHECK (stage IN ('in_bed', 'asleep', 'core', 'deep', 'rem', 'awake')),
            start_at timestamptz NOT NULL,
            end_at timestamptz NOT NULL CHECK (end_at >= start_at),
            start_offset_minutes integer CHECK (start_offset_minutes IS NULL OR start_offset_minutes BETWEEN -1080 AND 1080),
            end_offset_minutes integer CHECK (end_offset_minutes IS NULL OR end_offset_minutes BETWEEN -1080 AND 1080),
            imported_at timestamptz NOT NULL
        );
        CREATE INDEX wearable_sleep_by_time ON wearable_sleep (person_id, start_at);

        CREATE TABLE wearable_vitals (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            provider text NOT NULL CHECK (provider IN ('apple_health', 'whoop')),
            source text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 1000),
            kind text NOT NULL CHECK (kind IN ('heart_rate', 'hrv_sdnn', 'respiratory_rate', 'oxygen_saturation')),
            start_at timestamptz NOT NULL,
            end_at timestamptz NOT NULL CHECK (end_at >= start_at),
            value double precision NOT NULL,
            imported_at timestamptz NOT NULL
        );
        CREATE INDEX wearable_vitals_by_time ON wearable_vitals (person_id, start_at);

        CREATE TABLE wearable_summaries (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            provider text NOT NULL CHECK (provider IN ('whoop')),
            source text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 1000),
            start_at timestamptz NOT NULL,
            end_at timestamptz NOT NULL CHECK (end_at > start_at),
            offset_minutes integer CHECK (offset_minutes IS NULL OR offset_minutes BETWEEN -1080 AND 1080),
            nap boolean NOT NULL,
            in_bed_minutes double precision CHECK (in_bed_minutes BETWEEN 0 AND 1440),
            asleep_minutes double precision CHECK (asleep_minutes BETWEEN 0 AND 1440),
            light_minutes double precision CHECK (light_minutes BETWEEN 0 AND 1440),
            deep_minutes double precision CHECK (deep_minutes BETWEEN 0 AND 1440),
            rem_minutes double precision CHECK (rem_minutes BETWEEN 0 AND 1440),
            awake_minutes double precision CHECK (awake_minutes BETWEEN 0 AND 1440),
            recovery_percent double precision CHECK (recovery_percent BETWEEN 0 AND 100),
            sleep_performance_percent double precision CHECK (sleep_performance_percent BETWEEN 0 AND 100),
            sleep_efficiency_percent double precision CHECK (sleep_efficiency_percent BETWEEN 0 AND 100),
            resting_heart_rate double precision CHECK (resting_heart_rate BETWEEN 20 AND 250),
            hrv_ms double precision CHECK (hrv_ms BETWEEN 0 AND 500),
            respiratory_rate double precision CHECK (respiratory_rate BETWEEN 4 AND 60),
            oxygen_saturation_percent double precision CHECK (oxygen_saturation_percent BETWEEN 50 AND 100),
            skin_temp_celsius double precision CHECK (skin_temp_celsius BETWEEN 20 AND 45),
            imported_at timestamptz NOT NULL
        );
        CREATE INDEX wearable_summaries_by_time ON wearable_summaries (person_id, start_at);
        """

    /// A version of each person's nights, for the open night a server keeps in memory (`OpenNights`): every statement
    /// that changes a night table gives the person a new value from one sequence, so a value is never seen twice, not
    /// even after Clear All or a removed and re-added person. Triggers do it, so no writer (a workspace, a correction,
    /// a command of another version) can forget to.
    static let v3NightVersions = """
        CREATE SEQUENCE dosetap_night_versions;
        ALTER TABLE people ADD COLUMN night_version bigint NOT NULL DEFAULT nextval('dosetap_night_versions');
        CREATE FUNCTION dosetap_night_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE people SET night_version =
        nextval('dosetap_night_versions') WHERE id IN (SELECT DISTINCT person_id FROM changed); RETURN NULL; END $$;
        CREATE TRIGGER sleep_sessions_inserted AFTER INSERT ON sleep_sessions REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER sleep_sessions_updated AFTER UPDATE ON sleep_sessions REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER sleep_sessions_deleted AFTER DELETE ON sleep_sessions REFERENCING OLD TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER dose_events_inserted AFTER INSERT ON dose_events REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER dose_events_updated AFTER UPDATE ON dose_events REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER dose_events_deleted AFTER DELETE ON dose_events REFERENCING OLD TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER sleep_events_inserted AFTER INSERT ON sleep_events REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER sleep_events_updated AFTER UPDATE ON sleep_events REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER sleep_events_deleted AFTER DELETE ON sleep_events REFERENCING OLD TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER morning_checkins_inserted AFTER INSERT ON morning_checkins REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER morning_checkins_updated AFTER UPDATE ON morning_checkins REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        CREATE TRIGGER morning_checkins_deleted AFTER DELETE ON morning_checkins REFERENCING OLD TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION dosetap_night_changed();
        """

    /// People of a shared store are named by an e-mail address (lower case, one person each) and may have a name. The
    /// one person of a store made before keeps neither until the operator gives them.
    static let v4People = """
        ALTER TABLE people ADD COLUMN email text CHECK (email IS NULL OR (char_length(email) BETWEEN 3 AND 254 AND email = lower(email)));
        ALTER TABLE people ADD COLUMN name text CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 100);
        CREATE UNIQUE INDEX people_by_email ON people (email) WHERE email IS NOT NULL;
        """

    /// One-time sign-in links (only their hashes: a link is a credential until used or expired) and the failed attempts
    /// of each address, counted here so every instance limits them alike.
    static let v5SignIn = """
        CREATE TABLE sign_in_links (
            token_hash text PRIMARY KEY CHECK (length(token_hash) = 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            used_at timestamptz
        );
        CREATE INDEX sign_in_links_by_person ON sign_in_links (person_id);
        CREATE TABLE sign_in_failures (
            address text NOT NULL CHECK (char_length(address) BETWEEN 1 AND 100),
            at timestamptz NOT NULL
        );
        CREATE INDEX sign_in_failures_by_address ON sign_in_failures (address, at);
        """

    /// A value a person chooses is unique only among their own rows: a client's event id (the API's `id`) and a push
    /// endpoint. Unique across people, a second person's same id would fail where the first's exists, telling them it
    /// does (SPEC §5.6: no constraint may show one person another's values).
    static let v6PersonKeys = """
        ALTER TABLE dose_events DROP CONSTRAINT dose_events_pkey;
        ALTER TABLE dose_events ADD PRIMARY KEY (person_id, id);
        ALTER TABLE sleep_events DROP CONSTRAINT sleep_events_pkey;
        ALTER TABLE sleep_events ADD PRIMARY KEY (person_id, id);
        ALTER TABLE morning_checkins DROP CONSTRAINT morning_checkins_pkey;
        ALTER TABLE morning_checkins ADD PRIMARY KEY (person_id, id);
        ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_endpoint_key;
        ALTER TABLE push_subscriptions ADD CONSTRAINT push_subscriptions_endpoint_key UNIQUE (person_id, endpoint);
        """

    /// Sharing (SPEC §5.6). An invitation is the owner's (`person_id`), for an address, one use within 7 days, kept as
    /// its token's hash; at most one is pending per owner and address. A share is what an accepted invitation made: the
    /// owner, the grantee and the grants, one row per pair, deleted to revoke. The access audit is the owner's list of
    /// who viewed, logged, acknowledged or changed a share; an actor removed later is "a person since removed" (their id
    /// is cleared, so no row of the store names them). Idempotency keys are the person's own: a caregiver's device
    /// acting for two people keeps one key space for each.
    static let v7Sharing = """
        CREATE TABLE share_invitations (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254 AND email = lower(email)),
            grants text[] NOT NULL CHECK (cardinality(grants) BETWEEN 1 AND 4 AND grants <@ ARRAY['view', 'report', 'alarms', 'log']),
            token_hash text NOT NULL UNIQUE CHECK (length(token_hash) = 64),
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'declined', 'cancelled')),
            answered_at timestamptz,
            grantee_id text REFERENCES people(id) ON DELETE CASCADE
        );
        CREATE INDEX share_invitations_by_person ON share_invitations (person_id);
        CREATE UNIQUE INDEX share_invitations_pending ON share_invitations (person_id, email) WHERE state = 'pending';
        CREATE TABLE shares (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            grantee_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE CHECK (grantee_id <> person_id),
            invitation_id text NOT NULL,
            grants text[] NOT NULL CHECK (cardinality(grants) BETWEEN 1 AND 4 AND grants <@ ARRAY['view', 'report', 'alarms', 'log']),
            created_at timestamptz NOT NULL,
            PRIMARY KEY (person_id, grantee_id)
        );
        CREATE INDEX shares_by_grantee ON shares (grantee_id);
        CREATE TABLE access_audit (
            id bigserial PRIMARY KEY,
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            actor_id text REFERENCES people(id) ON DELETE SET NULL,
            at timestamptz NOT NULL,
            action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 40),
            detail text NOT NULL DEFAULT '' CHECK (char_length(detail) <= 300)
        );
        CREATE INDEX access_audit_by_person ON access_audit (person_id, at);
        ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
        ALTER TABLE idempotency_keys ADD PRIMARY KEY (person_id, device_id, key);
        """

    /// The escalation ladder: a share with `alarms` is a rung when it has a place (`ladder_rank`, from 1) and a minute of
    /// the Dose 2 window (`ladder_minutes` after Dose 1). Revoking the share removes the rung with it.
    static let v8Ladder = """
        ALTER TABLE shares ADD COLUMN ladder_rank integer CHECK (ladder_rank BETWEEN 1 AND 5);
        ALTER TABLE shares ADD COLUMN ladder_minutes integer CHECK (ladder_minutes BETWEEN 150 AND 239);
        ALTER TABLE shares ADD CONSTRAINT shares_ladder_whole CHECK ((ladder_rank IS NULL) = (ladder_minutes IS NULL));
        ALTER TABLE shares ADD CONSTRAINT shares_ladder_alarms CHECK (ladder_rank IS NULL OR 'alarms' = ANY (grants));
        CREATE UNIQUE INDEX shares_ladder_rank ON shares (person_id, ladder_rank) WHERE ladder_rank IS NOT NULL;
        """
    /// A paired device's last use (written at most once a day) and the date chosen for it to stop working
    /// (`DeviceLifetime`), as SQLite's v11 has them; and the failed sign-ins of each person's account (a link of theirs
    /// used or expired), counted here so every instance limits them alike, the person's own rows. Devices paired before
    /// count as used at the upgrade, so an upgrade signs no one out; the owner's update reaches every person's devices
    /// with row-level security unforced for that statement, inside this migration's transaction.
    static let v10ExpiryAndLimits = """
        ALTER TABLE devices ADD COLUMN last_used_at timestamptz;
        ALTER TABLE devices ADD COLUMN expires_at timestamptz;
        ALTER TABLE devices NO FORCE ROW LEVEL SECURITY;
        UPDATE devices SET last_used_at = now() WHERE revoked_at IS NULL;
        ALTER TABLE devices FORCE ROW LEVEL SECURITY;
        CREATE TABLE sign_in_account_failures (
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            at timestamptz NOT NULL
        );
        CREATE INDEX sign_in_account_failures_by_person ON sign_in_account_failures (person_id, at);
        ALTER TABLE sign_in_account_failures ENABLE ROW LEVEL SECURITY;
        ALTER TABLE sign_in_account_failures FORCE ROW LEVEL SECURITY;
        CREATE POLICY sign_in_account_failures_owner ON sign_in_account_failures USING (person_id = current_setting('dosetap.person', true));
        """

    /// One-time pairing codes (only their hashes), so whichever instance a printed or shown link reaches pairs the
    /// browser, once. A code is its person's; its holder may read it to learn whose it is.
    static let v11PairingCodes = """
        CREATE TABLE pairing_codes (
            code_hash text PRIMARY KEY CHECK (length(code_hash) = 64),
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            expires_at timestamptz NOT NULL
        );
        CREATE INDEX pairing_codes_by_person ON pairing_codes (person_id, expires_at);
        ALTER TABLE pairing_codes ENABLE ROW LEVEL SECURITY;
        ALTER TABLE pairing_codes FORCE ROW LEVEL SECURITY;
        CREATE POLICY pairing_codes_owner ON pairing_codes USING (person_id = current_setting('dosetap.person', true));
        CREATE POLICY pairing_codes_token_holder ON pairing_codes FOR SELECT USING (code_hash = current_setting('dosetap.token', true));
        """

    /// Every occurrence of a person's reminder plan as a row keyed like its reminder log entry (night, kind, fire time), so
    /// whichever instance is alive delivers it: planned in the transaction of the action that plans it, claimed with a
    /// lease by `FOR UPDATE SKIP LOCKED`, and kept once done so a retry never rings the same occurrence twice. A job is its
    /// person's; the scheduler scope (`dosetap.scheduler`) sees every job, and nothing else of anyone's. `people.jobs_version`
    /// is the `night_version` a person's jobs were last planned at: a person whose nights changed since (an import or
    /// a command of an older version) is planned again by the next instance to look.
    static let v12ReminderJobs = """
        CREATE TABLE reminder_jobs (
            session_id text NOT NULL REFERENCES sleep_sessions(id) ON DELETE CASCADE,
            person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
            fire_at timestamptz NOT NULL,
            state text NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'missed', 'cancelled')),
            lease_owner text,
            lease_until timestamptz,
            claims integer NOT NULL DEFAULT 0,
            done_at timestamptz,
            PRIMARY KEY (session_id, kind, fire_at)
        );
        CREATE INDEX reminder_jobs_due ON reminder_jobs (fire_at) WHERE state IN ('pending', 'sending');
        CREATE INDEX reminder_jobs_by_person ON reminder_jobs (person_id, state);
        ALTER TABLE reminder_jobs ENABLE ROW LEVEL SECURITY;
        ALTER TABLE reminder_jobs FORCE ROW LEVEL SECURITY;
        CREATE POLICY reminder_jobs_owner ON reminder_jobs USING (person_id = current_setting('dosetap.person', true));
        CREATE POLICY reminder_jobs_scheduler ON reminder_jobs USING (current_setting('dosetap.scheduler', true) = 'on');
        ALTER TABLE people ADD COLUMN jobs_version bigint;
        """

    /// What several instances of a shared store need beside the reminder jobs (issue 36).
    /// - `request_windows`: each paired device's window of requests, counted in the database so every instance counts
    ///   the same minute; a device's window goes with the device. Unlogged: a counter needs no crash safety, and its
    ///   writes then cost no WAL, so the request it admits waits for no flush. A crash empties it, which only forgives a
    ///   minute.
    /// - The scheduler may read `shares` and `inventory_events`, to find the few people whose escalation ladder can be
    ///   due and the people who keep a supply (the only ones a refill reminder can be due for), instead of reading
    ///   everyone's records; and jobs are found by time, to purge those done.
    static let v13SharedUpkeep = """
        CREATE UNLOGGED TABLE request_windows (
            person_id text NOT NULL,
            device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            window_start timestamptz NOT NULL,
            requests integer NOT NULL CHECK (requests > 0),
            PRIMARY KEY (person_id, device_id)
        );
        ALTER TABLE request_windows ENABLE ROW LEVEL SECURITY;
        ALTER TABLE request_windows FORCE ROW LEVEL SECURITY;
        CREATE POLICY request_windows_owner ON request_windows USING (person_id = current_setting('dosetap.person', true));
        CREATE POLICY shares_scheduler ON shares FOR SELECT USING (current_setting('dosetap.scheduler', true) = 'on');
        CREATE POLICY inventory_events_scheduler ON inventory_events FOR SELECT USING (current_setting('dosetap.scheduler', true) = 'on');
        CREATE INDEX reminder_jobs_by_time ON reminder_jobs (fire_at);
        """

    /// Each night keeps the regimen it was taken under (issue 37): SQLite's v12 fill, for every person. The schema's owner
    /// is subject to the row policies, so they are set aside for the one statement and restored in the same transaction.
    static let v14NightRegimens = """
        ALTER TABLE dose_events NO FORCE ROW LEVEL SECURITY;
        ALTER TABLE settings NO FORCE ROW LEVEL SECURITY;
        \(NightRegimenFill.sql(.postgres))
        ALTER TABLE dose_events FORCE ROW LEVEL SECURITY;
        ALTER TABLE settings FORCE ROW LEVEL SECURITY;
        """

    /// A dose recorded as taken past the night's limits is audited (D20, issue 54). The new check admits every old row.
    static let v15TakenAnywayAudit = """
        ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
        ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN ('undo', 'superseded', 'delete_session', 'setting',
            'edit_event', 'delete_event', 'edit_checkin', 'replace_presleep', 'edit_medication', 'delete_medication', 'import',
            'setup', 'refill_logged', 'inventory_adjustment', 'delete_inventory', 'taken_anyway'));
        """

    /// The tables whose rows carry their person in `person_id`, and whose policy is that person alone.
    static let personTables = [
        "settings", "sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "idempotency_keys", "audit_log", "pre_sleep_logs",
        "medication_events", "devices", "push_subscriptions", "alarm_deliveries", "setup_runs", "notices_shown", "inventory_events",
        "refill_reminders", "wearable_sleep", "wearable_vitals", "wearable_summaries", "sign_in_links", "share_invitations", "access_audit",
    ]
    /// The tables whose rows belong to a night, and so to the night's person.
    static let nightTables = ["night_summaries", "reminder_log", "alarm_acknowledgements"]

    /// Row-level security on every table that holds a person's rows (SPEC §5.6), forced on the tables' owner too, so a
    /// query that forgot its `person_id` condition finds no one else's row whoever runs it (a superuser, or a role with
    /// BYPASSRLS, is the one exception PostgreSQL makes, and `dosetap store grant` refuses to serve as one).
    ///
    /// A transaction names its person with `SET LOCAL dosetap.person` (`PostgresStore.transaction`); unset, it sees no
    /// one's rows. A shares row is seen by both of its people. A few rows may also be read by whoever holds their key, to
    /// learn whose they are: a device or sign-in link by its token's hash (`dosetap.token`), an invitation by its token's
    /// hash (and answered by it), a night by its id (`dosetap.night`, from an action link, whose signature is then checked
    /// with that person's key). An invitation is also seen by the person it was made for, who may delete it. The
    /// directory of people (`people`) and the service's own tables (keys, runs, failed sign-ins by address) hold no one's
    /// records and have none.
    static let v9RowSecurity: String = {
        let person = "current_setting('dosetap.person', true)"
        let token = "current_setting('dosetap.token', true)"
        var sql: [String] = []
        func secure(_ table: String, _ condition: String) {
            sql.append("ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY")
            sql.append("ALTER TABLE \(table) FORCE ROW LEVEL SECURITY")
            sql.append("CREATE POLICY \(table)_owner ON \(table) USING (\(condition))")
        }
        for table in personTables { secure(table, "person_id = \(person)") }
        secure("shares", "person_id = \(person) OR grantee_id = \(person)")
        for table in nightTables { secure(table, "EXISTS (SELECT 1 FROM sleep_sessions AS s WHERE s.id = session_id)") }
        for table in ["devices", "sign_in_links", "share_invitations"] {
            sql.append("CREATE POLICY \(table)_token_holder ON \(table) FOR SELECT USING (token_hash = \(token))")
        }
        sql.append("CREATE POLICY share_invitations_answer ON share_invitations FOR UPDATE USING (token_hash = \(token))")
        let addressee = "email = (SELECT p.email FROM people AS p WHERE p.id = \(person))"
        sql.append("CREATE POLICY share_invitations_addressee ON share_invitations FOR SELECT USING (\(addressee))")
        sql.append("CREATE POLICY share_invitations_addressee_removed ON share_invitations FOR DELETE USING (\(addressee))")
        sql.append("CREATE POLICY sleep_sessions_linked ON sleep_sessions FOR SELECT USING (id = current_setting('dosetap.night', true))")
        return sql.joined(separator: ";\n") + ";\n"
    }()
}
