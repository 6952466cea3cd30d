import ArgumentParser
import DoseApp
import DoseCore
import Foundation

/// `dosetap`: every night action from the terminal (SPEC §5.1).
struct DoseTapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dosetap",
        abstract: "Times Dose 2 of a split-night medication, refuses unsafe doses, and logs the night.",
        discussion: "DoseTap is a timing and logging aid, not medical advice. Follow your prescriber's instructions.",
        subcommands: [
            Status.self, Dose1.self, Dose2.self, Skip.self, Snooze.self, Undo.self, Log.self, Wake.self, CheckIn.self,
            PreSleep.self, Med.self, History.self, Session.self, Event.self, Settings.self, Export.self, Import.self, ClearAll.self, Press.self, Open.self, Device.self, Serve.self, ServiceCommand.self,
        ],
        defaultSubcommand: Status.self)

}

/// The entry point of the `dosetap` executable.
public enum DoseTapCLI {
    /// Parses the command line, runs it and exits with the SPEC §4 code. Usage errors in `--json` mode print a JSON error.
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        do {
            var command = try DoseTapCommand.parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let status = DoseTapCommand.exitCode(for: error)
            if status != .success, arguments.contains("--json") {
                let usage = DoseError.invalidInput(field: "command line", problem: DoseTapCommand.message(for: error), allowed: "see `dosetap help`")
                print(Wire.error(usage).rendered())
                Foundation.exit(ExitStatus.usage)
            }
            DoseTapCommand.exit(withError: error)
        }
    }
}
