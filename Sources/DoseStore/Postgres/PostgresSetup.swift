import DoseCore
import Foundation
import PostgresNIO

/// A person's setup record in PostgreSQL.
extension PostgresNightTransaction {
    func hasAnyDose() throws -> Bool {
        try session.rows("SELECT EXISTS (SELECT 1 FROM dose_events WHERE person_id = \(person))").first?.decode(Bool.self) ?? false
    }

    func insertSetupRun(id: String, surface: String, at instant: Date) throws {
        write(
            "INSERT INTO setup_runs (id, person_id, completed_at, surface) VALUES (\(id), \(person), \(text(instant))::timestamptz, \(surface))",
            changingNights: false)
    }
}
