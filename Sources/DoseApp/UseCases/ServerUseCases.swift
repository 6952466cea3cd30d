public import DoseCore
public import DoseStore
public import Foundation

/// Records in and out: the CSV exports, the backup bundle, imports, and Clear All Data.
public struct TransferService: Sendable {
    let app: UseCases

    /// events.csv (SSOT CSV v1): every event, oldest first.
    public func eventsCSV() throws -> String {
        try app.night.settle()
        return try app.store.eventsCSV()
    }

    /// events.csv written to `path` a piece at a time (owner-only), so a long history is never held whole.
    public func writeEventsCSV(to path: String) throws {
        try app.night.settle()
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let file = FileHandle(forWritingAtPath: path)
        else { throw DoseError.invalidFile(problem: "the export could not be written in the scratch folder") }
        defer { try? file.close() }
        try app.store.eventsCSV { try file.write(contentsOf: Data($0.utf8)) }
    }

    /// The analytics CSV header (D10).
    public static let analyticsCSVHeader = "Date,Dose1Time,Dose2Time,Interval,OnTime,NaturalWake"

    /// The analytics CSV: one row per night with Dose 1, oldest first, local times in the call's zone. `OnTime`:
    /// |interval − target| ≤ 10 min. `NaturalWake`: Dose 2 taken before the wake alarm rang (before the target time,
    /// with no snooze), i.e. the person woke without the alarm. Both judged by DoseCore's window.
    public func analyticsCSV(from: SessionKey? = nil, to: SessionKey? = nil) throws -> String {
        try app.night.settle()
        let nights = try app.store.dosedNights(from: from, to: to)
        let settings = try app.settings.current()
        let zone = app.clock.zone(settings)
        let target = settings.targetIntervalMinutes
        var out = CSV.row(Self.analyticsCSVHeader.split(separator: ",").map(String.init))
        for night in nights {
            let onTime = night.intervalMinutes.map { DoseWindow.isOnTime(intervalMinutes: $0, targetMinutes: target) } ?? false
            let natural =
                night.dose2.map { DoseWindow.label.isNaturalWake(dose1: night.dose1, dose2: $0, targetMinutes: target, snoozes: night.snoozes) }
                ?? false
            out += CSV.row([
                night.date, LocalClock.hourMinuteSecond(night.dose1, in: zone), night.dose2.map { LocalClock.hourMinuteSecond($0, in: zone) } ?? "",
                night.intervalMinutes.map(String.init) ?? "", String(onTime), String(natural),
            ])
        }
        return out
    }

    /// `sessions.csv`: one row per night with the insights columns.
    public func sessionsCSV(from: SessionKey? = nil, to: SessionKey? = nil) throws -> String {
        try app.night.settle()
        return try SessionsCSV.text(app.store, from: from, to: to, targetMinutes: try app.settings.current().targetIntervalMinutes)
    }

    /// The bundle's file name for today, in the call's zone.
    public func bundleName() throws -> String {
        ExportBundle.fileName(on: app.clock.now, timeZone: try app.settings.zone())
    }

    /// Writes the backup bundle to `path`; returns the rows written per file.
    public func exportBundle(to path: String) throws -> [String: Int] {
        try app.night.settle()
        let analytics = try SessionsCSV.text(app.store, targetMinutes: try app.settings.current().targetIntervalMinutes)
        return try app.store.exportBundle(to: path, analytics: analytics, clock: app.clock)
    }

    /// Imports a bundle, an events.csv or the original app's database, by what the file is.
    public func importFile(at path: String) throws -> ImportReport {
        try app.store.importFile(at: path, clock: app.clock, settling: NightLedger.settling(clock: app.clock), scratchFolder: app.scratchFolder)
    }

    /// Deletes everything, after the exact confirmation phrase, and proves nothing is left.
    public func clearAll(confirmation: String) throws -> ClearReport {
        try app.store.clearAll(confirmation: confirmation)
    }
}

/// What the reminder engine needs: the reminders that came due (each logged once), the link signer, and the record
/// of server runs that explains an alarm that could not ring.
public struct ReminderService: Sendable {
    let app: UseCases

    /// Settles the night and takes the reminders now due, each logged as fired or missed exactly once.
    public func takeDue(sent: Set<String> = []) throws -> DueReminders {
        try app.store.ledger.takeDueReminders(clock: app.clock, sent: sent)
    }

    /// Takes the claimed reminder jobs (by log key) that are due: each logged once, by the lease's holder alone;
    /// `resuming` are those an instance that died logged and may not have delivered.
    public func takeClaimed(_ claimed: Set<String>, resuming: Set<String>) throws -> DueReminders {
        try app.store.ledger.takeDueReminders(clock: app.clock, claimed: claimed, resuming: resuming)
    }

    /// The reminders due now, read without waiting for the writer, and whether the night has a lifecycle step to write.
    public func peekDue() throws -> (due: DueReminders, settles: Bool) {
        try app.store.ledger.peekDueReminders(clock: app.clock)
    }

    /// Signs the action links of the reminders.
    public func signer() throws -> ActionLinkSigner {
        ActionLinkSigner(secretHex: try app.store.actionLinkSecret(clock: app.clock))
    }

    /// Records a server run's start, forgetting runs older than `ServerUptime.retention`; returns its id.
    public func serverStarted() throws -> String {
        let run = ServerRun(id: app.clock.makeID(), startedAt: app.clock.now, lastSeenAt: app.clock.now)
        try app.store.serverRuns.insert(run, forgettingBefore: app.clock.now.addingTimeInterval(-ServerUptime.retention))
        return run.id
    }

    /// Records that the run is alive, or that it stopped cleanly.
    public func serverAlive(_ run: String, stopped: Bool = false) throws {
        try app.store.serverRuns.recordAlive(run, at: app.clock.now, stopped: stopped)
    }

    /// The times the server was down that overlap `interval`, oldest first (DoseCore tells them from the runs).
    public func outages(overlapping interval: DateInterval) throws -> [ServerOutage] {
        ServerUptime.outages(of: try app.store.serverRuns.runs(startedAfter: interval.start), overlapping: interval)
    }
}
