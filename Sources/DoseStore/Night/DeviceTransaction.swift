public import DoseCore
public import Foundation
import GRDB

/// Paired devices and their push subscriptions, in the same transaction as the night tables. It loads and saves;
/// DoseApp decides with DoseCore's `DeviceNaming`.
public protocol DeviceTransaction {
    /// Every device (revoked ones too, with `includingRevoked`), oldest first.
    func devices(includingRevoked: Bool) throws -> [DeviceRecord]
    /// Stores a newly paired device.
    func insertDevice(_ device: DeviceRecord) throws
    /// Renames a device.
    func renameDevice(_ id: String, to name: String) throws
    /// Marks a device revoked at `instant`.
    func revokeDevice(_ id: String, at instant: Date) throws
    /// The subscriptions of paired devices (of one role, if given), each with its device's name, oldest first.
    func pushSubscriptions(role: PushRole?) throws -> [(subscription: PushSubscriptionRecord, deviceName: String)]
    /// The subscription with this endpoint or id, whoever's device holds it.
    func pushSubscription(endpointOrID: String) throws -> PushSubscriptionRecord?
    /// How many subscriptions a device holds.
    func pushSubscriptionCount(device: String) throws -> Int
    /// Stores a subscription, or rewrites the one with its id.
    func savePushSubscription(_ subscription: PushSubscriptionRecord, replacing: Bool) throws
    /// Removes a subscription by id.
    func deletePushSubscription(id: String) throws
    /// Removes every subscription a device holds.
    func deletePushSubscriptions(device: String) throws
}

extension SQLiteNightTransaction {
    func devices(includingRevoked: Bool) throws -> [DeviceRecord] {
        var request = DeviceRecord.order(DeviceRecord.Columns.createdAt, DeviceRecord.Columns.id)
        if !includingRevoked { request = request.filter(DeviceRecord.Columns.revokedAt == nil) }
        return try request.fetchAll(db)
    }

    func insertDevice(_ device: DeviceRecord) throws { try device.insert(db) }

    func renameDevice(_ id: String, to name: String) throws {
        try db.execute(sql: "UPDATE devices SET name = ? WHERE id = ?", arguments: [name, id])
    }

    func revokeDevice(_ id: String, at instant: Date) throws {
        try db.execute(sql: "UPDATE devices SET revoked_at = ? WHERE id = ?", arguments: [ISO8601.string(instant), id])
    }

    func pushSubscriptions(role: PushRole?) throws -> [(subscription: PushSubscriptionRecord, deviceName: String)] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT push_subscriptions.*, devices.name AS device_name FROM push_subscriptions
                JOIN devices ON devices.id = push_subscriptions.device_id AND devices.revoked_at IS NULL
                WHERE ?1 IS NULL OR push_subscriptions.role = ?1
                ORDER BY push_subscriptions.created_at, push_subscriptions.id
                """, arguments: [role?.rawValue])
        return try rows.map { row in (try PushSubscriptionRecord(row: row), row["device_name"] as String) }
    }

    func pushSubscription(endpointOrID: String) throws -> PushSubscriptionRecord? {
        let columns = PushSubscriptionRecord.Columns.self
        return try PushSubscriptionRecord.filter(columns.endpoint == endpointOrID || columns.id == endpointOrID).fetchOne(db)
    }

    func pushSubscriptionCount(device: String) throws -> Int {
        try PushSubscriptionRecord.filter(PushSubscriptionRecord.Columns.deviceID == device).fetchCount(db)
    }

    func savePushSubscription(_ subscription: PushSubscriptionRecord, replacing: Bool) throws {
        if replacing { try subscription.update(db) } else { try subscription.insert(db) }
    }

    func deletePushSubscription(id: String) throws {
        try db.execute(sql: "DELETE FROM push_subscriptions WHERE id = ?", arguments: [id])
    }

    func deletePushSubscriptions(device: String) throws {
        try db.execute(sql: "DELETE FROM push_subscriptions WHERE device_id = ?", arguments: [device])
    }
}
