import DoseCore
public import DoseStore
public import Foundation

/// Paired devices: pairing makes a token (shown once, stored only as its hash), and devices are listed, renamed and
/// revoked. `dosetap device` and the web pairing both pair through here.
public struct DeviceService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The devices at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// Pairs a device under `name`; returns it and its token, which is never shown again. With `uniqued`, a taken
    /// name gets the first free suffix (`name 2`, …) instead of being refused.
    public func pair(name: String, uniqued: Bool = false) throws -> (device: DeviceRecord, token: String) {
        let store = DeviceStore(database)
        let token = DeviceTokens.generate(clock.random)
        let name = uniqued ? try store.unusedName(name) : name
        return (try store.add(name: name, tokenHash: DeviceTokens.hash(token), clock: clock), token)
    }

    /// Every device, revoked ones included.
    public func all() throws -> [DeviceRecord] {
        try DeviceStore(database).all()
    }

    /// The devices that may call the API.
    public func active() throws -> [DeviceRecord] {
        try DeviceStore(database).active()
    }

    /// Renames a paired device.
    public func rename(_ id: String, to name: String) throws -> DeviceRecord {
        try DeviceStore(database).rename(id, to: name)
    }

    /// Revokes a device by id or name; its token stops working at once.
    public func revoke(_ idOrName: String) throws -> DeviceRecord {
        try DeviceStore(database).revoke(idOrName, clock: clock)
    }

    /// The stored answer to a device's idempotency key, if any.
    public func storedResponse(device: String, key: String) throws -> StoredResponse? {
        try DeviceStore(database).storedResponse(device: device, key: key)
    }

    /// Stores the answer to a request made with an idempotency key.
    public func storeResponse(device: String, key: String, _ response: StoredResponse) throws {
        try DeviceStore(database).storeResponse(device: device, key: key, response, clock: clock)
    }

    /// The signer of reminder action links and page CSRF tokens (its secret is made on first use).
    public func linkSecret() throws -> String {
        try ServerKeys(database).actionLinkSecret(clock: clock)
    }
}
