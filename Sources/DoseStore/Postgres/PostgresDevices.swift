import DoseCore
import Foundation
import PostgresNIO

/// A person's paired devices and push subscriptions in PostgreSQL.
extension PostgresNightTransaction {
    func devices(includingRevoked: Bool) throws -> [DeviceRecord] {
        try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.deviceColumns) FROM devices WHERE person_id = $1 AND ($2 OR revoked_at IS NULL) ORDER BY created_at, id",
                binds: Self.binds(person, includingRevoked))
        ).map(Self.device(from:))
    }

    /// The columns of a `devices` row, in `device(from:)` order.
    static let deviceColumns = """
        id, name, token_hash, dosetap_instant(created_at), dosetap_instant(revoked_at), dosetap_instant(last_used_at),
        dosetap_instant(expires_at)
        """

    /// A device from a row of `deviceColumns`.
    static func device(from row: PostgresRow) throws -> DeviceRecord {
        device(try row.decode(DeviceColumns.self))
    }

    /// The decoded values of `deviceColumns`.
    typealias DeviceColumns = (String, String, String, String, String?, String?, String?)

    /// A device from the values of `deviceColumns`.
    static func device(_ columns: DeviceColumns) -> DeviceRecord {
        let (id, name, hash, created, revoked, used, expires) = columns
        return DeviceRecord(
            id: id, name: name, tokenHash: hash, createdAt: NightRecords.instant(created), revokedAt: revoked.map(NightRecords.instant),
            lastUsedAt: used.map(NightRecords.instant), expiresAt: expires.map(NightRecords.instant))
    }

    /// The person and a flag as a statement's `$1` and `$2`.
    private static func binds(_ person: String, _ flag: Bool) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(person)
        binds.append(flag)
        return binds
    }

    func insertDevice(_ device: DeviceRecord) throws {
        write(
            """
            INSERT INTO devices (id, person_id, name, token_hash, created_at, revoked_at, last_used_at, expires_at)
            VALUES (\(device.id), \(person), \(device.name), \(device.tokenHash), \(text(device.createdAt))::timestamptz,
                \(device.revokedAt.map(text))::timestamptz, \(device.lastUsedAt.map(text))::timestamptz, \(device.expiresAt.map(text))::timestamptz)
            """, changingNights: false)
    }

    func renameDevice(_ id: String, to name: String) throws {
        write("UPDATE devices SET name = \(name) WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    func revokeDevice(_ id: String, at instant: Date) throws {
        write("UPDATE devices SET revoked_at = \(text(instant))::timestamptz WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    /// The columns of a `push_subscriptions` row, in `subscription(from:)` order.
    private static let subscriptionColumns = """
        s.id, s.device_id, s.endpoint, s.p256dh, s.auth, dosetap_instant(s.expires_at), s.role, dosetap_instant(s.created_at)
        """

    func pushSubscriptions(role: PushRole?) throws -> [(subscription: PushSubscriptionRecord, deviceName: String)] {
        let binds = self.binds(person, role?.rawValue ?? "")
        return try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.subscriptionColumns), d.name FROM push_subscriptions AS s
                    JOIN devices AS d ON d.id = s.device_id AND d.revoked_at IS NULL
                    WHERE s.person_id = $1 AND ($2 = '' OR s.role = $2) ORDER BY s.created_at, s.id
                    """, binds: binds)
        ).map { row in (try Self.subscription(from: row), try row.makeRandomAccess()[8].decode(String.self)) }
    }

    func pushSubscription(endpointOrID: String) throws -> PushSubscriptionRecord? {
        try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.subscriptionColumns) FROM push_subscriptions AS s WHERE s.person_id = $1 AND (s.endpoint = $2 OR s.id = $2)
                    ORDER BY s.id LIMIT 1
                    """, binds: binds(person, endpointOrID))
        ).first.map(Self.subscription(from:))
    }

    func pushSubscriptionCount(device: String) throws -> Int {
        try session.rows("SELECT count(*)::bigint FROM push_subscriptions WHERE person_id = \(person) AND device_id = \(device)").first?
            .decode(Int.self) ?? 0
    }

    func savePushSubscription(_ subscription: PushSubscriptionRecord, replacing: Bool) throws {
        let expires = subscription.expiresAt.map(text)
        if replacing {
            write(
                """
                UPDATE push_subscriptions SET device_id = \(subscription.deviceID), endpoint = \(subscription.endpoint), p256dh = \(subscription.p256dh),
                    auth = \(subscription.auth), expires_at = \(expires)::timestamptz, role = \(subscription.role.rawValue),
                    created_at = \(text(subscription.createdAt))::timestamptz
                WHERE person_id = \(person) AND id = \(subscription.id)
                """, changingNights: false)
        } else {
            write(
                """
                INSERT INTO push_subscriptions (id, person_id, device_id, endpoint, p256dh, auth, expires_at, role, created_at)
                VALUES (\(subscription.id), \(person), \(subscription.deviceID), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth),
                    \(expires)::timestamptz, \(subscription.role.rawValue), \(text(subscription.createdAt))::timestamptz)
                """, changingNights: false)
        }
    }

    func deletePushSubscription(id: String) throws {
        write("DELETE FROM push_subscriptions WHERE person_id = \(person) AND id = \(id)", changingNights: false)
    }

    func deletePushSubscriptions(device: String) throws {
        write("DELETE FROM push_subscriptions WHERE person_id = \(person) AND device_id = \(device)", changingNights: false)
    }

    /// A subscription from a row of `subscriptionColumns`.
    private static func subscription(from row: PostgresRow) throws -> PushSubscriptionRecord {
        let cells = row.makeRandomAccess()
        return PushSubscriptionRecord(
            id: try cells[0].decode(String.self), deviceID: try cells[1].decode(String.self), endpoint: try cells[2].decode(String.self),
            p256dh: try cells[3].decode(String.self), auth: try cells[4].decode(String.self),
            expiresAt: try cells[5].decode(String?.self).map(NightRecords.instant),
            role: PushRole(rawValue: try cells[6].decode(String.self)) ?? .alarm, createdAt: NightRecords.instant(try cells[7].decode(String.self)))
    }
}
