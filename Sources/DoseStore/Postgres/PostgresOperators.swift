public import DoseCore
public import Foundation
import PostgresNIO

/// One action on the operators' audit: who did it (an operator, or the terminal), what, and to whom.
public struct OperatorAuditEntry: Sendable, Equatable {
    public var at: Date
    /// The operator's long name, or "the terminal (dosetap person …)" for a command.
    public var actor: String
    /// `added`, `link_shown`, `link_mailed`, `removed`, `operator_on`, `operator_off`.
    public var action: String
    public var detail: String

    public init(at: Date, actor: String, action: String, detail: String) {
        self.at = at
        self.actor = actor
        self.action = action
        self.detail = detail
    }
}

/// A pending invitation as the operator sees it: who invited which address, until when. Its grants stay between the two.
public struct PendingInvitation: Sendable, Equatable {
    public var from: String
    public var email: String
    public var expiresAt: Date
}

/// A running instance of the service: it wrote its heartbeat lately and has not stopped.
public struct LiveInstance: Sendable, Equatable {
    public var id: String
    public var startedAt: Date
    public var lastSeenAt: Date
}

/// What the operator's page reads in one snapshot of the store.
public struct OperatorReading: Sendable, Equatable {
    public var invitations: [PendingInvitation]
    /// Reminders logged as fired in the window, and the 50th and 99th percentile of how late they fired, in seconds.
    public var remindersFired: Int
    public var latenessP50: Double?
    public var latenessP99: Double?
    public var instances: [LiveInstance]
    public var database: DatabaseState
    public var audit: [OperatorAuditEntry]
}

/// The database as the operator sees it.
public struct DatabaseState: Sendable, Equatable {
    /// PostgreSQL's own version line.
    public var server: String
    public var bytes: Int64
    /// The last migration applied, and how many.
    public var migration: String
    public var migrations: Int
    public var people: Int
    public var connections: Int
    public var maxConnections: Int
}

/// Who did an operator's action: an operator at the page, or whoever ran a `dosetap person` command at the terminal.
public struct OperatorActor: Sendable, Equatable {
    /// The operator's person id; nil for the terminal.
    public var id: String?
    public var name: String

    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }

    /// Whoever ran a command on the machine: the database's own access is its authentication.
    public static let terminal = OperatorActor(id: nil, name: "the terminal (dosetap person)")
}

extension PostgresStore {
    /// Whether `person` is an operator.
    public func isOperator(_ person: String) throws -> Bool {
        try transaction(readOnly: true) { session in
            try session.rows("SELECT operator FROM people WHERE id = \(person)").first?.decode(Bool.self) ?? false
        }
    }

    /// The ids of the operators.
    public func operators() throws -> Set<String> {
        try transaction(readOnly: true) { session in
            Set(try session.rows("SELECT id FROM people WHERE operator").map { try $0.decode(String.self) })
        }
    }

    /// Marks `person` an operator, or not, and audits it as done by `actor`.
    public func setOperator(_ person: PersonRecord, _ on: Bool, by actor: OperatorActor, at now: Date) throws {
        try transaction(seeing: .operatorPage) { session in
            try session.execute("UPDATE people SET operator = \(on) WHERE id = \(person.id)")
            try Self.audit(session, by: actor, on ? "operator_on" : "operator_off", "\(person.longName)", at: now)
        }
    }

    /// Audits an operator's action (`OperatorAuditEntry.action`) by `actor` at `now`.
    public func recordOperatorAction(by actor: OperatorActor, _ action: String, _ detail: String, at now: Date) throws {
        try transaction(seeing: .operatorPage) { session in try Self.audit(session, by: actor, action, detail, at: now) }
    }

    /// Adds the audit entry in `session`'s transaction, whatever its scope: the entry commits with the action or not at
    /// all. It is the transaction's last statement, so the operator's scope it takes on reaches nothing else.
    static func audit(_ session: PostgresSession, by actor: OperatorActor, _ action: String, _ detail: String, at now: Date) throws {
        try session.execute("SELECT set_config('dosetap.operator', 'on', true)")
        try session.execute(
            """
            INSERT INTO operator_audit (at, operator_id, actor, action, detail)
            VALUES (\(now), \(actor.id), \(String(actor.name.prefix(300))), \(action), \(String(detail.prefix(1000))))
            """)
    }

    /// The operator's page in one snapshot at `now`: pending invitations, the lateness of reminders fired in the last
    /// `window`, the instances whose heartbeat is younger than `aliveWithin`, the database, and the newest audit entries.
    public func operatorReading(at now: Date, window: TimeInterval, aliveWithin: TimeInterval, auditLimit: Int = 100) throws -> OperatorReading {
        try transaction(readOnly: true, seeing: .operatorPage) { session in
            let invitations = try session.rows(
                """
                SELECT COALESCE(o.name || ' (' || o.email || ')', o.email, o.name, o.id), i.email, i.expires_at
                FROM share_invitations AS i JOIN people AS o ON o.id = i.person_id
                WHERE i.state = 'pending' AND i.expires_at > \(now) ORDER BY i.expires_at LIMIT 200
                """
            ).map { row in
                let (from, email, expires) = try row.decode((String, String, Date).self)
                return PendingInvitation(from: from, email: email, expiresAt: expires)
            }
            let lateness = try session.rows(
                """
                SELECT count(*)::bigint,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM fired_at - fire_at)),
                    percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM fired_at - fire_at))
                FROM reminder_jobs WHERE fired_at > \(now.addingTimeInterval(-window)) AND fired_at <= \(now)
                """
            ).first
            let (fired, p50, p99) = try lateness?.decode((Int64, Double?, Double?).self) ?? (Int64(0), nil, nil)
            let instances = try session.rows(
                """
                SELECT id, started_at, last_seen_at FROM server_runs
                WHERE stopped_at IS NULL AND last_seen_at > \(now.addingTimeInterval(-aliveWithin)) ORDER BY started_at
                """
            ).map { row in
                let (id, started, seen) = try row.decode((String, Date, Date).self)
                return LiveInstance(id: id, startedAt: started, lastSeenAt: seen)
            }
            let database = try session.rows(
                """
                SELECT version(), pg_database_size(current_database()),
                    (SELECT name FROM dosetap_migrations ORDER BY substring(name FROM '^v([0-9]+)')::int DESC NULLS LAST, applied_at DESC LIMIT 1), (SELECT count(*) FROM dosetap_migrations),
                    (SELECT count(*) FROM people), (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()),
                    current_setting('max_connections')::bigint
                """
            ).first.map { row in
                let (server, bytes, migration, migrations, people, connections, most) = try row.decode(
                    (String, Int64, String?, Int64, Int64, Int64, Int64).self)
                return DatabaseState(
                    server: server, bytes: bytes, migration: migration ?? "", migrations: Int(migrations), people: Int(people),
                    connections: Int(connections), maxConnections: Int(most))
            }
            let audit = try session.rows("SELECT at, actor, action, detail FROM operator_audit ORDER BY at DESC, id DESC LIMIT \(auditLimit)")
                .map { row in
                    let (at, actor, action, detail) = try row.decode((Date, String, String, String).self)
                    return OperatorAuditEntry(at: at, actor: actor, action: action, detail: detail)
                }
            guard let database else { throw PostgresFailure(state: "DT004", message: "the database's state could not be read") }
            return OperatorReading(
                invitations: invitations, remindersFired: Int(fired), latenessP50: p50, latenessP99: p99, instances: instances, database: database,
                audit: audit)
        }
    }
}
