import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import PostgresNIO

@testable import DoseStore

/// The explorer's steps once more on PostgreSQL. Each step runs on a store emptied for it, brought to the node's state
/// by the same steps through the same surfaces, and must do what it did on SQLite: accepted there, accepted here with
/// the same night's rows (so every invariant checked on SQLite holds here too); refused there, refused here with the
/// same code, every row of the person as it was.
final class PostgresReplay: @unchecked Sendable {
    /// A schema of the replay's own, migrated once and emptied before each step.
    let location: PostgresLocation
    private var tables: [String] = []

    init(url: String) throws {
        var location = try PostgresLocation(url: url)
        location.schema = "explore_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        self.location = location
        let store = try PostgresStore.open(location)
        defer { store.close() }
        tables = try store.transaction(readOnly: true) { session in
            try session.rows(
                """
                SELECT table_name::text FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT IN ('dosetap_migrations', 'people')
                ORDER BY 1
                """
            ).map { try $0.decode(String.self) }
        }
    }

    deinit {
        guard let store = try? PostgresStore.open(location) else { return }
        _ = try? store.transaction { session in try session.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA \(location.schema!) CASCADE")) }
        store.close()
    }

    /// What differs from SQLite, in words, or nil.
    func check(
        _ step: ExploreStep, at instant: Date, path: [(step: ExploreStep, at: Date)], start: NightExplorer.Start, sqlite: ExploreWorld.Result,
        rowsAfter: [String]
    ) throws -> String? {
        // A new store object each time, so nothing it keeps in memory (the open night, the group commit) outlives a step.
        let store = try PostgresStore.open(location)
        defer { store.close() }
        // Emptied row by row with the foreign keys' triggers off (the URL's role owns the schema, as `.ci/run`'s superuser
        // does): on tables this small that is many times faster than TRUNCATE, which makes new files and waits on them.
        try store.transaction { session in
            try session.execute("SET LOCAL session_replication_role = replica")
            for table in tables { try session.execute(PostgresQuery(unsafeSQL: "DELETE FROM \"\(table)\"")) }
        }
        try store.addPerson("local")
        let time = TestClock(start.at.addingTimeInterval(-36_000), zone: NightExplorer.zone)
        let environment = AppEnvironment(
            store: .postgres(store, person: "local"), now: { [time] in time.now }, machineTimeZoneID: time.zone,
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        // The use cases of one instant, as each request or command takes them.
        var app: UseCases { environment.useCases() }
        for (key, value) in start.settings { _ = try app.settings.update(key, to: value, confirmations: [.fastTitration]) }
        for (action, confirmations, minutes) in start.before {
            time.set(start.at.addingTimeInterval(minutes * 60))
            _ = try app.night.perform(NightAction(action.kind, confirmations: confirmations), from: .cli)
        }
        time.set(max(time.now, start.at))
        for (earlier, at) in path {
            time.set(at)
            let sending = ExploreWorld.Sending(earlier, at: at)
            let result = try sending.first(to: app)
            guard case .accepted = result else { return "on PostgreSQL the path's \(earlier) was refused, as it was not on SQLite" }
            try sending.again(to: app, after: result, step: earlier)
        }
        time.set(instant)
        let before = try Self.snapshot(store)
        let sending = ExploreWorld.Sending(step, at: instant)
        let result = try sending.first(to: app)
        do {
            try sending.again(to: app, after: result, step: step)
        } catch let violation as ExploreViolation {
            return "on PostgreSQL: \(violation)"
        }
        switch (sqlite, result) {
        case (.accepted, .accepted):
            let rows = try Self.canonicalRows(store, start: start.at)
            guard rows == rowsAfter else {
                return "on PostgreSQL \(step) left other rows than on SQLite:\n  SQLite: \(rowsAfter)\n  PostgreSQL: \(rows)"
            }
        case (.refused(let expected), .refused(let error)):
            guard expected.code == error.code else { return "on PostgreSQL \(step) was refused with \(error.code), on SQLite with \(expected.code)" }
            guard try Self.snapshot(store) == before else { return "on PostgreSQL the refused \(step) (\(error.code)) changed the store" }
        case (.accepted, .refused(let error)):
            return "on PostgreSQL \(step) was refused (\(error.code)), as it was not on SQLite"
        case (.refused(let expected), .accepted):
            return "on PostgreSQL \(step) was accepted, where SQLite refused it (\(expected.code))"
        }
        return nil
    }

    /// Every row of every table of the schema the person can see, as JSON text.
    static func snapshot(_ store: PostgresStore) throws -> [String] {
        try store.transaction(readOnly: true, seeing: .person("local")) { session in
            let tables = try session.rows(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1"
            ).map { try $0.decode(String.self) }
            return try tables.flatMap { table in
                try session.rows(PostgresQuery(unsafeSQL: "SELECT to_jsonb(t)::text FROM \"\(table)\" t ORDER BY 1")).map {
                    "\(table) \(try $0.decode(String.self))"
                }
            }
        }
    }

    /// The night's record as `ExploreWorld.canonicalRows` gives it on SQLite, read with PostgreSQL's own statements.
    static func canonicalRows(_ store: PostgresStore, start: Date) throws -> [String] {
        try store.transaction(readOnly: true, seeing: .person("local")) { session in
            func offset(_ epoch: Double?) -> String {
                guard let epoch else { return "-" }
                return NumberText.plain(((epoch - start.timeIntervalSince1970) * 100).rounded() / 100)
            }
            let sessions = try session.rows("SELECT id FROM sleep_sessions ORDER BY started_at, id").map { try $0.decode(String.self) }
            func night(_ id: String) -> String { sessions.firstIndex(of: id).map { "n\($0)" } ?? "-" }
            var rows: [String] = []
            let doses = try session.rows(
                """
                SELECT session_id, event_type, extract(epoch FROM occurred_at)::float8, extract(epoch FROM recorded_at)::float8, source, metadata
                FROM dose_events ORDER BY occurred_at, recorded_at
                """)
            for row in doses {
                let (id, type, occurred, recorded, source, metadata) = try row.decode((String, String, Double, Double, String, String).self)
                rows.append("dose \(night(id)) \(type) at \(offset(occurred)) rec \(offset(recorded)) \(source) \(metadata)")
            }
            let sleep = try session.rows(
                """
                SELECT session_id, event_type, extract(epoch FROM occurred_at)::float8, extract(epoch FROM recorded_at)::float8
                FROM sleep_events ORDER BY occurred_at, recorded_at
                """)
            for row in sleep {
                let (id, type, occurred, recorded) = try row.decode((String, String, Double, Double).self)
                rows.append("sleep \(night(id)) \(type) at \(offset(occurred)) rec \(offset(recorded))")
            }
            for row in try session.rows("SELECT session_id, extract(epoch FROM occurred_at)::float8 FROM morning_checkins ORDER BY occurred_at") {
                let (id, occurred) = try row.decode((String, Double).self)
                rows.append("checkin \(night(id)) at \(offset(occurred))")
            }
            let nights = try session.rows(
                """
                SELECT id, session_date::text, extract(epoch FROM ended_at)::float8, end_reason, terminal_state
                FROM sleep_sessions ORDER BY started_at, id
                """)
            for row in nights {
                let (id, date, ended, reason, state) = try row.decode((String, String, Double?, String?, String?).self)
                rows.append("night \(night(id)) \(date) ended \(offset(ended)) \(reason ?? "-") \(state ?? "-")")
            }
            return rows
        }
    }
}
