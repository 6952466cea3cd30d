import DoseCore
import Foundation
import GRDB
import Testing

@testable import DoseStore

/// The record types and enumerations agree with the tables the migrations made, so a new action or category
/// cannot be written that the schema would refuse, nor a schema value go unnamed.
@Suite("Record types match the schema")
struct RecordTypeTests {
    /// The values a table's CHECK (`column` IN (…)) allows, read from the schema the migrations built.
    static func allowed(_ column: String, in table: String) throws -> Set<String> {
        let database = try AppDatabase.inMemory()
        let sql = try database.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) } ?? ""
        guard let range = sql.range(of: "\(column) IN (") else { return [] }
        let list = sql[range.upperBound...].prefix { $0 != ")" }
        return Set(
            list.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            })
    }

    @Test("every audit action is one the audit_log table accepts, and every accepted one is named")
    func auditActions() throws {
        #expect(Set(AuditAction.allCases.map(\.rawValue)) == (try Self.allowed("action", in: "audit_log")))
    }

    @Test(
        "the alarm tables take exactly the surfaces, channels, outcomes, audiences and roles the code names",
        arguments: [
            ("surface", "alarm_acknowledgements", AlarmSurface.allCases.map(\.rawValue)),
            ("channel", "alarm_deliveries", AlarmChannel.allCases.map(\.rawValue)),
            ("outcome", "alarm_deliveries", DeliveryOutcome.allCases.map(\.rawValue)),
            ("audience", "alarm_deliveries", [ReminderAudience.sleeper.rawValue, ReminderAudience.contact.rawValue]),
            ("role", "push_subscriptions", PushRole.allCases.map(\.rawValue)),
        ])
    func alarmValues(column: String, table: String, named: [String]) throws {
        #expect(Set(named) == (try Self.allowed(column, in: table)))
    }

    @Test("history categories are the doses, the check-in and the sleep-event categories the schema knows")
    func historyCategories() throws {
        let sleep = try Self.allowed("category", in: "sleep_events")
        #expect(sleep == Set(SleepEventCategory.allCases.map(\.rawValue)))
        #expect(Set(HistoryCategory.allCases.map(\.rawValue)) == sleep.union(["dose", "checkin"]))
        #expect(throws: DoseError.self) { try HistoryCategory.named("sleepy") }
        #expect(try HistoryCategory.named(" Sleep_Cycle ") == .sleepCycle)
    }

    @Test("instants are stored as fixed-width UTC text and read back to the millisecond")
    func storedInstants() throws {
        let database = try AppDatabase.inMemory()
        let instant = Date(timeIntervalSince1970: 1_795_323_600.123)
        let stored = try database.write { db in
            try ServerRunRecord(id: "run", startedAt: instant, lastSeenAt: instant, stoppedAt: nil).insert(db)
            return try String.fetchOne(db, sql: "SELECT started_at FROM server_runs")
        }
        #expect(stored == ISO8601.string(instant))
        let read = try database.read { db in try ServerRunRecord.fetchOne(db, key: "run") }
        #expect(read?.startedAt == ISO8601.wholeMilliseconds(instant))
    }
}
