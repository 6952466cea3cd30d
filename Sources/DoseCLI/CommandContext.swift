import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import DoseStore
import Foundation

/// Options every command accepts, after the subcommand (SPEC §5.1).
struct GlobalOptions: ParsableArguments {
    @Option(help: "Database file (default $DOSETAP_DB, else $XDG_DATA_HOME/dosetap/dosetap.sqlite, else ~/.local/share/dosetap/dosetap.sqlite).")
    var db: String?

    @Option(help: "A PostgreSQL store instead of the SQLite file: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default $DOSETAP_DATABASE_URL).")
    var database: String?

    @Flag(help: "Print machine-readable JSON on stdout.")
    var json = false

    @Option(help: "Use this instant as the current time (ISO-8601), for tests and demos.")
    var now: String?

    @Option(help: "Use this IANA time zone for this call instead of the time_zone setting.")
    var tz: String?

    @Option(help: "The person to act for, by e-mail address or id: needed when a PostgreSQL store holds several (`dosetap person list`).")
    var person: String?
}

/// Options of the night actions.
struct ActionOptions: ParsableArguments {
    @Option(help: "When it happened, if earlier: local HH:mm (latest occurrence) or ISO-8601. Default: now.")
    var at: String?

    @Option(help: "A note (at most 500 characters).")
    var note: String?
}

/// The confirmations one command accepts, each checked against that command's own list.
enum Confirmations {
    /// The kinds named by `--confirm` values (repeatable or comma-separated), or an error listing what `command` takes.
    static func parse(_ values: [String], allowed: [ConfirmKind], command: String) throws(DoseError) -> Set<ConfirmKind> {
        var kinds = Set<ConfirmKind>()
        for name in values.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let kind = ConfirmKind(rawValue: name), allowed.contains(kind) else {
                throw .invalidInput(
                    field: "--confirm", problem: "'\(name)' is not a confirmation `\(command)` takes",
                    allowed: allowed.map(\.rawValue).joined(separator: ", "))
            }
            kinds.insert(kind)
        }
        return kinds
    }
}

/// One command's access to the clock, the zone and the database.
struct CommandContext {
    let options: GlobalOptions
    /// Built once for the command: the database, `--now` or the system clock, `--tz`, ids and randomness.
    let environment: AppEnvironment
    /// The command's clock: one instant for the whole command.
    let clock: StoreClock

    /// The folder for the files kept beside the store (`AppEnvironment.filesFolder`), made if missing.
    var dataFolder: URL {
        get throws {
            let folder = environment.filesFolder ?? environment.scratchFolder
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return folder
        }
    }

    /// Where the records are, for messages: the SQLite file, or the PostgreSQL URL without its password.
    let storeName: String
    /// How many people the store held when opened (a SQLite file holds one).
    var people = 1
    /// Whether it was opened to serve everyone of a shared store (a person added while serving is served at once).
    var everyone = false

    /// The use cases at the command's instant.
    var app: UseCases { environment.useCases(at: clock) }

    /// Parses the global options and opens the database; prints the disclaimer when the database is new.
    /// A command that only reads (`reading`) refuses a `--db` whose folder does not exist: a typo there would
    /// otherwise show an empty night from a new database instead of the person's own.
    /// `everyone` (serve): a PostgreSQL store named with no `--person` is opened for all its people (`people` in the
    /// context says how many), not refused for holding several.
    static func open(_ options: GlobalOptions, pooled: Bool = false, reading: Bool = false, everyone: Bool = false) throws -> CommandContext {
        let fixedNow = try options.now.map { text throws(DoseError) in try ClockInput.instant(text, field: "now") }
        let zone = try options.tz.map { text throws(DoseError) in try ClockInput.timeZone(text) }
        if let url = try postgresURL(options) {
            let location = try PostgresLocation(url: url)
            let newID = UUID().uuidString.lowercased()
            let opened: (store: RecordStore, isNew: Bool, people: Int)
            if everyone && options.person == nil {
                opened = try RecordStore.postgresForEveryone(location, newID: newID)
            } else {
                let (store, isNew) = try RecordStore.postgres(location, newID: newID, person: options.person)
                opened = (store, isNew, 1)
            }
            let (store, isNew, people) = opened
            if isNew && !options.json { disclaim(where: location.redacted) }
            var environment = AppEnvironment.system(store: store, fixedNow: fixedNow, timeZoneOverride: zone, variables: Terminal.current.environment)
            // No file to keep them beside: the folder `--db`/`DOSETAP_DB` would name, else this user's data folder.
            let path = DatabaseLocation.resolve(flag: options.db, environment: Terminal.current.environment)
            environment.filesFolder = URL(fileURLWithPath: path).deletingLastPathComponent()
            environment.http = OutboundHTTP.sender
            return CommandContext(
                options: options, environment: environment, clock: environment.clock(), storeName: location.redacted, people: people,
                everyone: everyone && options.person == nil)
        }
        if let person = options.person { throw SharedStore.sqliteHoldsOnePerson(option: "--person \(person.prefix(100))") }
        let path = DatabaseLocation.resolve(flag: options.db, environment: Terminal.current.environment)
        if reading, let flag = options.db, !FileManager.default.fileExists(atPath: path) {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !FileManager.default.fileExists(atPath: folder) {
                throw DoseError.invalidInput(
                    field: "--db", problem: "there is no folder \(folder), so there is no database at \(path) (from --db \(flag))",
                    allowed:
                        "the path of an existing DoseTap database, or leave --db out to use "
                        + "\(DatabaseLocation.resolve(flag: nil, environment: Terminal.current.environment))"
                )
            }
        }
        let isNew = !FileManager.default.fileExists(atPath: path)
        let database = try AppDatabase.open(path: path, pooled: pooled)
        if isNew && !options.json { disclaim(where: path) }
        var environment = AppEnvironment.system(
            database: database, fixedNow: fixedNow, timeZoneOverride: zone, variables: Terminal.current.environment)
        environment.http = OutboundHTTP.sender
        return CommandContext(options: options, environment: environment, clock: environment.clock(), storeName: path)
    }

