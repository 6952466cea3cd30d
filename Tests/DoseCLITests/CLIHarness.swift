import DoseApp
import DoseCLI
import Foundation
import Synchronization
import Testing

/// The result of one run of the binary.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    /// stdout parsed as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// The `error.code` of a JSON error.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }

    /// `status.phase` of an action, or `phase` of a status.
    var phase: String? { ((json["status"] as? [String: Any]) ?? json)["phase"] as? String }
}

/// Runs `dosetap` commands against a temporary database with `--now`: in this process through the same entry point the
/// executable calls (`DoseTapCLI.run(_:on:)`), or as the built binary itself where the process is what is tested.
final class CLI {
    let directory: URL
    let database: String
    let zone: String

    init(zone: String = "America/New_York") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("night.sqlite").path
        self.zone = zone
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The built binary, next to the test bundle.
    static let binary: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("dosetap")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/dosetap").standardized
        return fallback
    }()

    /// Runs `dosetap ARGS --db DB --tz ZONE [--now NOW]`; `now` is a local `yyyy-MM-dd HH:mm[:ss]` in the zone or ISO-8601.
    /// In this process unless `spawn`: a test of the process itself (its exit, its streams, a crash) spawns the binary.
    @discardableResult
    func run(
        _ arguments: [String], now: String? = nil, json: Bool = true, database: String? = nil, environment: [String: String] = [:],
        spawn: Bool = false
    ) throws -> Run {
        var all = arguments + ["--db", database ?? self.database]
        // A test that passes its own --tz or --now is testing that option; do not override it.
        if !arguments.contains("--tz") { all += ["--tz", zone] }
        if let now, !arguments.contains("--now") { all += ["--now", Self.instant(now, zone: zone)] }
        if json { all.append("--json") }
        return spawn ? try Self.execute(all, environment: environment) : try Self.inProcess(all, environment: environment)
    }

    /// The variables a command sees: this process's, with the zone and loopback rule every run has, the suite's store,
    /// and the test's own.
    static func variables(_ arguments: [String], _ environment: [String: String]) -> [String: String] {
        var variables = ProcessInfo.processInfo.environment
        variables["TZ"] = "Pacific/Chatham"
        // Push services and webhooks under test listen on loopback; a test of the address rule passes "0".
        variables["DOSETAP_ALLOW_LOOPBACK_TARGETS"] = "1"
        for (key, value) in suiteStore(arguments) { variables[key] = value }
        for (key, value) in environment { variables[key] = value }
        return variables
    }

    /// Runs a command line in this process, on a terminal of buffers with no keyboard. A command that awaits (`serve`,
    /// `alarm test`) runs as the binary instead.
    static func inProcess(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let stdout = Mutex("")
        let stderr = Mutex("")
        let terminal = Terminal(
            environment: variables(arguments, environment), write: { text in stdout.withLock { $0 += text } },
            writeError: { text in stderr.withLock { $0 += text } })
        guard let status = DoseTapCLI.run(arguments, on: terminal) else { return try execute(arguments, environment: environment) }
        return Run(status: status, stdout: stdout.withLock { $0 }, stderr: stderr.withLock { $0 })
    }

    static func execute(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, executable: URL = binary) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = suiteServing(arguments)
        process.environment = variables(arguments, environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// With `DOSETAP_CLI_SUITE_POSTGRES_URL` set (by hand: `DOSETAP_CLI_SUITE_POSTGRES_URL=postgres://… swift test
    /// --filter DoseCLITests`), a command naming `--db PATH` runs on a PostgreSQL schema of that path's own through
    /// `DOSETAP_DATABASE_URL`, which wins over `--db`: the suite, run as it is, on PostgreSQL. Tests that read the SQLite
    /// file itself then fail by design.
    static func suiteStore(_ arguments: [String]) -> [String: String] {
        guard let base = ProcessInfo.processInfo.environment["DOSETAP_CLI_SUITE_POSTGRES_URL"], !arguments.contains("--database"),
            let flag = arguments.firstIndex(of: "--db"), flag + 1 < arguments.count
        else { return [:] }
        let name = String(arguments[flag + 1].lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.suffix(55))
        return ["DOSETAP_DATABASE_URL": base + (base.contains("?") ? "&" : "?") + "search_path=s" + name]
    }

    /// `serve` in the suite run on PostgreSQL serves the schema its commands made as their owner, which serving refuses
    /// unless told (`--allow-owner-role`); every other command line is as given.
    static func suiteServing(_ arguments: [String]) -> [String] {
        arguments.first == "serve" && !suiteStore(arguments).isEmpty ? arguments + ["--allow-owner-role"] : arguments
    }

    /// `2026-11-21 22:30` in the zone → ISO-8601 UTC; ISO input passes through.
    static func instant(_ text: String, zone: String) -> String {
        guard !text.contains("T") else { return text }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = text.count > 16 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        guard let date = formatter.date(from: text) else { return text }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return iso.string(from: date)
    }

    /// The database file's bytes (after every process has closed it).
    func databaseBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: database)) }
}

extension Trait where Self == ConditionTrait {
    /// A test that reads the SQLite file itself, or drives a terminal outside the harness: it cannot run when the suite
    /// runs on PostgreSQL (`DOSETAP_CLI_SUITE_POSTGRES_URL`), and is skipped then.
    static var readsSQLiteFile: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["DOSETAP_CLI_SUITE_POSTGRES_URL"] == nil,
            "reads the SQLite file itself, so it runs on the SQLite pass only")
    }
}
