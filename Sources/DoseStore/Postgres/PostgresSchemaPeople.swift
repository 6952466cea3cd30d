import Foundation

/// The people of a shared PostgreSQL store and what serves them: sign-in, keys, sharing and its ladder, row-level
/// security, pairing codes, reminder jobs and the shared upkeep (`PostgresSchema.migrations` applies them).
extension PostgresSchema {
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

    /// Imports speak PostgreSQL itself (issue 55). An import works without the person's lock, so its writes must not take
    /// the person's row (`night_version`) statement by statement and hold it to the end: inside a transaction that set
    /// `dosetap.importing`, the night triggers leave the version alone, and the import moves it once, as it commits,
    /// only if no one else's write moved it meanwhile (`PostgresStore.importing`). A wearable record's id is the digest
    /// of what it says, so two people's exports can hold the same one: its key is the person's and the id, as events'
    /// keys have been since v6.
    static let v16NativeImports = """
        CREATE OR REPLACE FUNCTION dosetap_night_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF current_setting('dosetap.importing', true) = 'on' THEN RETURN NULL; END IF; UPDATE people SET night_version =
        nextval('dosetap_night_versions') WHERE id IN (SELECT DISTINCT person_id FROM changed); RETURN NULL; END $$;
        ALTER TABLE wearable_sleep DROP CONSTRAINT wearable_sleep_pkey, ADD PRIMARY KEY (person_id, id);
        ALTER TABLE wearable_vitals DROP CONSTRAINT wearable_vitals_pkey, ADD PRIMARY KEY (person_id, id);
        ALTER TABLE wearable_summaries DROP CONSTRAINT wearable_summaries_pkey, ADD PRIMARY KEY (person_id, id);
        """

    /// Mail waiting to be sent, or sent (SPEC §5.7, issue 56): one row a message, claimed by one instance under a lease as
    /// a reminder job is, tried again with backoff, its last failure kept for the operator. A row is the service's, not a
    /// person's: it is seen only in the scheduler's scope (`dosetap.scheduler`), where mail is queued, sent and counted.
    /// A message's body carries a one-use link, so it is emptied once the message is sent or given up.
    static let v17MailJobs = """
        CREATE TABLE mail_jobs (
            id text PRIMARY KEY,
            recipient text NOT NULL CHECK (length(recipient) BETWEEN 3 AND 254),
            kind text NOT NULL CHECK (kind IN ('sign_in', 'invitation', 'alert')),
            subject text NOT NULL,
            body_text text,
            body_html text,
            state text NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_at timestamptz NOT NULL,
            lease_owner text,
            lease_until timestamptz,
            last_error text,
            created_at timestamptz NOT NULL,
            done_at timestamptz
        );
        CREATE INDEX mail_jobs_due ON mail_jobs (next_attempt_at) WHERE state = 'pending';
        CREATE INDEX mail_jobs_by_recipient ON mail_jobs (recipient, created_at);
        ALTER TABLE mail_jobs ENABLE ROW LEVEL SECURITY;
        ALTER TABLE mail_jobs FORCE ROW LEVEL SECURITY;
        CREATE POLICY mail_jobs_scheduler ON mail_jobs USING (current_setting('dosetap.scheduler', true) = 'on');
        """

    /// The operators (issue 56): people marked to read the operator's page, which sees across people only what running the
    /// service needs, in its own scope (`dosetap.operator`): pending invitations, the reminder jobs (for their lateness,
    /// from `fired_at`, set when a job's reminder is logged as fired), the mail queue, and the operators' own audit. Every
    /// operator action is audited there; an audit entry outlives its operator (`operator_id` is then cleared) and the
    /// person it was about, so a removal stays on record.
    static let v18Operators = """
        ALTER TABLE people ADD COLUMN operator boolean NOT NULL DEFAULT false;
        ALTER TABLE reminder_jobs ADD COLUMN fired_at timestamptz;
        CREATE INDEX reminder_jobs_fired ON reminder_jobs (fired_at) WHERE fired_at IS NOT NULL;
        CREATE TABLE operator_audit (
            id bigserial PRIMARY KEY,
            at timestamptz NOT NULL,
            operator_id text REFERENCES people(id) ON DELETE SET NULL,
            actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 300),
            action text NOT NULL CHECK (action IN ('added', 'link_shown', 'link_mailed', 'removed', 'operator_on', 'operator_off')),
            detail text NOT NULL CHECK (length(detail) <= 1000)
        );
        CREATE INDEX operator_audit_at ON operator_audit (at);
        ALTER TABLE operator_audit ENABLE ROW LEVEL SECURITY;
        ALTER TABLE operator_audit FORCE ROW LEVEL SECURITY;
        CREATE POLICY operator_audit_operator ON operator_audit USING (current_setting('dosetap.operator', true) = 'on');
        CREATE POLICY share_invitations_operator ON share_invitations FOR SELECT USING (current_setting('dosetap.operator', true) = 'on');
        CREATE POLICY reminder_jobs_operator ON reminder_jobs FOR SELECT USING (current_setting('dosetap.operator', true) = 'on');
        CREATE POLICY mail_jobs_operator ON mail_jobs FOR SELECT USING (current_setting('dosetap.operator', true) = 'on');
        """

    /// Ladder alerts by mail (issue 56): the grantee of an `alarms` share may also have its ladder's alerts mailed, for a
    /// phone that may be silent. Their choice, kept on the share, seen by both people as the share is.
    static let v19MailedAlerts = """
        ALTER TABLE shares ADD COLUMN mail_alerts boolean NOT NULL DEFAULT false;
        """

    /// What a grantee reads of the people who share `view` or `report` with them, for a clinic's list in one statement
    /// (issue 56): their nights, their doses, their check-ins, the nights' summaries, and the two settings that judge
    /// their nights; nothing else, and only while the share holds. A transaction names its grantee with
    /// `dosetap.grantee`, and the person it names must be the acting person (`RowScope.grantee`), so the share is theirs.
    static let v20GranteeReads = """
        CREATE POLICY sleep_sessions_grantee ON sleep_sessions FOR SELECT USING (EXISTS (SELECT 1 FROM shares AS g
            WHERE g.person_id = sleep_sessions.person_id AND g.grantee_id = current_setting('dosetap.grantee', true)
                AND g.grants && ARRAY['view', 'report']));
        CREATE POLICY dose_events_grantee ON dose_events FOR SELECT USING (EXISTS (SELECT 1 FROM shares AS g
            WHERE g.person_id = dose_events.person_id AND g.grantee_id = current_setting('dosetap.grantee', true)
                AND g.grants && ARRAY['view', 'report']));
        CREATE POLICY morning_checkins_grantee ON morning_checkins FOR SELECT USING (EXISTS (SELECT 1 FROM shares AS g
            WHERE g.person_id = morning_checkins.person_id AND g.grantee_id = current_setting('dosetap.grantee', true)
                AND g.grants && ARRAY['view', 'report']));
        CREATE POLICY night_summaries_grantee ON night_summaries FOR SELECT USING (EXISTS (SELECT 1 FROM sleep_sessions AS s
            JOIN shares AS g ON g.person_id = s.person_id
            WHERE s.id = night_summaries.session_id AND g.grantee_id = current_setting('dosetap.grantee', true)
                AND g.grants && ARRAY['view', 'report']));
        CREATE POLICY settings_grantee ON settings FOR SELECT USING (key IN ('target_interval', 'time_zone') AND EXISTS (SELECT 1 FROM shares AS g
            WHERE g.person_id = settings.person_id AND g.grantee_id = current_setting('dosetap.grantee', true)
                AND g.grants && ARRAY['view', 'report']));
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