    /// Said once, when a new store is made: where the log is kept, and that DoseTap is not medical advice.
    static func disclaim(where place: String) {
        Output.note(
            """
            DoseTap keeps your dose log in \(place).
            It is a timing and logging aid, not medical advice: follow your prescriber's instructions.
            """)
    }

    /// The PostgreSQL store chosen by `--database`, else by `DOSETAP_DATABASE_URL` (SPEC §5.6: read whenever `--database`
    /// is not given, so a whole suite of commands written with `--db` runs on PostgreSQL by setting it); nil for the
    /// SQLite file.
    static func postgresURL(_ options: GlobalOptions) throws(DoseError) -> String? {
        if options.database != nil, options.db != nil {
            throw .invalidInput(
                field: "--database", problem: "both --db and --database were given", allowed: "one store: --db PATH or --database URL")
        }
        guard let url = options.database ?? Terminal.current.environment["DOSETAP_DATABASE_URL"],
            !url.isEmpty
        else { return nil }
        guard PostgresLocation.isPostgres(url) else {
            throw .invalidInput(
                field: options.database != nil ? "--database" : "DOSETAP_DATABASE_URL",
                problem: "the value does not start with postgres:// or postgresql://",
                allowed: "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE; a SQLite file is named with --db PATH")
        }
        return url
    }

    /// `--at`: the instant it names (a local HH:mm is its latest occurrence up to now), or nil for now.
    func occurrence(_ text: String?, in zone: TimeZone) throws(DoseError) -> Date? {
        try text.map { text throws(DoseError) in try ClockInput.occurrence(text, now: clock.now, timeZone: zone) }
    }
}

/// The one edge where errors become exit codes and messages (SPEC §4).
enum Output {
    /// Writes a line to stderr.
    static func note(_ text: String) {
        Terminal.current.note(text)
    }

    /// Prints a line on stdout.
    static func line(_ text: String) {
        Terminal.current.line(text)
    }

    /// Prints a result as JSON, or as its sentence.
    static func show(json: Bool, _ response: some Encodable, _ words: @autoclosure () -> String) {
        line(json ? JSONValue(response: response).rendered() : words())
    }

    /// Prints items as one JSON array, or one line of words each.
    static func list<Item, Response: Encodable>(_ items: [Item], json: Bool, response: (Item) -> Response, words: (Item) -> String) {
        if json {
            line(JSONValue(response: items.map(response)).rendered())
        } else {
            for item in items { line(words(item)) }
        }
    }

    /// Opens the command's context (a `reading` command refuses a missing `--db` folder) and runs its body; every
    /// failure, opening included, is reported once.
    static func run(_ options: GlobalOptions, reading: Bool = false, _ body: (CommandContext) throws -> Void) throws {
        try run(json: options.json) { try body(try CommandContext.open(options, reading: reading)) }
    }

    /// As `run(_:reading:_:)` for a deletion, which needs `--yes`: without it nothing is opened and nothing changes.
    static func run(_ options: GlobalOptions, deleting what: String, confirmed: Bool, _ body: (CommandContext) throws -> Void) throws {
        try run(json: options.json) {
            guard confirmed else { throw DoseError.invalidInput(field: "yes", problem: "deleting \(what) cannot be undone", allowed: "add --yes") }
            try body(try CommandContext.open(options))
        }
    }

    /// Runs a command body; every failure is reported once, in JSON or words, with its exit code.
    static func run(json: Bool, _ body: () throws -> Void) throws {
        do { try body() } catch { throw reported(error, json: json) }
    }

    /// `run(json:_:)` for a body that awaits (a server, alarms sent out), without blocking a thread on it.
    static func runAsync(json: Bool, _ body: () async throws -> Void) async throws {
        do { try await body() } catch { throw reported(error, json: json) }
    }

    /// `run(_:reading:_:)` for a body that awaits.
    static func runAsync(_ options: GlobalOptions, _ body: (CommandContext) async throws -> Void) async throws {
        try await runAsync(json: options.json) { try await body(try CommandContext.open(options)) }
    }

    /// A command's failure, reported once, in JSON or words, as the exit code it ends with.
    private static func reported(_ error: any Error, json: Bool) -> ExitCode {
        switch error {
        case let error as DoseError:
            report(error, json: json)
            return ExitCode(error.exitCode)
        case let error as ExitCode:
            return error
        default:
            if json {
                line(JSONValue(dictionaryLiteral: ("error", ["code": "500_INTERNAL", "message": .string("DoseTap failed: \(error)")])).rendered())
            } else {
                note("DoseTap failed: \(error)")
            }
            return ExitCode(ExitStatus.internalError)
        }
    }

    static func report(_ error: DoseError, json: Bool) {
        if json {
            line(JSONValue(response: ErrorResponse(error)).rendered())
        } else {
            note("\(refusalPrefix(error))\(flagWording(error))")
        }
    }

    /// On the command line the way to confirm is the flag itself.
    static func flagWording(_ error: DoseError) -> String {
        error.message(confirmation: { "add `--confirm \($0.rawValue)`" }, takenAnyway: "`dosetap event took-anyway`")
    }

    private static func refusalPrefix(_ error: DoseError) -> String {
        switch error.exitCode {
        case ExitStatus.refused: "Not recorded. "
        case ExitStatus.usage, ExitStatus.dataError: "Error: "
        default: ""
        }
    }
}
