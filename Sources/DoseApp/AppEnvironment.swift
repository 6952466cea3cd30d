public import DoseCore
public import DoseStore
public import Foundation
public import Logging

/// Everything a use case takes from the world outside: the database, the time, waiting, new ids, random bytes, the zone,
/// requests to other hosts, the folders files go to, and the log. Each edge builds one (a `dosetap` command,
/// `dosetap serve`, a test) and everything below it is given what it needs from here, so no rule, store or handler
/// reads the system clock, makes randomness, sends a request or picks a folder of its own.
public struct AppEnvironment: Sendable {
    /// Where the records are kept.
    public var store: RecordStore
    /// The current instant.
    public var now: @Sendable () -> Date
    /// The real time, even when `now` is fixed (`--now`, a test's clock): for what another party checks against its own
    /// clock, such as the expiry of a Web Push authorization.
    public var wallClock: @Sendable () -> Date = { Date() }
    /// Waits: between reminder ticks, before a delivery's retry, between checks of a certificate or of a device's
    /// revocation. Tests give one that returns at once or moves their clock, so no test waits on a real clock.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// Everything of a call's clock but the instant: the zone override, the machine's zone, ids and randomness.
    private var template: StoreClock
    /// Where requests a paired device chose may go (push endpoints, the escalation contact).
    public var outbound = OutboundTargets()
    /// The folder for the files kept beside the store (the local certificates, the diagnostic log): the SQLite file's
    /// folder; on PostgreSQL the one the edge chose (nil: none).
    public var filesFolder: URL?
    /// Where work in progress goes (an export before it is sent, an upload being read, a support bundle's copy of the
    /// store) and is removed from when the work ends. The system's temporary folder unless the edge chose another.
    public var scratchFolder: URL = FileManager.default.temporaryDirectory
    /// Sends the requests to other hosts: alarms to webhooks, ntfy and push services. The edge gives its HTTP client;
    /// without one nothing is sent, and each delivery says why.
    public var http: any OutboundSender = NoOutboundSender()
    /// Where what happens is logged: the process's handlers unless the edge or a test gave a logger of its own.
    public var logger = Logger(label: "dosetap")
    /// Whether invitations are mailed as well as shown (`serve --smtp`: a shared store's queue is sent).
    public var sendsMail = false
    /// Who may make an account (`serve --sign-up`).
    public var signUp = SignUpPolicy.closed

    /// An environment from its parts; tests give a moving clock, counted ids and, where it matters, fixed bytes.
    /// `machineTimeZoneID` is the default of the `time_zone` setting; `timeZoneOverride` is `--tz`.
    public init(
        database: AppDatabase, now: @escaping @Sendable () -> Date, machineTimeZoneID: String, timeZoneOverride: TimeZone? = nil,
        makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        self.init(
            store: .sqlite(database), now: now, machineTimeZoneID: machineTimeZoneID, timeZoneOverride: timeZoneOverride, makeID: makeID,
            random: random)
    }

    /// An environment over any store.
    public init(
        store: RecordStore, now: @escaping @Sendable () -> Date, machineTimeZoneID: String, timeZoneOverride: TimeZone? = nil,
        makeID: @escaping @Sendable () -> String, random: RandomSource
    ) {
        self.store = store
        self.now = now
        filesFolder = store.sqliteFile?.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
        template = StoreClock(
            now: .distantPast, timeZoneOverride: timeZoneOverride, machineTimeZoneID: machineTimeZoneID, makeID: makeID, random: random)
    }

    /// The program's environment: the system clock (or `--now`, fixed), the machine's zone, UUIDs and the system's
    /// cryptographic generator.
    /// `DOSETAP_ALLOW_LOOPBACK_TARGETS=1` lets push endpoints and the escalation contact be on this machine (tests).
    public static func system(
        database: AppDatabase, fixedNow: Date? = nil, timeZoneOverride: TimeZone? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) -> AppEnvironment {
        system(store: .sqlite(database), fixedNow: fixedNow, timeZoneOverride: timeZoneOverride, variables: variables)
    }

    /// The program's environment over any store. `variables` are the environment variables it was started with: `TZ`
    /// names the machine's zone (else the process's), and `DOSETAP_ALLOW_LOOPBACK_TARGETS=1` lets alarms go to loopback.
    public static func system(
        store: RecordStore, fixedNow: Date? = nil, timeZoneOverride: TimeZone? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) -> AppEnvironment {
        let machineZone = variables["TZ"].flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
        var environment = AppEnvironment(
            store: store, now: { fixedNow ?? Date() }, machineTimeZoneID: machineZone.identifier, timeZoneOverride: timeZoneOverride,
            makeID: { UUID().uuidString.lowercased() }, random: .system)
        environment.outbound.allowLoopback = variables["DOSETAP_ALLOW_LOOPBACK_TARGETS"] == "1"
        return environment
    }

