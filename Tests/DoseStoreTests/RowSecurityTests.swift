import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import PostgresNIO
import Testing

@testable import DoseStore

private typealias F = StoreFixture

/// Isolation in the database, not just the handlers (SPEC §5.6): the store is served as a role that owns nothing and
/// bypasses nothing, every table holding a person's rows has row-level security forced on, and a transaction sees only
/// the person it names with SET LOCAL. Each test runs SQL that forgot its person (the mistake the policies are there to
/// catch) and checks, with the owner's superuser view beside it, that no one else's row was seen or touched.
@Suite("PostgreSQL: row-level security keeps each person's rows their own", .needsPostgres)
struct RowSecurityTests {
    /// A store of two people with a night each, a device, a sign-in link, a share and an audit entry: the owner's view
    /// (a superuser, which sees every row) and the serving role's.
    struct TwoPeople {
        let owner: PostgresStore
        let served: PostgresStore

        init() throws {
            owner = try PostgresTestDatabase.freshOwnerStore()
            let location = owner.location
            try owner.addPerson("bob")
            for person in ["local", "bob"] {
                let ledger = NightLedger(repository: PostgresNightRepository(store: owner, person: person))
                let clock = TestClock(F.dose1)
                try F.act(ledger, .dose1, at: F.dose1, clock: clock)
                try F.act(ledger, .log(event: "bathroom"), at: F.minutes(60), clock: clock)
                try F.act(ledger, .dose2, at: F.minutes(165), clock: clock)
                try F.act(ledger, .checkIn(MorningCheckIn()), at: F.minutes(490), clock: clock)
                try owner.transaction(writingFor: person) { session in
                    try session.execute(
                        """
                        INSERT INTO devices (id, person_id, name, token_hash, created_at)
                        VALUES (\("device-" + person), \(person), 'Phone', \(Self.tokenHash(person)), now())
                        """)
                    try session.execute("INSERT INTO settings (person_id, key, value, updated_at) VALUES (\(person), 'canary', \(person), now())")
                }
                try owner.issueSignInLink(person: person, tokenHash: Self.linkHash(person), at: F.dose1, expiresAt: F.minutes(24 * 60))
                try owner.recordAccess(to: person, by: nil, action: "viewed", detail: "canary of \(person)", at: F.dose1)
                let mail = MailJob(id: "mail-\(person)", recipient: "\(person)@example.org", kind: .signIn, subject: "s", text: "t", html: "h")
                _ = try owner.queueMail(mail, at: F.dose1, hourlyLimit: 5)
            }
            try owner.transaction(writingFor: "local") { session in
                try session.execute(
                    "INSERT INTO shares (person_id, grantee_id, invitation_id, grants, created_at) VALUES ('local', 'bob', 'i1', '{view}', now())")
            }
            var servedLocation = location
            servedLocation.username = PostgresTestDatabase.servingRole
            try owner.grant(to: PostgresTestDatabase.servingRole)
            served = try PostgresStore.open(servedLocation)
        }

        static func tokenHash(_ person: String) -> String { String(repeating: person == "bob" ? "b" : "a", count: 64) }
        static func linkHash(_ person: String) -> String { String(repeating: person == "bob" ? "d" : "c", count: 64) }

        func close() {
            served.close()
            owner.close()
        }
    }

    /// The tables that hold no one's rows: the directory of people and the service's own.
    static let unsecured: Set<String> = ["dosetap_migrations", "people", "server_keys", "server_runs", "sign_in_failures"]
    /// The service's own queues, secured so that only the scheduler's scope sees them: no person's, whoever is named.
    static let schedulerOnly: Set<String> = ["mail_jobs"]
    /// The operators' own audit, seen only in the operator page's scope.
    static let operatorOnly: Set<String> = ["operator_audit"]
    /// What the operator page's scope reads of people's tables (issue 56): pending invitations and the reminder jobs'
    /// times, never a record.
    static let operatorReads: Set<String> = ["share_invitations", "reminder_jobs", "mail_jobs", "operator_audit"]

    /// Every table of the store's schema, with whether row-level security is on and forced, and whether it names a person
    /// or a night.
    static func tables(_ store: PostgresStore) throws -> [(name: String, enabled: Bool, forced: Bool, owned: Bool)] {
        try store.transaction(readOnly: true) { session in
            try session.rows(
                """
                SELECT c.relname::text, c.relrowsecurity, c.relforcerowsecurity,
                    EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname IN ('person_id', 'session_id', 'grantee_id')
                        AND NOT a.attisdropped)
                FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY 1
                """
            ).map { try $0.decode((String, Bool, Bool, Bool).self) }.map { (name: $0.0, enabled: $0.1, forced: $0.2, owned: $0.3) }
        }
    }

