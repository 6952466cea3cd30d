public import DoseCore
public import DoseStore
public import Foundation

/// Paired devices: pairing makes a token (shown once, stored only as its hash), and devices are listed, renamed and
/// revoked. `dosetap device` and the web pairing both pair through here.
public struct DeviceService: Sendable {
    let app: UseCases

    /// The first device of an account that is being made, named `name`, and its token: not stored here, but by the
    /// transaction that makes the account (`PostgresStore.join`, `signUp`), so there is no device without its person.
    func firstOfNewAccount(named name: String) throws -> (device: DeviceRecord, token: String) {
        let token = DeviceTokens.generate(app.clock.random)
        let device = DeviceRecord(
            id: app.clock.makeID(), name: try DeviceNaming.validated(name), tokenHash: DeviceTokens.hash(token), createdAt: app.clock.now,
            revokedAt: nil, expiresAt: try DeviceLifetime.chosenExpiry(days: nil, from: app.clock.now))
        return (device, token)
    }

    /// Pairs a device under `name`; returns it and its token, which is never shown again. With `uniqued`, a taken
    /// name gets the first free suffix (`name 2`, …) instead of being refused. With `expiresInDays` (a script's token)
    /// it stops working that many days from now; otherwise only once unused for `DeviceLifetime.idleLimit`.
    public func pair(name: String, uniqued: Bool = false, expiresInDays: Int? = nil) throws -> (device: DeviceRecord, token: String) {
        let expiresAt = try DeviceLifetime.chosenExpiry(days: expiresInDays, from: app.clock.now)
        let token = DeviceTokens.generate(app.clock.random)
        let device = try app.store.ledger.repository.write { night in
            let paired = Set(try night.devices(includingRevoked: false).map(\.name))
            let name = try DeviceNaming.validated(uniqued ? DeviceNaming.unused(name, pairedNames: paired) : name)
            try DeviceNaming.refuseTaken(name, pairedNames: paired)
            let device = DeviceRecord(
                id: app.clock.makeID(), name: name, tokenHash: DeviceTokens.hash(token), createdAt: app.clock.now, revokedAt: nil,
                expiresAt: expiresAt)
            try night.insertDevice(device)
            return device
        }
        return (device, token)
    }

    /// Whether `device`, which a request's token matched, may be used now (`DeviceLifetime`): false once it expired,
    /// except while the person's night is open, when it works until the night ends. A device in use has its use
    /// recorded once a day, which keeps it from expiring; a use after its expiry records nothing, so it still expires
    /// when that night ends.
    public func admit(_ device: DeviceRecord) -> Bool {
        let now = app.clock.now
        // Read only for an expired device. Unknown (the night cannot be read) counts as open: an expiry must never lock
        // anyone out mid-night.
        switch DeviceLifetime.state(
            createdAt: device.createdAt, lastUsedAt: device.lastUsedAt, expiresAt: device.expiresAt, revokedAt: device.revokedAt, now: now,
            nightOpen: (try? app.store.ledger.status(clock: app.clock).session != nil) ?? true)
        {
        case .revoked, .expired: return false
        case .expiryDeferred: return true
        case .usable:
            // Bookkeeping: a use that cannot be written now (the writer busy) is written by a later request, never
            // refusing this one.
            if DeviceLifetime.shouldRecordUse(lastUsedAt: device.lastUsedAt, now: now) { try? app.store.recordDeviceUse(device.id, at: now) }
            return true
        }
    }

    /// Every device, revoked ones included.
    public func all() throws -> [DeviceRecord] {
        try app.store.ledger.repository.read { night in try night.devices(includingRevoked: true) }
    }

    /// The unrevoked device a request's token belongs to, found by the token's hash; nil for an unknown token.
    public func authenticated(tokenHash: String) throws -> DeviceRecord? {
        try app.store.activeDevice(tokenHash: tokenHash)
    }

    /// The devices that may call the API.
    public func active() throws -> [DeviceRecord] {
        try app.store.activeDevices()
    }

    /// Renames a paired device.
    public func rename(_ id: String, to name: String) throws -> DeviceRecord {
        let name = try DeviceNaming.validated(name)
        return try app.store.ledger.repository.write { night in
            let paired = try night.devices(includingRevoked: false)
            guard var device = paired.first(where: { $0.id == id }) else { throw DoseError.notFound(what: "A paired device '\(id)'") }
            try DeviceNaming.refuseTaken(name, pairedNames: Set(paired.filter { $0.id != id }.map(\.name)))
            try night.renameDevice(id, to: name)
            device.name = name
            return device
        }
    }

    /// Revokes a device by id or name; its token stops working at once.
    public func revoke(_ idOrName: String) throws -> DeviceRecord {
        try app.store.ledger.repository.write { night in
            let paired = try night.devices(includingRevoked: false)
            guard var device = paired.first(where: { $0.id == idOrName }) ?? paired.first(where: { $0.name == idOrName }) else {
                throw DoseError.notFound(what: "A paired device '\(idOrName)'")
            }
            try night.revokeDevice(device.id, at: app.clock.now)
            // An unpaired phone gets no more alarms, and no more action links.
            try night.deletePushSubscriptions(device: device.id)
            device.revokedAt = app.clock.now
            return device
        }
    }

    /// Whether the device is paired and not revoked (a stream or a reminder link issued to it still works).
    public func isActive(_ id: String) throws -> Bool {
        try app.store.activeDevices().contains { $0.id == id }
    }

    /// The stored answer to a device's idempotency key, if any.
    public func storedResponse(device: String, key: String) throws -> StoredResponse? {
        try app.store.ledger.repository.read { night in try night.storedResponse(device: device, key: key) }
    }

    /// Stores the answer to a request made with an idempotency key.
    public func storeResponse(device: String, key: String, _ response: StoredResponse) throws {
        try app.store.ledger.repository.write { night in
            try night.forgetStoredResponses(before: app.clock.now.addingTimeInterval(-DeviceStore.idempotencyRetention))
            // A request with the same key that committed first keeps its answer: the first answer is the answer.
            if try night.storedResponse(device: device, key: key) == nil {
                try night.storeResponse(response, device: device, key: key, at: app.clock.now)
            }
        }
    }

    /// The signer of reminder action links and page CSRF tokens (its secret is made on first use).
    public func linkSecret() throws -> String {
        try app.store.actionLinkSecret(clock: app.clock)
    }
}
