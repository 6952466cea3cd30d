import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import PostgresNIO

@testable import DoseStore

/// A store of one kind for a test that runs on each: an in-memory SQLite database, or a fresh schema of the PostgreSQL
/// server `DOSETAP_TEST_POSTGRES_URL` names (dropped by `close`), with one person, "local", and the use cases over it at
/// a test clock.
struct EachStore {
    /// The kinds a test runs on: SQLite always, PostgreSQL when `DOSETAP_TEST_POSTGRES_URL` names a server.
    static var kinds: [String] { ["sqlite"] + (ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_URL"] != nil ? ["postgres"] : []) }

    let store: RecordStore
    /// The clock every use case of this store reads, with its ids.
    let time: TestClock
    /// The use cases' environment over this store at `time`.
    let environment: AppEnvironment
    private let schema: String?

    /// A new, empty store of `kind`, its clock at `start`.
    init(_ kind: String, at start: Date) throws {
        if kind == "postgres", let url = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_URL"] {
            var place = try PostgresLocation(url: url)
            place.schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let postgres = try PostgresStore.open(place)
            try postgres.addPerson("local")
            store = .postgres(postgres, person: "local")
            schema = place.schema
        } else {
            store = .sqlite(try AppDatabase.inMemory())
            schema = nil
        }
        let time = TestClock(start)
        self.time = time
        environment = AppEnvironment(store: store, now: { time.now }, machineTimeZoneID: time.zone, makeID: { time.nextID() }, random: .system)
    }

    /// The use cases with the clock set to `date`.
    func app(at date: Date) -> UseCases {
        time.set(date)
        return environment.useCases()
    }

    /// The rows `query` selects, every column as text (NULL as ""; PostgreSQL's must be text already), on either store.
    func rows(_ query: String, columns: Int) throws -> [[String]] {
        switch store {
        case .sqlite(let database):
            return try database.writer.read { db in
                try Row.fetchAll(db, sql: query).map { row in
                    (0..<columns).map { column in
                        switch (row[column] as DatabaseValue).storage {
                        case .null: ""
                        case .int64(let number): String(number)
                        case .double(let number): String(number)
                        case .string(let text): text
                        case .blob(let data): data.base64EncodedString()
                        }
                    }
                }
            }
        case .postgres(let postgres, _):
            return try postgres.transaction(readOnly: true, seeing: .person("local")) { session in
                try session.rows(PostgresQuery(unsafeSQL: query)).map { row in
                    let cells = row.makeRandomAccess()
                    return try (0..<columns).map { try cells[$0].decode(String?.self) ?? "" }
                }
            }
        }
    }

    /// Drops the PostgreSQL schema, if this is one.
    func close() {
        guard case .postgres(let postgres, _) = store, let schema else { return }
        _ = try? postgres.transaction { session in try session.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")) }
        postgres.close()
    }
}
