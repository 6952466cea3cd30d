import DoseCore
public import Foundation
import GRDB

/// First-run setup's record beside the night tables: when it was completed, and whether any dose came before it.
public protocol SetupTransaction {
    /// Whether any dose was ever recorded.
    func hasAnyDose() throws -> Bool
    /// Records a completed setup from `surface` (`web`, `cli`, `api`) under `id`.
    func insertSetupRun(id: String, surface: String, at instant: Date) throws
}

extension SQLiteNightTransaction {
    func hasAnyDose() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM dose_events)") ?? false
    }

    func insertSetupRun(id: String, surface: String, at instant: Date) throws {
        try db.execute(sql: "INSERT INTO setup_runs (id, completed_at, surface) VALUES (?, ?, ?)", arguments: [id, ISO8601.string(instant), surface])
    }
}
