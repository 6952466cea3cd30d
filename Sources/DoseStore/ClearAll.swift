import DoseCore
import GRDB

/// What Clear All Data removed, and the proof that nothing is left.
public struct ClearReport: Sendable, Hashable {
    /// Rows deleted, by table.
    public var deleted: [String: Int]
    /// Rows left afterwards, by table (all zero).
    public var remaining: [String: Int]
}

extension AppDatabase {
    /// The exact words a person must type (seed 001 §12).
    public static let clearAllPhrase = "Clear All Data — This cannot be undone."

    /// Every table holding the person's data, children first.
    static let dataTables = [
        "alarm_deliveries", "alarm_acknowledgements", "push_subscriptions", "server_runs", "server_keys", "reminder_log", "idempotency_keys",
        "devices",
        "medication_events", "pre_sleep_logs", "morning_checkins", "sleep_events",
        "dose_events", "night_summaries", "sleep_sessions", "settings", "audit_log",
        "inventory_events", "refill_reminders", "setup_runs", "notices_shown", "wearable_sleep", "wearable_vitals", "wearable_summaries",
    ]

    /// Refuses anything but the exact phrase, before anything is deleted.
    public static func checkClearAllPhrase(_ confirmation: String) throws {
        guard confirmation == clearAllPhrase else {
            throw DoseError.invalidInput(
                field: "confirm", problem: "the confirmation phrase does not match", allowed: "exactly \"\(clearAllPhrase)\"")
        }
    }

    /// Deletes everything in one transaction, then checkpoints and vacuums so no trace stays in the files,
    /// and verifies the tables are empty (SPEC §5.2, seed 001 §8).
    public func clearAll(confirmation: String) throws -> ClearReport {
        try Self.checkClearAllPhrase(confirmation)
        let deleted = try write { db in
            var counts: [String: Int] = [:]
            for table in Self.dataTables {
                try db.execute(sql: "DELETE FROM \(table)")
                counts[table] = db.changesCount
            }
            return counts
        }
        try scrubFiles()
        let remaining = try read { db in
            try Dictionary(uniqueKeysWithValues: Self.dataTables.map { ($0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? 0) })
        }
        return ClearReport(deleted: deleted, remaining: remaining)
    }

    /// Rewrites the database files so deleted rows leave no trace: the WAL is checkpointed into the database and
    /// truncated, and VACUUM rebuilds the database without its free pages (where deleted content would linger).
    public func scrubFiles() throws {
        do {
            try writer.writeWithoutTransaction { db in
                if path != nil { try db.checkpoint(.truncate) }
                try db.execute(sql: "VACUUM")
                if path != nil { try db.checkpoint(.truncate) }
            }
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }
}
