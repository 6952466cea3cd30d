public import DoseCore
public import Foundation
import PostgresNIO

/// A person of a shared PostgreSQL store (SPEC §5.6): the id every row of theirs carries, and the e-mail address and
/// name the operator gave. A store made before people had addresses holds one person without either.
public struct PersonRecord: Sendable, Equatable {
    public var id: String
    /// Lower case; nil for the one person of a store made before `person add`.
    public var email: String?
    public var name: String?
    public var createdAt: Date

    /// How a message names them: the address, else the name, else the id.
    public var shownName: String { email ?? name ?? id }
    /// How a page introduces them: "Alice (alice@example.org)", or the shown name alone.
    public var longName: String { name.map { email == nil ? $0 : "\($0) (\(shownName))" } ?? shownName }
}

/// What removing a person did: the rows deleted, table by table, and what a check found of theirs afterwards.
public struct PersonRemoval: Sendable, Equatable {
    public var person: PersonRecord
    /// Rows deleted in each table that had any.
    public var deleted: [String: Int]
    /// Rows still carrying their id in any table after the removal: zero, or the removal was rolled back.
    public var remaining: Int
}

extension PostgresStore {
    /// Every person, oldest first.
    public func people() throws -> [PersonRecord] {
        try transaction(readOnly: true) { session in
            try session.rows("SELECT id, email, name, created_at FROM people ORDER BY created_at, id").map(Self.person)
        }
    }

    /// How many people the store holds.
    public func peopleCount() throws -> Int {
        try withConnection { session in try session.rows("SELECT count(*) FROM people").first?.decode(Int.self) ?? 0 }
    }

    /// The person an e-mail address or an id names (an address in any case), or nil.
    public func person(named text: String) throws -> PersonRecord? {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        return try transaction(readOnly: true) { session in
            try session.rows("SELECT id, email, name, created_at FROM people WHERE email = \(lowered) OR id = \(text) LIMIT 1").map(Self.person)
                .first
        }
    }

    /// Adds a person with the id `id`. The operator is told when the address already has a person; nothing is written.
    public func addPerson(id: String, email: EmailAddress, name: String?, at now: Date, by actor: OperatorActor = .terminal) throws
        -> PersonRecord
    {
        try transaction { session in
            let taken = try session.rows("SELECT 1 FROM people WHERE email = \(email.text)")
            guard taken.isEmpty else {
                throw DoseError.invalidInput(
                    field: "email", problem: "\(email) already has a person in this store", allowed: "an address no person here has yet")
            }
            try session.execute("INSERT INTO people (id, email, name, created_at) VALUES (\(id), \(email.text), \(name), \(now))")
            let person = PersonRecord(id: id, email: email.text, name: name, createdAt: now)
            try Self.audit(session, by: actor, "added", person.longName, at: now)
            return person
        }
    }

    /// Gives the person `id` the address `email`, which no one else here may have; nothing is written on a refusal.
    public func setEmail(of id: String, to email: EmailAddress) throws -> PersonRecord {
        try transaction { session in
            let holders = try session.rows("SELECT id FROM people WHERE email = \(email.text)").map { try $0.decode(String.self) }
            guard holders.allSatisfy({ $0 == id }) else {
                throw DoseError.invalidInput(
                    field: "email", problem: "\(email) already has a person in this store", allowed: "an address no person here has yet")
            }
            guard let row = try session.rows("UPDATE people SET email = \(email.text) WHERE id = \(id) RETURNING id, email, name, created_at").first
            else {
                throw DoseError.invalidInput(
                    field: "person", problem: "this store has no person '\(id.prefix(100))'", allowed: "a person `dosetap person list` shows")
            }
            return try Self.person(row)
        }
    }

