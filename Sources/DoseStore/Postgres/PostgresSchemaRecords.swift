import Foundation

/// The record tables of the PostgreSQL schema, as SQLite has them with PostgreSQL's types, and the night version that
/// tells an instance its remembered open night is still the person's (`PostgresSchema.migrations` applies them).
extension PostgresSchema {
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
}
