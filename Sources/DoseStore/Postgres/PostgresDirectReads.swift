import DoseCore
public import Foundation
import PostgresNIO

extension PostgresStore {
    /// The person's paired, unrevoked devices, read in one query: the server checks them on every request, where a
    /// copy into SQLite would copy the table each time.
    public func activeDevices(of person: String) throws -> [DeviceRecord] {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows(
                "SELECT \(unescaped: PostgresNightTransaction.deviceColumns) FROM devices WHERE person_id = \(person) AND revoked_at IS NULL"
            ).map(PostgresNightTransaction.device(from:))
        }
    }

    /// The unrevoked device whose token hashes to `tokenHash`, and whose it is, in one query by the token's unique index
    /// (row-level security opens only that row): what names the person of a request and authenticates it at once.
    public func activeDevice(tokenHash: String) throws -> (person: String, device: DeviceRecord)? {
        try transaction(readOnly: true, seeing: RowScope(tokenHash: tokenHash)) { session in
            guard
                let row = try session.rows(
                    """
                    SELECT person_id, \(unescaped: PostgresNightTransaction.deviceColumns) FROM devices
                    WHERE token_hash = \(tokenHash) AND revoked_at IS NULL
                    """
                ).first
            else { return nil }
            let (person, id, name, hash, created, revoked, used, expires) = try row.decode(
                (String, String, String, String, String, String?, String?, String?).self)
            return (person, PostgresNightTransaction.device((id, name, hash, created, revoked, used, expires)))
        }
    }

    /// Records that a request used `person`'s device `id` at `now` (at most once a day: `DeviceLifetime`), in one
    /// statement, where a copy into SQLite would copy the table.
    public func recordDeviceUse(_ id: String, of person: String, at now: Date) throws {
        try transaction(seeing: .person(person)) { session in
            try session.execute("UPDATE devices SET last_used_at = \(ISO8601.string(now))::timestamptz WHERE person_id = \(person) AND id = \(id)")
        }
    }
}

extension PostgresStore {
    /// Whether `person` completed first-run setup (asked after every night command, so read in one query).
    public func setupComplete(of person: String) throws -> Bool {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows("SELECT EXISTS (SELECT 1 FROM setup_runs WHERE person_id = \(person))").first?.decode(Bool.self) ?? false
        }
    }

    /// True the first time `notice` is asked for on `person`'s behalf, false ever after: one insert that keeps the first.
    public func firstShowing(of notice: String, to person: String, at now: Date) throws -> Bool {
        try transaction(seeing: .person(person)) { session in
            !(try session.rows(
                """
                INSERT INTO notices_shown (person_id, name, shown_at) VALUES (\(person), \(notice), \(ISO8601.string(now))::timestamptz)
                ON CONFLICT DO NOTHING RETURNING 1
                """
            ).isEmpty)
        }
    }
}
