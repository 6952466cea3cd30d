public import DoseCore
public import DoseStore
public import Foundation

/// Tonight's use cases: act, read the status, and settle what time has made due. The CLI's night commands, the web
/// page, the action links and the API all come through here.
public struct NightService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The night at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// Performs an action; a refusal throws its `DoseError` and changes nothing. `eventID` is a client's id for the
    /// recorded event; `idempotency` stores the response in the same transaction as the action.
    public func perform(_ action: NightAction, eventID: EventID? = nil, idempotency: IdempotentRequest? = nil) throws -> ActionOutcome {
        try NightLedger(database).perform(action, clock: clock, eventID: eventID, idempotency: idempotency)
    }

    /// Tonight's status, after the lifecycle has been applied.
    public func status() throws -> StatusSnapshot {
        try NightLedger(database).status(clock: clock)
    }

    /// Tonight's status and the server outages during it (what Details and `GET /v1/night` show).
    public func tonight() throws -> (snapshot: StatusSnapshot, outages: [ServerOutage]) {
        let snapshot = try status()
        return (snapshot, try ServerRuns(database).outages(during: snapshot.session, now: clock.now))
    }

    /// Applies what time has made due (expiry, close).
    public func settle() throws {
        try NightLedger(database).settle(clock: clock)
    }
}