    /// A new path in the scratch folder, `prefix` then a fresh id then `suffix` (such as `.zip`).
    public func scratchPath(_ prefix: String, suffix: String = "") -> URL {
        scratchFolder.appendingPathComponent("\(prefix)-\(template.makeID())\(suffix)")
    }

    /// Random bytes for tokens, codes and secrets.
    public var random: RandomSource { template.random }

    /// The clock of one call or request: this instant, the zone override, ids and randomness.
    public func clock() -> StoreClock {
        var clock = template
        clock.now = ISO8601.wholeMilliseconds(now())
        return clock
    }

    /// The use cases at this instant: one request or command works at one instant throughout.
    public func useCases() -> UseCases { useCases(at: clock()) }

    /// The use cases at a given clock (a command's `--now`, or a request that already took its instant).
    public func useCases(at clock: StoreClock) -> UseCases {
        var useCases = UseCases(store: store, clock: clock, outbound: outbound, scratchFolder: scratchFolder)
        useCases.sendsMail = sendsMail
        useCases.signUp = signUp
        return useCases
    }
}

/// Every use case of DoseTap at one instant; the CLI and the server call these, never the stores.
public struct UseCases: Sendable {
    /// Where the records are kept.
    public let store: RecordStore
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock
    /// Where requests a paired device chose may go.
    public let outbound: OutboundTargets
    /// Where work in progress goes (`AppEnvironment.scratchFolder`).
    public let scratchFolder: URL
    /// Whether invitations are mailed as well as shown (`AppEnvironment.sendsMail`).
    public var sendsMail = false
    /// Who may make an account (`AppEnvironment.signUp`).
    public var signUp = SignUpPolicy.closed

    /// The use cases of a database at one clock.
    public init(_ database: AppDatabase, clock: StoreClock, outbound: OutboundTargets = OutboundTargets()) {
        self.init(store: .sqlite(database), clock: clock, outbound: outbound)
    }

    /// The use cases of any store at one clock.
    public init(
        store: RecordStore, clock: StoreClock, outbound: OutboundTargets = OutboundTargets(),
        scratchFolder: URL = FileManager.default.temporaryDirectory
    ) {
        self.store = store
        self.clock = clock
        self.outbound = outbound
        self.scratchFolder = scratchFolder
    }

    /// The same use cases, at the same clock and with the same settings, over `person`'s records of the shared store.
    public func acting(as person: String) -> UseCases {
        var theirs = UseCases(store: store.of(person: person), clock: clock, outbound: outbound, scratchFolder: scratchFolder)
        theirs.sendsMail = sendsMail
        theirs.signUp = signUp
        return theirs
    }

    /// A new path in the scratch folder, `prefix` then a fresh id then `suffix` (such as `.zip`).
    public func scratchPath(_ prefix: String, suffix: String = "") -> URL {
        scratchFolder.appendingPathComponent("\(prefix)-\(clock.makeID())\(suffix)")
    }

    /// Runs `work` in a new owner-only folder of the scratch folder, and removes the folder and all in it afterwards,
    /// whether `work` returned or threw: no health data is left behind in a shared temporary folder.
    public func inScratchFolder<T>(_ prefix: String, _ work: (URL) throws -> T) throws -> T {
        let folder = scratchPath(prefix)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        return try work(folder)
    }

    /// Tonight: act, status, settle.
    public var night: NightService { NightService(app: self) }
    /// History, corrections and questionnaires.
    public var records: RecordService { RecordService(app: self) }
    /// Other medications.
    public var medications: MedicationService { MedicationService(app: self) }
    /// The settings.
    public var settings: SettingsService { SettingsService(app: self) }
    /// Paired devices.
    public var devices: DeviceService { DeviceService(app: self) }
    /// Exports, imports and Clear All Data.
    public var transfer: TransferService { TransferService(app: self) }
    /// The reminder engine's reads and writes.
    public var reminders: ReminderService { ReminderService(app: self) }
    /// Insights, the weekly planner and the clinician report's figures.
    public var insights: InsightsService { InsightsService(app: self) }
    /// The support bundle: redacted diagnostics, reviewed before they are written.
    public var support: SupportService { SupportService(app: self) }
}
