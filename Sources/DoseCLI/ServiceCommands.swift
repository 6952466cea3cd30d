import ArgumentParser
import DoseApp
import DoseCore
import Foundation

/// `dosetap service`: runs the server under a supervisor, so that it is back within seconds if it ever dies.
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service", abstract: "Keep `dosetap serve` running under systemd.", subcommands: [Install.self, Template.self])

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install",
            abstract: "Write a systemd user unit that runs `dosetap serve` and restarts it within seconds if it stops.",
            discussion: "Arguments after `--` are passed to `serve`, e.g. `dosetap service install --user -- --host 0.0.0.0 --webhook URL`.")
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Install for the current user (~/.config/systemd/user); the only kind DoseTap writes.") var user = false
        @Flag(name: .customLong("print"), help: "Print the unit instead of writing it.") var printOnly = false
        @Option(help: "Folder to write the unit into (default $XDG_CONFIG_HOME/systemd/user or ~/.config/systemd/user).") var unitDir: String?
        @Argument(parsing: .postTerminator, help: "Options for `dosetap serve`.") var serveArguments: [String] = []

        func run() throws {
            try Output.run(json: options.json) {
                guard user else {
                    throw DoseError.invalidInput(
                        field: "user", problem: "only user units are written",
                        allowed: "--user (a system-wide unit is described in docs/RELIABILITY.md)")
                }
                let environment = Terminal.current.environment
                let database = URL(fileURLWithPath: DatabaseLocation.resolve(flag: options.db, environment: environment)).standardizedFileURL.path
                var arguments = ["--db", database]
                if let tz = options.tz {
                    // As given once known: Foundation names UTC "GMT", which `--tz` would then refuse when the unit starts.
                    _ = try ClockInput.timeZone(tz)
                    arguments += ["--tz", tz]
                }
                let unit = ServiceUnit.systemdUser(executable: Self.executablePath(), serveArguments: arguments + serveArguments)
                if printOnly {
                    Output.line(options.json ? JSONValue(dictionaryLiteral: ("unit", .string(unit))).rendered() : unit)
                    return
                }
                let home = environment["HOME"] ?? NSHomeDirectory()
                let folder = unitDir ?? environment["XDG_CONFIG_HOME"].map { $0 + "/systemd/user" } ?? home + "/.config/systemd/user"
                let path = URL(fileURLWithPath: folder).appendingPathComponent(ServiceUnit.fileName).path
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    try Data(unit.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw DoseError.invalidInput(field: "unit-dir", problem: "cannot write \(path)", allowed: "a writable folder")
                }
                if options.json {
                    Output.line(JSONValue(dictionaryLiteral: ("unit_path", .string(path)), ("database", .string(database))).rendered())
                } else {
                    Output.line(
                        """
                        Wrote \(path).
                        Start it now and at every boot:
                          systemctl --user daemon-reload && systemctl --user enable --now dosetap.service
                        Keep it running while you are logged out:
                          loginctl enable-linger "$USER"
                        It restarts within \(ServiceUnit.restartSeconds) seconds if it ever stops; reminders missed meanwhile are shown on Tonight.
                        """)
                }
            }
        }

        /// This executable's absolute path (systemd needs one).
        static func executablePath() -> String { ServiceCommand.executablePath() }
    }

    /// `dosetap service template`: the system-wide unit for several instances of a hosted store (docs/DEPLOY.md).
    struct Template: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "template",
            abstract: "Write the systemd template unit dosetap-serve@.service: one instance of a hosted store per port, behind a proxy.",
            discussion: "Each instance reads the store and its public address from \(ServiceUnit.templateEnvironmentFile); see docs/DEPLOY.md.")
        @Flag(name: .customLong("print"), help: "Print the unit instead of writing it.") var printOnly = false
        @Flag(help: "Print machine-readable JSON on stdout.") var json = false
        @Option(help: "Folder to write the unit into (default /etc/systemd/system).") var unitDir = "/etc/systemd/system"

        func run() throws {
            try Output.run(json: json) {
                let unit = ServiceUnit.systemdTemplate(executable: ServiceCommand.executablePath())
                if printOnly {
                    Output.line(json ? JSONValue(dictionaryLiteral: ("unit", .string(unit))).rendered() : unit)
                    return
                }
                let path = URL(fileURLWithPath: unitDir).appendingPathComponent(ServiceUnit.templateFileName).path
                do {
                    try FileManager.default.createDirectory(atPath: unitDir, withIntermediateDirectories: true)
                    try Data(unit.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw DoseError.invalidInput(field: "unit-dir", problem: "cannot write \(path)", allowed: "a writable folder (as root for /etc)")
                }
                Output.line(
                    json
                        ? JSONValue(dictionaryLiteral: ("unit_path", .string(path))).rendered()
                        : """
                        Wrote \(path).
                        Put the store and the public address in \(ServiceUnit.templateEnvironmentFile) (see the unit's first lines), then:
                          systemctl daemon-reload && systemctl enable --now dosetap-serve@8081 dosetap-serve@8082
                        """)
            }
        }
    }
}

extension ServiceCommand {
    /// This executable's absolute path (systemd needs one).
    static func executablePath() -> String {
        let link = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if link != "/proc/self/exe" { return link }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }
}
