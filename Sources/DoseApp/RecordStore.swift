public import DoseCore
public import DoseStore
public import Foundation

/// Where the program keeps its records: the embedded SQLite file (the default), or a PostgreSQL server (SPEC §5.6).
///
/// On PostgreSQL, tonight's actions and status, due reminders, settings, corrections, the journal (medications,
/// pre-sleep logs, check-in edits), alarm records, the supply, setup, devices and server runs run on repositories of
/// their own, the same protocols as SQLite's; history, insights, exports, deletions and Clear All run in PostgreSQL's
/// own statements, decoded by the code the file uses. Imports are one set of rules (`RecordImporter`) on either store's
/// statements (`importFile`).
public enum RecordStore: Sendable {
    case sqlite(AppDatabase)
    /// A PostgreSQL store and the person whose records these are.
    case postgres(PostgresStore, person: String)

    /// Tonight: actions, status, settling, due reminders and corrections.
    public var ledger: NightLedger {
        switch self {
        case .sqlite(let database): database.ledger
        case .postgres(let store, let person): NightLedger(repository: PostgresNightRepository(store: store, person: person))
        }
    }

    /// The record of `dosetap serve` runs (on PostgreSQL, every instance's).
    public var serverRuns: any ServerRunsRepository {
        switch self {
        case .sqlite(let database): database.serverRuns
        case .postgres(let store, _): PostgresServerRuns(store: store)
        }
    }

    /// The settings.
    public var settingsBook: SettingsBook {
        switch self {
        case .sqlite(let database): database.settingsBook
        case .postgres(let store, let person): SettingsBook(repository: PostgresSettingsRepository(store: store, person: person))
        }
    }

    /// The id of the person these records are of on a shared PostgreSQL store; nil for a SQLite file (one person).
    public var personID: String? {
        guard case .postgres(_, let person) = self else { return nil }
        return person
    }

    /// The PostgreSQL store these records are in, shared by its people; nil for a SQLite file.
    public var shared: PostgresStore? {
        guard case .postgres(let store, _) = self else { return nil }
        return store
    }

    /// The same store, as the records of `person` (a PostgreSQL store's person id; a SQLite file has only its own).
    public func of(person: String) -> RecordStore {
        guard case .postgres(let store, _) = self else { return self }
        return .postgres(store, person: person)
    }

    /// The secret that signs reminder action links and page CSRF tokens, made on first use; on PostgreSQL one for the
    /// whole store, made once whoever asks first.
    public func actionLinkSecret(clock: StoreClock) throws -> String {
        switch self {
        case .sqlite(let database): try database.serverKeys.actionLinkSecret(clock: clock)
        case .postgres(let store, _): try store.serverSecret(purpose: "action_links", at: clock.now) { clock.random.hex(32) }
        }
    }

    /// The VAPID private key, made on first use (`isValidKey` says whether random bytes make one); on PostgreSQL one for
    /// the whole store, made once whoever asks first.
    public func vapidPrivateKey(clock: StoreClock, isValidKey: (String) -> Bool) throws -> String {
        switch self {
        case .sqlite(let database): return try database.serverKeys.vapidPrivateKey(clock: clock, isValidKey: isValidKey)
        case .postgres(let store, _):
            return try store.serverSecret(purpose: "vapid", at: clock.now) {
                var secret = clock.random.hex(32)
                while !isValidKey(secret) { secret = clock.random.hex(32) }
                return secret
            }
        }
    }

    /// Whether the database answers a read (`/health`, `/ready`).
    public func ping() throws {
        switch self {
        case .sqlite(let database): try database.ping()
        case .postgres(let store, _): try store.ping()
        }
    }

    /// The SQLite database, for what only a file on this machine has (its size, the folder beside it); nil on PostgreSQL.
    public var sqliteFile: AppDatabase? {
        guard case .sqlite(let database) = self else { return nil }
        return database
    }

    /// What a support bundle redacts, read in place on either store.
    public func supportRecords(machineTimeZoneID: String) throws -> SupportRecords {
        switch self {
        case .sqlite(let database): try database.transfer.supportRecords(machineTimeZoneID: machineTimeZoneID)
        case .postgres(let store, let person): try store.supportRecords(of: person, machineTimeZoneID: machineTimeZoneID)
        }
    }

    /// A consistent copy of these records as a SQLite file at `path`, owner-only: the raw data a support bundle carries
    /// only on explicit request. On PostgreSQL the person's records in the file's form (as `store copy` makes it).
    public func copyDatabase(to path: String) throws {
        switch self {
        case .sqlite(let database): try database.transfer.copyDatabase(to: path)
        case .postgres(let store, let person): try store.contents(of: person).write(to: path)
        }
    }