    /// `SELECT count(*)` of `table` in a transaction that sees `scope`.
    static func count(_ table: String, in store: PostgresStore, seeing scope: RowScope, where condition: String = "true") throws -> Int {
        try store.transaction(readOnly: true, seeing: scope) { session in
            try session.rows(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \"\(table)\" WHERE \(condition)")).first
                .map { Int(try $0.decode(Int64.self)) } ?? 0
        }
    }

    @Test("every table that holds a person's or a night's rows has row-level security, forced on its owner; the rest hold no one's")
    func everyOwnedTableIsSecured() throws {
        let people = try TwoPeople()
        defer { people.close() }
        let tables = try Self.tables(people.owner)
        #expect(tables.count > 25)
        for table in tables {
            if Self.unsecured.contains(table.name) {
                #expect(!table.owned, "\(table.name) names a person or a night, so it needs row-level security")
                #expect(!table.enabled)
            } else {
                #expect(table.enabled && table.forced, "\(table.name) has no forced row-level security")
            }
        }
        let role = try people.served.connectedRole()
        #expect(role.name == PostgresTestDatabase.servingRole)
        #expect(!role.bypassesRowSecurity && !role.ownsTables, "the tests serve as a role row-level security holds for")
    }

    @Test("a transaction naming no one sees no one's rows; naming one person, exactly theirs, in every secured table")
    func seesOnlyItsPerson() throws {
        let people = try TwoPeople()
        defer { people.close() }
        var populated = 0
        for table in try Self.tables(people.owner) where !Self.unsecured.contains(table.name) {
            #expect(try Self.count(table.name, in: people.served, seeing: .nobody) == 0, "\(table.name) showed rows to no one")
            if Self.schedulerOnly.contains(table.name) {
                for person in ["local", "bob"] {
                    #expect(try Self.count(table.name, in: people.served, seeing: .person(person)) == 0, "\(table.name) showed rows to \(person)")
                }
                #expect(try Self.count(table.name, in: people.served, seeing: .scheduler) == 2, "the scheduler sees the queue")
                continue
            }
            if Self.operatorOnly.contains(table.name) {
                for scope in [RowScope.person("local"), .person("bob"), .scheduler] {
                    #expect(try Self.count(table.name, in: people.served, seeing: scope) == 0, "\(table.name) showed rows to \(scope)")
                }
                #expect(try Self.count(table.name, in: people.served, seeing: .operatorPage) == 2, "the operator sees the two links' audit")
                continue
            }
            if !Self.operatorReads.contains(table.name) {
                #expect(try Self.count(table.name, in: people.served, seeing: .operatorPage) == 0, "\(table.name) showed rows to the operator")
            }
            for person in ["local", "bob"] {
                // What is theirs, as the owner's unrestricted view counts it.
                let theirs =
                    table.name == "shares"
                    ? "person_id = '\(person)' OR grantee_id = '\(person)'"
                    : try Self.hasColumn("person_id", table.name, people.owner)
                        ? "person_id = '\(person)'" : "session_id IN (SELECT id FROM sleep_sessions WHERE person_id = '\(person)')"
                let expected = try Self.count(table.name, in: people.owner, seeing: .nobody, where: theirs)
                let seen = try Self.count(table.name, in: people.served, seeing: .person(person))
                #expect(seen == expected, "\(table.name) as \(person): saw \(seen) rows, \(expected) are theirs")
                #expect(try Self.count(table.name, in: people.served, seeing: .person(person), where: "NOT (\(theirs))") == 0)
                if expected > 0 { populated += 1 }
            }
        }
        #expect(populated >= 20, "the two people's rows fill most tables, so the counts above test something")
    }

    @Test("a grantee's scope shows the nights, doses, check-ins, summaries and two settings of who shares view with them, and nothing else")
    func granteeReads() throws {
        let people = try TwoPeople()
        defer { people.close() }
        // Alice ("local") shares view with Bob; Bob shares nothing with her.
        let reads: [String: String] = [
            "sleep_sessions": "person_id = 'local'", "dose_events": "person_id = 'local'", "morning_checkins": "person_id = 'local'",
            "night_summaries": "session_id IN (SELECT id FROM sleep_sessions WHERE person_id = 'local')",
            "settings": "person_id = 'local' AND key IN ('target_interval', 'time_zone')",
        ]
        for (table, hers) in reads {
            let expected = try Self.count(table, in: people.owner, seeing: .nobody, where: hers)
            #expect(try Self.count(table, in: people.served, seeing: .grantee("bob"), where: hers) == expected, "\(table)")
            #expect(table == "settings" || expected > 0, "\(table) holds rows of hers, so the count tests something")
            #expect(
                try Self.count(table, in: people.served, seeing: .grantee("local"), where: hers.replacingOccurrences(of: "'local'", with: "'bob'"))
                    == 0)
        }
        #expect(try Self.count("settings", in: people.served, seeing: .grantee("bob"), where: "person_id = 'local' AND key = 'canary'") == 0)
        for table in try Self.tables(people.owner) where table.owned && reads[table.name] == nil && !["shares"].contains(table.name) {
            let hers =
                try Self.hasColumn("person_id", table.name, people.owner)
                ? "person_id = 'local'" : "session_id IN (SELECT id FROM sleep_sessions WHERE person_id = 'local')"
            #expect(try Self.count(table.name, in: people.served, seeing: .grantee("bob"), where: hers) == 0, "\(table.name) showed her rows to Bob")
        }
        // Revoked, the share shows nothing at once.
        try people.owner.transaction(writingFor: "local") { session in try session.execute("DELETE FROM shares WHERE person_id = 'local'") }
        #expect(try Self.count("sleep_sessions", in: people.served, seeing: .grantee("bob"), where: "person_id = 'local'") == 0)
    }

    @Test("an UPDATE or DELETE that forgot its person touches only the person named; an INSERT for someone else is refused")
    func writesStayWithTheirPerson() throws {
        let people = try TwoPeople()
        defer { people.close() }
        let bobsBefore = try PostgresTestDatabase.snapshot(people.served, of: "bob")
        let bobsEvents = try Self.count("sleep_events", in: people.owner, seeing: .nobody, where: "person_id = 'bob'")
        try people.served.transaction(writingFor: "local") { session in
            try session.execute("UPDATE dose_events SET note = 'changed'")
            try session.execute("UPDATE settings SET value = 'changed'")
            try session.execute("DELETE FROM sleep_events")
            try session.execute("DELETE FROM reminder_log")
            try session.execute("DELETE FROM night_summaries")
        }
        #expect(try PostgresTestDatabase.snapshot(people.served, of: "bob") == bobsBefore, "Bob's night is as it was")
        let eventsLeft = try Self.count("sleep_events", in: people.owner, seeing: .nobody)
        #expect(bobsEvents > 0 && eventsLeft == bobsEvents, "only Alice's were deleted")
        #expect(try Self.count("settings", in: people.owner, seeing: .nobody, where: "value = 'bob'") == 1)
        #expect(try Self.count("dose_events", in: people.owner, seeing: .nobody, where: "note = 'changed' AND person_id = 'local'") == 2)
        let bobsNight = try Self.count("sleep_sessions", in: people.owner, seeing: .nobody, where: "person_id = 'bob'")
        #expect(bobsNight == 1)
        let night = Self.literal(try Self.bobsNight(people.owner))
        for statement in [
            "INSERT INTO settings (person_id, key, value, updated_at) VALUES ('bob', 'planted', 'x', now())",
            "INSERT INTO reminder_log (session_id, kind, fire_at, outcome, recorded_at) VALUES (\(night), 'planted', now(), 'fired', now())",
            "UPDATE settings SET person_id = 'bob' WHERE key = 'canary'",
        ] {
            let refusal = Self.failure {
                try people.served.transaction(writingFor: "local") { session in try session.execute(PostgresQuery(unsafeSQL: statement)) }
            }
            #expect("\(refusal)".contains("row-level security"), "\(statement): \(refusal)")
        }
        #expect(try Self.count("reminder_log", in: people.owner, seeing: .nobody, where: "kind = 'planted'") == 0)
        #expect(try Self.count("settings", in: people.owner, seeing: .nobody, where: "key = 'planted'") == 0)
    }

    @Test("the person is set per transaction: a kept connection carries no one's scope to its next transaction")
    func scopeEndsWithTheTransaction() throws {
        let people = try TwoPeople()
        defer { people.close() }
        for _ in 0..<3 {
            #expect(try Self.count("dose_events", in: people.served, seeing: .person("local")) == 2)
            let after = try people.served.transaction(readOnly: true) { session in
                try session.rows("SELECT current_setting('dosetap.person', true), (SELECT count(*)::bigint FROM dose_events)").first?
                    .decode((String, Int64).self)
            }
            #expect(after?.0 == "" && after?.1 == 0, "\(String(describing: after))")
        }
        // A write that fails is rolled back with its scope.
        _ = Self.failure {
            try people.served.transaction(writingFor: "local") { session in try session.execute("SELECT 1/0") }
        }
        #expect(try Self.count("dose_events", in: people.served, seeing: .nobody) == 0)
    }

    @Test("a token's holder reads that one row to learn whose it is; a night's id names only that night")
    func tokenHoldersSeeOneRow() throws {
        let people = try TwoPeople()
        defer { people.close() }
        let bobs = try people.served.activeDevice(tokenHash: TwoPeople.tokenHash("bob"))
        #expect(bobs?.person == "bob" && bobs?.device.tokenHash == TwoPeople.tokenHash("bob"))
        #expect(try people.served.owner(of: .signInLink(hash: TwoPeople.linkHash("local"))) == "local")
        #expect(try people.served.activeDevice(tokenHash: String(repeating: "e", count: 64)) == nil)
        #expect(try people.served.owner(of: .night(id: try Self.bobsNight(people.owner))) == "bob")
        let holder = RowScope(tokenHash: TwoPeople.tokenHash("bob"))
        #expect(try Self.count("devices", in: people.served, seeing: holder) == 1)
        #expect(try Self.count("dose_events", in: people.served, seeing: holder) == 0)
        #expect(try Self.count("sleep_sessions", in: people.served, seeing: RowScope(night: try Self.bobsNight(people.owner))) == 1)
        #expect(try Self.count("dose_events", in: people.served, seeing: RowScope(night: try Self.bobsNight(people.owner))) == 0)
        // Holding a token lets no one change the row.
        try people.served.transaction(seeing: holder) { session in try session.execute("UPDATE devices SET revoked_at = now()") }
        #expect(try Self.count("devices", in: people.owner, seeing: .nobody, where: "revoked_at IS NOT NULL") == 0)
    }

    @Test("removing a person through the serving role leaves no row of theirs, seen by the owner's unrestricted view")
    func removalLeavesNothing() throws {
        let people = try TwoPeople()
        defer { people.close() }
        let bob = try #require(try people.served.person(named: "bob"))
        let removal = try people.served.removePerson(bob, at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(removal.remaining == 0 && removal.deleted.values.reduce(0, +) > 10)
        for table in try Self.tables(people.owner) where table.owned {
            let theirs =
                try Self.hasColumn("person_id", table.name, people.owner) ? "person_id = 'bob'" : "session_id NOT IN (SELECT id FROM sleep_sessions)"
            #expect(try Self.count(table.name, in: people.owner, seeing: .nobody, where: theirs) == 0, "\(table.name) kept a row of Bob's")
        }
        #expect(try Self.count("dose_events", in: people.owner, seeing: .nobody) == 2, "Alice's doses stay")
    }

    @Test("granting is refused for a role that is missing, a superuser, or not a plain name; an ungranted role cannot migrate")
    func grantRefusals() throws {
        let owner = try PostgresTestDatabase.freshOwnerStore()
        defer { owner.close() }
        for (role, says) in [
            ("no_such_role_here", "has no role named"), (owner.location.username, "superuser"), ("x; DROP TABLE people", "plain role name"),
        ] {
            let refusal = Self.failure { try owner.grant(to: role) }
            #expect("\(refusal)".contains(says), "\(role): \(refusal)")
        }
        // The serving role opening a schema that lacks a migration cannot apply it, and is told who can.
        try owner.grant(to: PostgresTestDatabase.servingRole)
        try owner.transaction { session in try session.execute("DELETE FROM dosetap_migrations WHERE name = 'v9_row_security'") }
        var served = owner.location
        served.username = PostgresTestDatabase.servingRole
        let refusal = Self.failure { _ = try PostgresStore.open(served) }
        #expect("\(refusal)".contains("dosetap store grant \(PostgresTestDatabase.servingRole)"), "\(refusal)")
    }

    static func hasColumn(_ column: String, _ table: String, _ store: PostgresStore) throws -> Bool {
        try store.transaction(readOnly: true) { session in
            try !session.rows(
                """
                SELECT 1 FROM pg_attribute WHERE attrelid = (current_schema() || '.' || \(table))::regclass AND attname = \(column)
                    AND NOT attisdropped
                """
            ).isEmpty
        }
    }

    static func bobsNight(_ owner: PostgresStore) throws -> String {
        try owner.transaction(readOnly: true) { session in
            try #require(try session.rows("SELECT id FROM sleep_sessions WHERE person_id = 'bob'").first?.decode(String.self))
        }
    }

    /// What `body` threw, in words ("nothing" when it did not).
    static func failure(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "nothing"
        } catch { return "\(error)" }
    }

    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
