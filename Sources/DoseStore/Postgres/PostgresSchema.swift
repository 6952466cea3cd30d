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
        ("v15_taken_anyway_audit", v15TakenAnywayAudit), ("v16_native_imports", v16NativeImports),
        ("v17_mail_jobs", v17MailJobs), ("v18_operators", v18Operators),
        ("v19_mailed_alerts", v19MailedAlerts), ("v20_grantee_reads", v20GranteeReads),
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
}