    /// Records one alarm delivery attempt, unless its night was deleted meanwhile.
    public func recordDelivery(_ attempt: AlarmDeliveryRecord, clock: StoreClock) throws {
        switch self {
        case .sqlite(let database): try database.alarms.record(attempt, clock: clock)
        case .postgres(let store, let person): try store.recordDelivery(attempt, id: clock.makeID(), of: person, at: clock.now)
        }
    }

    /// Imports a file by what it is. However long it takes, it holds up no one's night: on SQLite it works on a private
    /// copy and lands in one short transaction (`StagedImport`); on PostgreSQL it works in a transaction of its own,
    /// without the person's lock, and runs again if their night moved meanwhile (`PostgresStore.importing`).
    public func importFile(at path: String, clock: StoreClock, settling: @escaping NightSettling, scratchFolder: URL) throws -> ImportReport {
        switch self {
        case .sqlite(let database):
            try database.transfer.importFile(at: path, clock: clock, settling: settling, scratchFolder: scratchFolder)
        case .postgres(let store, let person):
            try store.importFile(of: person, at: path, clock: clock, settling: settling, scratchFolder: scratchFolder)
        }
    }

    /// Insights' nights dated `from` through `to`, oldest first, read in place on either store.
    public func insightNights(from: SessionKey, to: SessionKey) throws -> [InsightNight] {
        switch self {
        case .sqlite(let database): try database.history.insightNights(from: from, to: to)
        case .postgres(let store, let person): try store.insightNights(of: person, from: from, to: to)
        }
    }

    /// Every night with that session date (usually one), with all events and vitals, read in place on either store.
    public func nights(on date: SessionKey) throws -> [NightRecord] {
        switch self {
        case .sqlite(let database): try database.history.nights(on: date)
        case .postgres(let store, let person): try store.nights(of: person, on: date)
        }
    }

    /// One night by its id, with all events and vitals, or nil, read in place on either store.
    public func night(id: SessionID) throws -> NightRecord? {
        switch self {
        case .sqlite(let database): try database.history.night(id: id)
        case .postgres(let store, let person): try store.night(of: person, id: id)
        }
    }

    /// The nights with a Dose 1 dated `from` through `to` (all when nil), oldest first, read in place on either store.
    public func dosedNights(from: SessionKey?, to: SessionKey?) throws -> [DosedNight] {
        switch self {
        case .sqlite(let database): try database.transfer.dosedNights(from: from, to: to)
        case .postgres(let store, let person): try store.dosedNights(of: person, from: from, to: to)
        }
    }

    /// One page of history, read in place on either store.
    public func historyPage(_ query: HistoryQuery) throws -> HistoryPage {
        switch self {
        case .sqlite(let database): try database.history.page(query)
        case .postgres(let store, let person): try store.historyPage(of: person, query)
        }
    }

    /// Calls `body` with every night dated `from` through `to`, oldest first, with all events, a few hundred at a time.
    public func forEachNight(from: SessionKey, to: SessionKey, _ body: (NightRecord) throws -> Void) throws {
        switch self {
        case .sqlite(let database): try database.history.forEachNight(from: from, to: to, body)
        case .postgres(let store, let person): try store.forEachNight(of: person, from: from, to: to, body)
        }
    }

    /// Writes the export bundle to `path`, read in place on either store; returns the rows written per table file.
    public func exportBundle(to path: String, analytics: String, clock: StoreClock) throws -> [String: Int] {
        switch self {
        case .sqlite(let database): try database.transfer.exportBundle(to: path, analytics: analytics, clock: clock)
        case .postgres(let store, let person): try store.exportBundle(of: person, to: path, analytics: analytics, clock: clock)
        }
    }

    /// Deletes every record of this store's person, after the exact confirmation phrase, and proves none is left: the
    /// whole file, or the person's rows of a shared store (the service's own tables stay).
    public func clearAll(confirmation: String) throws -> ClearReport {
        switch self {
        case .sqlite(let database): try database.clearAll(confirmation: confirmation)
        case .postgres(let store, let person): try store.clearAll(of: person, confirmation: confirmation)
        }
    }

    /// events.csv: every event and undo, oldest first, read in place on either store.
    public func eventsCSV() throws -> String {
        var out = ""
        try eventsCSV { out += $0 }
        return out
    }

    /// events.csv a piece at a time (`CSVPieces`), read in place on either store.
    public func eventsCSV(_ write: (String) throws -> Void) throws {
        switch self {
        case .sqlite(let database): try database.transfer.eventsCSV(write)
        case .postgres(let store, let person): try store.eventsCSV(of: person, write)
        }
    }

    /// The paired devices that may call the API (checked on every request, so read directly on either store).
    public func activeDevices() throws -> [DeviceRecord] {
        switch self {
        case .sqlite(let database): try database.devices.active()
        case .postgres(let store, let person): try store.activeDevices(of: person)
        }
    }

