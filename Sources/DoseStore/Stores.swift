// The database's stores, one per concern. Each is a small value over the same database, made on demand, so a
// caller names the concern it needs: `database.nights.write(…)`, `database.devices.active()`.

// The record of past nights and what a person corrects or adds to it.
extension AppDatabase {
    /// Past nights: filtered pages, one date's record, deleting a date.
    public var history: HistoryStore { HistoryStore(database: self) }
}

// What configures the server and what it knows about itself.
extension AppDatabase {
    /// The settings.
    public var settings: SettingsStore { SettingsStore(database: self) }
    /// Paired devices and stored idempotent answers.
    public var devices: DeviceStore { DeviceStore(database: self) }
    /// Server secrets (the action-link key).
    public var serverKeys: ServerKeys { ServerKeys(database: self) }
    /// Web Push subscriptions, alarm deliveries and the answers to alarms.
    public var alarms: AlarmStore { AlarmStore(database: self) }
    /// `dosetap serve` runs and the outages between them.
    public var serverRuns: SQLiteServerRuns { SQLiteServerRuns(database: self) }
}

// Records in and out.
extension AppDatabase {
    /// Exports and imports.
    public var transfer: DataTransfer { DataTransfer(database: self) }
}
