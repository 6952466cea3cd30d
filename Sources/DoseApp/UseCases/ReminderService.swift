public import DoseCore
public import DoseStore
public import Foundation

/// What the reminder engine needs: the reminders that came due (each logged once), the link signer, and the record
/// of server runs that explains an alarm that could not ring.
public struct ReminderService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The reminders at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// Settles the night and takes the reminders now due, each logged as fired or missed exactly once.
    public func takeDue() throws -> DueReminders {
        try NightLedger(database).takeDueReminders(clock: clock)
    }

    /// Signs the action links of the reminders.
    public func signer() throws -> ActionLinkSigner {
        ActionLinkSigner(secretHex: try ServerKeys(database).actionLinkSecret(clock: clock))
    }

    /// Records a server run's start; returns its id.
    public func serverStarted() throws -> String {
        try ServerRuns(database).started(clock: clock)
    }

    /// Records that the run is alive, or that it stopped cleanly.
    public func serverAlive(_ run: String, stopped: Bool = false) throws {
        try ServerRuns(database).alive(run, stopped: stopped, clock: clock)
    }
}