    /// The unrevoked device of these records whose token hashes to `tokenHash`, in one indexed read; nil for any other
    /// token (on PostgreSQL, another person's too).
    public func activeDevice(tokenHash: String) throws -> DeviceRecord? {
        switch self {
        case .sqlite(let database): return try database.devices.active(tokenHash: tokenHash)
        case .postgres(let store, let person):
            guard let found = try store.activeDevice(tokenHash: tokenHash), found.person == person else { return nil }
            return found.device
        }
    }

    /// Records that a request used device `id` at `now`.
    public func recordDeviceUse(_ id: String, at now: Date) throws {
        switch self {
        case .sqlite(let database): try database.devices.recordUse(id, at: now)
        case .postgres(let store, let person): try store.recordDeviceUse(id, of: person, at: now)
        }
    }

    /// Whether first-run setup was completed (asked after every night command, so read directly on either store).
    public func setupComplete() throws -> Bool {
        switch self {
        case .sqlite(let database): try database.setup.isComplete()
        case .postgres(let store, let person): try store.setupComplete(of: person)
        }
    }

    /// True the first time `notice` is asked for, false ever after (until Clear All Data).
    public func firstShowing(of notice: String, at now: Date) throws -> Bool {
        switch self {
        case .sqlite(let database): try database.setup.firstShowing(of: notice, at: now)
        case .postgres(let store, let person): try store.firstShowing(of: notice, to: person, at: now)
        }
    }

    /// Uses a sign-in link made for this store's person (SPEC §5.6): true once. A SQLite file has no sign-in links (its
    /// browsers pair instead), so none is ever valid there.
    public func useSignInLink(tokenHash: String, at now: Date) throws -> Bool {
        guard case .postgres(let store, let person) = self else { return false }
        return try store.useSignInLink(tokenHash: tokenHash, person: person, at: now)
    }

    /// Failed sign-ins from `address` since `since`, counted by every instance of a shared store (none on a file).
    public func signInFailures(from address: String, since: Date, forgetBefore: Date) throws -> Int {
        guard case .postgres(let store, _) = self else { return 0 }
        return try store.signInFailures(from: address, since: since, forgetBefore: forgetBefore)
    }

    /// Counts a failed sign-in from `address`, for every instance to see.
    public func recordSignInFailure(from address: String, at now: Date) throws {
        guard case .postgres(let store, _) = self else { return }
        try store.recordSignInFailure(from: address, at: now)
    }

    /// Where the records are, as the privacy step of setup says it: short enough to read on a phone, so no URL.
    public var place: String {
        switch self {
        case .sqlite: SetupWizard.sqlitePlace
        case .postgres(let store, _): "the PostgreSQL database \(store.location.database) on \(store.location.host)"
        }
    }

    /// The imports under way on this store, so graceful shutdown can stop them.
    public var imports: ImportStops {
        switch self {
        case .sqlite(let database): database.imports
        case .postgres(let store, _): store.imports
        }
    }

    /// The person id of records that are no one's: no person has it (an id is at least one character), so it reads no
    /// rows. A server for everyone of a shared store answers what names no person over it.
    public static let nobody = ""

    /// Opens the PostgreSQL store at `location` to serve everyone in it (`dosetap serve` without `--person`): as its one
    /// person when it holds at most one (made on first use, as `postgres` does), else as `nobody`; `people` says how many
    /// it held.
    public static func postgresForEveryone(_ location: PostgresLocation, newID: String) throws -> (store: RecordStore, isNew: Bool, people: Int) {
        let store = try PostgresStore.open(location)
        let people = try store.peopleCount()
        guard people < 2 else { return (.postgres(store, person: nobody), false, people) }
        let person = try store.soloPerson(newID: newID)
        return (.postgres(store, person: person.id), person.created, 1)
    }

    /// Opens the PostgreSQL store at `location` for `person` (an e-mail address or id), or, when none is named, for the
    /// one person it holds (made on first use, with `newID`; `isNew` says so). PostgreSQL's migrations run first.
    public static func postgres(_ location: PostgresLocation, newID: String, person named: String? = nil) throws -> (
        store: RecordStore, isNew: Bool
    ) {
        let store = try PostgresStore.open(location)
        if let named {
            guard let person = try store.person(named: named) else {
                throw DoseError.invalidInput(
                    field: "person", problem: "\(location.redacted) has no person '\(named.prefix(100))'",
                    allowed: "the e-mail address or id of a person `dosetap person list` shows")
            }
            return (.postgres(store, person: person.id), false)
        }
        let person = try store.soloPerson(newID: newID)
        return (.postgres(store, person: person.id), person.created)
    }
}
