import DoseCore
import Foundation
import PostgresNIO

/// Who the store connects as. The service runs as a role that owns nothing and bypasses nothing (SPEC §5.6), so
/// row-level security holds for every query it makes; the schema's owner applies the migrations and gives that role
/// what it needs (`grant(to:)`).
extension PostgresStore {
    /// What PostgreSQL lets the connected role do that row-level security cannot stop.
    public struct ConnectedRole: Sendable, Equatable {
        public var name: String
        /// A superuser or a role with BYPASSRLS: every row of every person is visible to it.
        public var bypassesRowSecurity: Bool
        /// It owns the store's tables, so it could turn their row-level security off.
        public var ownsTables: Bool
    }

    /// The role this store's connections log in as, and what it could do past row-level security.
    public func connectedRole() throws -> ConnectedRole {
        guard let (role, _) = try transaction(readOnly: true, { try Self.role(nil, $0) }) else {
            throw PostgresFailure(state: "DT003", message: "the connected role is not in pg_roles")
        }
        return role
    }

    /// What role `name` (nil: the connected one) could do past row-level security on this store's tables, and the
    /// schema they are in; nil when there is no such role.
    private static func role(_ name: String?, _ session: PostgresSession) throws -> (role: ConnectedRole, schema: String)? {
        try session.rows(
            """
            SELECT rolname::text, rolsuper OR rolbypassrls, COALESCE(pg_has_role(rolname, (SELECT relowner FROM pg_class
                WHERE relname = 'dose_events' AND relnamespace = current_schema()::regnamespace), 'USAGE'), false), current_schema()::text
            FROM pg_roles WHERE rolname = COALESCE(\(name)::text, current_user::text)
            """
        ).first.map { row in
            let (name, bypasses, owns, schema) = try row.decode((String, Bool, Bool, String).self)
            return (ConnectedRole(name: name, bypassesRowSecurity: bypasses, ownsTables: owns), schema)
        }
    }

    /// Gives `role` what serving needs on this store's schema, now and for the tables later migrations add: reading and
    /// writing rows, never changing the schema. Run as the schema's owner (who applied the migrations on opening).
    /// Refused, with nothing granted, for a role that does not exist, that owns the tables, or that bypasses row-level
    /// security: the isolation between people would then rest on the handlers alone.
    public func grant(to role: String) throws {
        let allowed = "a role that exists, owns nothing here, and is neither a superuser nor BYPASSRLS (CREATE ROLE dosetap LOGIN PASSWORD '…')"
        guard PostgresLocation.isPlainName(role) else {
            throw DoseError.invalidInput(
                field: "role", problem: "'\(role.prefix(64))' is not a plain role name (a–z, 0–9, _; at most 63)", allowed: allowed)
        }
        try transaction { session in
            guard let (found, schema) = try Self.role(role, session) else {
                throw DoseError.invalidInput(field: "role", problem: "PostgreSQL has no role named \(role)", allowed: allowed)
            }
            guard !found.bypassesRowSecurity else {
                throw DoseError.invalidInput(
                    field: "role", problem: "\(role) is a superuser or has BYPASSRLS, so row-level security would not hold for it", allowed: allowed)
            }
            guard !found.ownsTables else {
                throw DoseError.invalidInput(
                    field: "role", problem: "\(role) owns the store's tables, so it could turn their row-level security off", allowed: allowed)
            }
            // Names checked above and quoted: a plain name needs no escaping.
            for statement in [
                "GRANT USAGE ON SCHEMA \"\(schema)\" TO \(role)",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \"\(schema)\" TO \(role)",
                "REVOKE INSERT, UPDATE, DELETE ON dosetap_migrations FROM \(role)",
                "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA \"\(schema)\" TO \(role)",
                "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \"\(schema)\" TO \(role)",
                "ALTER DEFAULT PRIVILEGES IN SCHEMA \"\(schema)\" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO \(role)",
                "ALTER DEFAULT PRIVILEGES IN SCHEMA \"\(schema)\" GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO \(role)",
            ] {
                try session.execute(PostgresQuery(unsafeSQL: statement))
            }
        }
    }
}