    /// Removes a person and every row of theirs, in one transaction: the rows go with the person (`ON DELETE CASCADE` on
    /// every table that has `person_id`, and from their nights on every table of a night), and a count of every such
    /// table afterwards must find none, or nothing is removed.
    public func removePerson(_ person: PersonRecord, by actor: OperatorActor = .terminal, at now: Date) throws -> PersonRemoval {
        try transaction(writingFor: person.id) { session in
            let tables = try Self.ownedTables(session)
            let nights = try session.rows("SELECT id FROM sleep_sessions WHERE person_id = \(person.id)").map { try $0.decode(String.self) }
            func counts() throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for table in tables {
                    let count = try Self.count(in: table, person: person.id, nights: nights, session)
                    if count > 0 { counts[table.name] = count }
                }
                return counts
            }
            let deleted = try counts()
            // Invitations others made for their address name them too; none could be accepted once they are gone.
            if let email = person.email { try session.execute("DELETE FROM share_invitations WHERE email = \(email)") }
            try session.execute("DELETE FROM people WHERE id = \(person.id)")
            let remaining = try counts().values.reduce(0, +)
            guard remaining == 0 else {
                throw PostgresFailure(state: "DT002", message: "\(remaining) rows of the person remained after the removal; nothing was removed")
            }
            // The audit keeps that it happened, and who did it, but no longer who they were: their address and name in
            // earlier entries become the same tag as this one's.
            let tag = "a removed person [\(person.id.prefix(8))]"
            try session.execute("SELECT set_config('dosetap.operator', 'on', true)")
            for name in Set([person.longName, person.email].compactMap { $0 }).sorted(by: { $0.count > $1.count }) {
                try session.execute(
                    """
                    UPDATE operator_audit SET detail = replace(detail, \(name), \(tag)), actor = replace(actor, \(name), \(tag))
                    WHERE strpos(detail, \(name)) > 0 OR strpos(actor, \(name)) > 0
                    """)
            }
            try Self.audit(session, by: actor, "removed", "\(tag), \(deleted.values.reduce(0, +)) rows", at: now)
            return PersonRemoval(person: person, deleted: deleted, remaining: remaining)
        }
    }

    /// Rows carrying `person` in any table of the store.
    public func rowsOf(_ person: String) throws -> Int {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            let nights = try session.rows("SELECT id FROM sleep_sessions WHERE person_id = \(person)").map { try $0.decode(String.self) }
            return try Self.ownedTables(session).reduce(0) { total, table in
                total + (try Self.count(in: table, person: person, nights: nights, session))
            }
        }
    }

    /// Keeps a new sign-in link of `person` (its hash) until `expiresAt`; their older unused links stop working, so one
    /// link at most is live per person. The operators' audit records it with `audited` (who, which action, about whom), in
    /// the same commit.
    public func issueSignInLink(
        person: String, tokenHash: String, at now: Date, expiresAt: Date,
        audited: (actor: OperatorActor, action: String, detail: String) = (.terminal, "link_shown", "")
    ) throws {
        try transaction(writingFor: person) { session in
            try session.execute("DELETE FROM sign_in_links WHERE person_id = \(person) AND used_at IS NULL")
            try session.execute(
                "INSERT INTO sign_in_links (token_hash, person_id, created_at, expires_at) VALUES (\(tokenHash), \(person), \(now), \(expiresAt))")
            try Self.audit(session, by: audited.actor, audited.action, audited.detail.isEmpty ? person : audited.detail, at: now)
        }
    }

    /// Uses the sign-in link of `tokenHash` if it is `person`'s, unused and unexpired at `now`: true once, false ever after
    /// (whichever instance asks), and false for a link of anyone else, which stays unused.
    public func useSignInLink(tokenHash: String, person: String, at now: Date) throws -> Bool {
        try transaction(writingFor: person) { session in
            try !session.rows(
                """
                UPDATE sign_in_links SET used_at = \(now)
                WHERE token_hash = \(tokenHash) AND person_id = \(person) AND used_at IS NULL AND expires_at > \(now) RETURNING 1
                """
            ).isEmpty
        }
    }

    /// Failed sign-ins from `address` since `since`, on every instance; failures older than `forgetBefore` are deleted.
    /// Failures count against their address alone: a failure with someone's own link (used or expired) once counted
    /// against their account too, and replaying her used link ten times locked a person out for the window (issue 56).
    public func signInFailures(from address: String, since: Date, forgetBefore: Date) throws -> Int {
        try transaction(seeing: .nobody) { session in
            try session.execute("DELETE FROM sign_in_failures WHERE at < \(forgetBefore)")
            return try session.rows("SELECT count(*)::bigint FROM sign_in_failures WHERE address = \(address) AND at >= \(since)").first
                .map { Int(try $0.decode(Int64.self)) } ?? 0
        }
    }

    /// Counts a failed sign-in from `address`.
    public func recordSignInFailure(from address: String, at now: Date) throws {
        try transaction(seeing: .nobody) { session in
            try session.execute("INSERT INTO sign_in_failures (address, at) VALUES (\(address), \(now))")
        }
    }

    /// A table whose rows belong to a person: by `person_id` (or, for what was shared with them, `grantee_id`), or by
    /// `session_id` to one of their nights.
    struct OwnedTable {
        let name: String
        let byPerson: Bool
        var byGrantee = false
    }

    /// Every table of the store's schema with a `person_id` or a `session_id` column, read from the catalogue so a table
    /// added later is counted without being listed here.
    static func ownedTables(_ session: PostgresSession) throws -> [OwnedTable] {
        try session.rows(
            """
            SELECT c.relname::text, bool_or(a.attname = 'person_id'), bool_or(a.attname = 'grantee_id')
            FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
                AND a.attname IN ('person_id', 'session_id', 'grantee_id') AND NOT a.attisdropped
            GROUP BY 1 ORDER BY 1
            """
        ).map { row in
            let (name, byPerson, byGrantee) = try row.decode((String, Bool, Bool).self)
            return OwnedTable(name: name, byPerson: byPerson, byGrantee: byGrantee)
        }
    }

    /// The rows of `table` that are `person`'s: by their id, or by one of `nights`.
    static func count(in table: OwnedTable, person: String, nights: [String], _ session: PostgresSession) throws -> Int {
        var binds = PostgresBindings()
        // The table's name comes from the catalogue, never from input.
        let sql: String
        if table.byPerson {
            binds.append(person)
            sql = "SELECT count(*)::bigint FROM \"\(table.name)\" WHERE person_id = $1" + (table.byGrantee ? " OR grantee_id = $1" : "")
        } else {
            binds.append(nights)
            sql = "SELECT count(*)::bigint FROM \"\(table.name)\" WHERE session_id = ANY($1)"
        }
        return try session.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }

    static func person(_ row: PostgresRow) throws -> PersonRecord {
        let (id, email, name, created) = try row.decode((String, String?, String?, Date).self)
        return PersonRecord(id: id, email: email, name: name, createdAt: created)
    }
}

/// What a request can carry that names its person on a shared store, before it reaches that person's routes (a device's
/// token names its person and its device at once: `activeDevice(tokenHash:)`).
public enum PersonClue: Sendable, Equatable {
    /// A sign-in link's token hash (whether or not it can still be used: the person's own routes decide that).
    case signInLink(hash: String)
    /// A night's id, from a reminder's action link.
    case night(id: String)
}

extension PostgresStore {
    /// The id of the person `clue` belongs to, or nil when it belongs to no one here. One indexed read.
    public func owner(of clue: PersonClue) throws -> String? {
        let scope =
            switch clue {
            case .signInLink(let hash): RowScope(tokenHash: hash)
            case .night(let id): RowScope(night: id)
            }
        return try transaction(readOnly: true, seeing: scope) { session in
            let rows =
                switch clue {
                case .signInLink(let hash): try session.rows("SELECT person_id FROM sign_in_links WHERE token_hash = \(hash)")
                case .night(let id): try session.rows("SELECT person_id FROM sleep_sessions WHERE id = \(id)")
                }
            return try rows.first?.decode(String.self)
        }
    }
}
