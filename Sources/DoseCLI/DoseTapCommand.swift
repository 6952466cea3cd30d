import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import Foundation

/// `dosetap`: every night action from the terminal (SPEC §5.1).
struct DoseTapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dosetap",
        abstract: "Times Dose 2 of a split-night medication, refuses unsafe doses, and logs the night.",
        discussion: "DoseTap is a timing and logging aid, not medical advice. Follow your prescriber's instructions.",
        version: DoseTapVersion.text,
        subcommands: [
            Status.self, Dose1.self, Dose2.self, Skip.self, Snooze.self, Undo.self, Log.self, Wake.self, CheckIn.self,
            PreSleep.self, Med.self, History.self, Session.self, Event.self, Settings.self, Export.self, Import.self, ClearAll.self, Press.self,
            Open.self,
            Device.self, Serve.self, ServiceCommand.self, TLS.self, Alarm.self, InsightsCommand.self, Report.self, Planner.self,
            SupportBundleCommand.self,
            Setup.self, SupplyCommand.self, StoreCommand.self, PersonCommand.self, MailCommand.self,
        ],
        defaultSubcommand: Status.self)

}

/// The entry point of the `dosetap` executable.
public enum DoseTapCLI {
    /// Parses the command line, runs it and exits with the SPEC §4 code. Usage errors in `--json` mode print a JSON error.
    /// A command that awaits (`serve`, `alarm test`) is awaited, never waited for by a blocked thread.
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        // A reader that goes away (`dosetap store copy … | head -1`) must not end the command by a signal once its work
        // is done: a write to it fails instead, and the rest of the output is dropped (`Terminal.process`).
        signal(SIGPIPE, SIG_IGN)
        // A long-running server caps the allocator's arenas before any other thread exists to have one of its own.
        if arguments.first == "serve" { DoseTapServer.limitMemoryArenas() }
        Foundation.exit(await run(arguments))
    }

    /// Runs one command line on `Terminal.current` and returns its exit status, without exiting.
    public static func run(_ arguments: [String]) async -> Int32 {
        switch parse(arguments) {
        case .finished(let status):
            return status
        case .command(var command):
            do {
                if var awaiting = command as? any AsyncParsableCommand {
                    try await awaiting.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                return finish(error, arguments: arguments)
            }
        }
    }

    /// Runs one command line in this process on `terminal` and returns its exit status; nil, with nothing run, for a
    /// command that awaits (`serve`, `alarm test`), which needs `run(_:)`. Tests run most commands this way.
    public static func run(_ arguments: [String], on terminal: Terminal) -> Int32? {
        Terminal.$current.withValue(terminal) {
            switch parse(arguments) {
            case .finished(let status):
                return status
            case .command(var command):
                if command is any AsyncParsableCommand { return nil }
                do {
                    try command.run()
                    return 0
                } catch {
                    return finish(error, arguments: arguments)
                }
            }
        }
    }

    private enum Parsed {
        case command(any ParsableCommand)
        case finished(Int32)
    }

    /// The command a line names, or the status it already ended with (a misspelt command, a usage error, `--help`).
    private static func parse(_ arguments: [String]) -> Parsed {
        if let unknown = CommandSuggestion.unknownCommand(in: arguments) {
            Output.report(unknown, json: arguments.contains("--json"))
            return .finished(ExitStatus.usage)
        }
        do {
            return .command(try DoseTapCommand.parseAsRoot(arguments))
        } catch {
            return .finished(finish(error, arguments: arguments))
        }
    }

    /// The exit status of a command that threw, with its message written where ArgumentParser would write it: help on
    /// stdout, a failure on stderr (or as a JSON error on stdout in `--json` mode).
    private static func finish(_ error: any Error, arguments: [String]) -> Int32 {
        if let code = error as? ExitCode { return code.rawValue }
        let status = DoseTapCommand.exitCode(for: error)
        if status != .success, arguments.contains("--json") {
            let usage = DoseError.invalidInput(field: "command line", problem: DoseTapCommand.message(for: error), allowed: "see `dosetap help`")
            Output.line(JSONValue(response: ErrorResponse(usage)).rendered())
            return ExitStatus.usage
        }
        let message = DoseTapCommand.fullMessage(for: error)
        if !message.isEmpty {
            if status == .success { Output.line(message) } else { Output.note(message) }
        }
        return status.rawValue
    }
}

/// Close misspellings of a command name get a suggestion instead of being read as `status` with a stray argument.
enum CommandSuggestion {
    static var names: [String] { DoseTapCommand.configuration.subcommands.map { $0._commandName } + ["help"] }

    /// The error for a first argument that is no command but close to one (edit distance ≤ 2), or nil.
    static func unknownCommand(in arguments: [String]) -> DoseError? {
        guard let first = arguments.first, !first.hasPrefix("-"), !names.contains(first) else { return nil }
        let ranked = names.map { ($0, distance(first.lowercased(), $0)) }.filter { $0.1 <= 2 }.sorted { $0.1 < $1.1 }
        guard let best = ranked.first else { return nil }
        return .invalidInput(
            field: "command", problem: "'\(first)' is not a command (did you mean `\(best.0)`?)",
            allowed: names.filter { $0 != "help" }.joined(separator: ", "))
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit ("does2" → "dose2").
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }
}
