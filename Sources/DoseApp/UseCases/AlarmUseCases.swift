public import DoseCore
public import DoseStore
import Foundation

/// Alarms beyond the page: Web Push subscriptions, the VAPID key, the answers to alarms ("I'm up"), and the record of
/// every delivery attempt.
public struct AlarmService: Sendable {
    let app: UseCases

    /// Saves a device's push subscription (the same endpoint again replaces it).
    public func subscribe(_ subscription: PushSubscriptionRecord, device: String) throws -> PushSubscriptionRecord {
        try app.store.ledger.repository.write { night in
            var record = subscription
            record.deviceID = device
            record.createdAt = app.clock.now
            // The same endpoint again replaces its keys, owner and role.
            if let existing = try night.pushSubscription(endpointOrID: subscription.endpoint), existing.endpoint == subscription.endpoint {
                record.id = existing.id
                try night.savePushSubscription(record, replacing: true)
                return record
            }
            try DeviceNaming.refuseSubscription(held: try night.pushSubscriptionCount(device: device))
            record.id = app.clock.makeID()
            try night.savePushSubscription(record, replacing: false)
            return record
        }
    }

    /// Removes a subscription by endpoint or id, with the name of the device that held it; `404_NOT_FOUND` when
    /// there is none.
    public func unsubscribe(_ endpointOrID: String) throws -> (subscription: PushSubscriptionRecord, deviceName: String) {
        let name = try subscriptions().first { [$0.subscription.endpoint, $0.subscription.id].contains(endpointOrID) }?.deviceName ?? ""
        guard let removed = try remove(endpointOrID) else {
            throw DoseError.notFound(what: "A push subscription with that endpoint")
        }
        return (removed, name)
    }

    /// Forgets a subscription the push service said is gone (404 or 410).
    public func forget(endpoint: String) throws {
        _ = try remove(endpoint)
    }

    /// Removes the subscription with this endpoint or id; nil when there is none.
    private func remove(_ endpointOrID: String) throws -> PushSubscriptionRecord? {
        try app.store.ledger.repository.write { night in
            guard let found = try night.pushSubscription(endpointOrID: endpointOrID) else { return nil }
            try night.deletePushSubscription(id: found.id)
            return found
        }
    }

    /// The subscriptions of paired devices, with their device names.
    public func subscriptions(role: PushRole? = nil) throws -> [(subscription: PushSubscriptionRecord, deviceName: String)] {
        try app.store.ledger.repository.read { night in try night.pushSubscriptions(role: role) }
    }

    /// The VAPID signer from the stored key (made on first use).
    public func vapid(subject: String = VAPID.defaultSubject) throws -> VAPID {
        try VAPID(
            privateKeyHex: try app.store.vapidPrivateKey(clock: app.clock, isValidKey: VAPID.isValidKey),
            subject: subject)
    }

    /// "I'm up" from `surface`: answers the alarms that rang since the last answer.
    public func acknowledge(from surface: AlarmSurface) throws -> AcknowledgeResponse {
        let (session, answered) = try app.store.ledger.acknowledgeAlarms(from: surface, clock: app.clock)
        return AcknowledgeResponse(at: app.clock.now, sessionID: session?.rawValue, surface: surface, answered: answered)
    }

    /// A night's alarm log.
    public func log(session: SessionID) throws -> NightAlarmLog {
        try app.store.ledger.alarmLog(night: session)
    }

    /// A night's delivery attempts, oldest first: what an instance that resumes a reminder must not send again.
    public func deliveries(night: SessionID) throws -> [AlarmDeliveryRecord] {
        try app.store.ledger.alarmLog(night: night).deliveries
    }

    /// The alarm logs of a date's nights, or of the open night; `404_NOT_FOUND` when there is none.
    public func logs(on date: SessionKey?) throws -> AlarmLogsResponse {
        if let date {
            let nights = try app.records.nights(on: date)
            guard !nights.isEmpty else { throw DoseError.notFound(what: "A night dated \(date)") }
            let zone = try app.settings.zone()
            return AlarmLogsResponse(
                nights: try nights.map { AlarmLogResponse(try log(session: $0.session.id), sessionID: $0.session.id, zone: zone) })
        }
        let snapshot = try app.night.status()
        guard let session = snapshot.session else { throw DoseError.notFound(what: "An open night (ask for a date's nights instead)") }
        return AlarmLogsResponse(nights: [AlarmLogResponse(try log(session: session.id), sessionID: session.id, zone: snapshot.timeZone)])
    }

    /// Records one delivery attempt.
    public func record(_ attempt: AlarmDeliveryRecord) throws {
        try app.store.recordDelivery(attempt, clock: app.clock)
    }

    /// The latest test alarm's attempts.
    public func lastTest() throws -> [AlarmDeliveryRecord] {
        try app.store.ledger.lastTestDeliveries()
    }
}

extension UseCases {
    /// Push subscriptions, answers to alarms and the delivery record.
    public var alarms: AlarmService { AlarmService(app: self) }
}
