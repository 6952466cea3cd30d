import DoseCore
import Foundation
import PostgresNIO
import Testing

@testable import DoseStore

/// The PostgreSQL server the store tests run against: `DOSETAP_TEST_POSTGRES_URL` (`.ci/run` starts a throwaway
/// cluster on loopback and sets it). Without it the PostgreSQL suites are skipped, saying so; in CI they must run.
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_URL"]

    /// Whether a server was given.
    static var isAvailable: Bool { url != nil }

    /// Why the PostgreSQL tests were skipped.
    static let skipped = "PostgreSQL tests skipped: set DOSETAP_TEST_POSTGRES_URL=postgres://USER@127.0.0.1:PORT/DATABASE (.ci/run does)"

    /// The role the stores under test connect as: owning nothing and bypassing nothing, as a served store does, so every
    /// query of every PostgreSQL test runs under row-level security (`.ci/run` creates it).
    static let servingRole = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_ROLE"] ?? "dosetap_app"

    /// A new, empty store in a schema of its own, so every test starts from nothing and tests run side by side. The
    /// schema is made and granted by the URL's role (its owner); the store returned connects as `servingRole`.
    static func freshStore() throws -> PostgresStore {
        try served(freshOwnerStore()).store
    }

    /// A new store as its owner made it, with its one person.
    static func freshOwnerStore() throws -> PostgresStore {
        guard let url else { throw DoseError.invalidInput(field: "DOSETAP_TEST_POSTGRES_URL", problem: "not set", allowed: skipped) }
        var location = try PostgresLocation(url: url)
        location.schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try PostgresStore.open(location)
        try store.addPerson("local")
        return store
    }

    /// `owner`'s store as `servingRole` sees it, once granted; the owner's store is closed.
    static func served(_ owner: PostgresStore) throws -> (store: PostgresStore, location: PostgresLocation) {
        try owner.grant(to: servingRole)
        owner.close()
        var location = owner.location
        location.username = servingRole
        location.password = nil
        return (try PostgresStore.open(location), location)
    }

    /// Every row of the night tables, as text, to prove a refusal changed nothing.
    static func snapshot(_ store: PostgresStore, of person: String = "local") throws -> String {
        try store.transaction(readOnly: true, seeing: .person(person)) { session in
            var text = ""
            for table in ["sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "night_summaries", "audit_log", "reminder_log"] {
                for row in try session.rows(PostgresQuery(unsafeSQL: "SELECT to_jsonb(t)::text FROM \(table) t ORDER BY 1")) {
                    text += "\(table): \(try row.decode(String.self))\n"
                }
            }
            return text
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only with a PostgreSQL server to run it against, and otherwise lists it as skipped, saying why.
    static var needsPostgres: Self { .enabled(if: PostgresTestDatabase.isAvailable, Comment(rawValue: PostgresTestDatabase.skipped)) }
}
