import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// Runs a night action and prints the result. A refusal that one of `asking` would lift is asked about on a terminal
/// (the person answers y to confirm it); elsewhere it stays a refusal that names `--confirm`.
func perform(
    _ options: GlobalOptions, actionOptions: ActionOptions? = nil, confirmations: Set<ConfirmKind> = [], asking: Set<ConfirmKind> = [],
    _ makeAction: (CommandContext) throws -> NightAction
) throws {
    try Output.run(options) { context in
        var action = try makeAction(context)
        if let actionOptions {
            if let at = actionOptions.at {
                // Only a local HH:mm needs the zone; the settings read stays off the common path.
                let zone = try context.app.settings.zone()
                action.occurredAt = try ClockInput.occurrence(at, now: context.clock.now, timeZone: zone)
            }
            action.note = actionOptions.note
        }
        action.confirmations = confirmations
        let surface: AlarmSurface = action.source == .button ? .button : .cli
        let outcome: ActionOutcome
        do {
            outcome = try context.app.night.perform(action, from: surface)
        } catch let error as DoseError {
            guard let kind = error.confirm, asking.contains(kind), !options.json, Terminal.current.inputIsTerminal else { throw error }
            try Terminal.ask(error.message { _ in nil } + " \(Terminal.question(for: kind))")
            action.confirmations.insert(kind)
            outcome = try context.app.night.perform(action, from: surface)
        }
        if options.json {
            Output.line(JSONValue(response: ActionResponse(outcome)).rendered())
        } else {
            HumanText.action(outcome, zone: outcome.timeZone).forEach(Output.line)
        }
        // The rules never depend on setup; the person is told once (on stderr, so scripts' stdout stays clean).
        if try context.app.setup.shouldShowHint() {
            Output.note(
                "DoseTap has not been set up, so it is using the defaults (target \(outcome.settings.targetIntervalMinutes) min, zone "
                    + "\(outcome.timeZone.identifier)). "
                    + "Run `dosetap setup` to choose your schedule, medication and alarms. This note is shown once.")
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show tonight: phase, countdown, next step (the default command).")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Keep showing the night, counting down and ringing the bell at each planned reminder.")
    var watch = false

    @Option(help: ArgumentHelp("With --watch: number of updates (default: until stopped; 60 with --now).", visibility: .hidden))
    var ticks: Int?

    @Option(help: ArgumentHelp("With --watch: seconds between updates (default 1; 60 with --now, on the simulated clock).", visibility: .hidden))
    var interval: Int?

    func run() throws {
        try Output.run(options, reading: true) { context in
            if watch {
                try StatusWatch(context: context, ticks: ticks, interval: interval).run()
                return
            }
            let snapshot = try context.app.night.status()
            if options.json {
                Output.line(JSONValue(response: StatusResponse(snapshot.status)).rendered())
            } else {
                HumanText.status(snapshot.status, zone: snapshot.timeZone).forEach(Output.line)
            }
        }
    }
}

struct Dose1: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dose1", abstract: "Record Dose 1 (starts tonight's session).")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Option(help: "Record it although an oxybate dose was taken less than 8 hours ago: new_night (shift work, a changed schedule).")
    var confirm: [String] = []
    func run() throws {
        try Output.run(json: options.json) {
            let kinds = try Confirmations.parse(confirm, allowed: [.newNight], command: "dose1")
            try perform(options, actionOptions: action, confirmations: kinds) { _ in NightAction(.dose1) }
        }
    }
}

struct Dose2: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dose2",
        abstract: "Record Dose 2. Outside the window it is refused unless you confirm the risk (--confirm early|late|extra|after_skip).")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Option(help: "Confirm a risky Dose 2 by name: early, late, extra, after_skip. Repeatable or comma-separated.")
    var confirm: [String] = []
    func run() throws {
        try Output.run(json: options.json) {
            let kinds = try Confirmations.parse(confirm, allowed: [.early, .late, .extra, .afterSkip], command: "dose2")
            try perform(options, actionOptions: action, confirmations: kinds) { _ in NightAction(.dose2) }
        }
    }
}

struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip tonight's Dose 2.")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Option(help: "Why (optional).") var reason: String?
    func run() throws { try perform(options, actionOptions: action) { _ in NightAction(.skip(reason: reason)) } }
}

struct Snooze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Move the Dose 2 alarm 10 minutes later (only while the window is open).")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    func run() throws { try perform(options, actionOptions: action) { _ in NightAction(.snooze) } }
}

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Undo your last action, within the undo window (default 5 seconds).")
    @OptionGroup var options: GlobalOptions
    func run() throws { try perform(options) { _ in NightAction(.undo) } }
}

/// Questions asked on a terminal before a risky action; anywhere else the refusal names the flag instead.
extension Terminal {
    /// The yes/no question for a confirmation.
    static func question(for kind: ConfirmKind) -> String {
        switch kind {
        case .endNight: "End the night anyway?"
        default: "Record it anyway?"
        }
    }

    /// Asks on standard error; anything but y or yes leaves everything as it was, says `declined`, and exits as a refusal.
    static func ask(_ question: String, declined: String = "Nothing was recorded; the night goes on.") throws {
        Terminal.current.writeError("\(question) [y/N] ")
        let answer = Terminal.current.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            Output.note(declined)
            throw ExitCode(ExitStatus.refused)
        }
    }
}

/// `--confirm end_night`, for the commands that can end a night while Dose 2 is undecided (D16).
struct EndNightConfirmation: ParsableArguments {
    @Option(
        name: .customLong("confirm"),
        help: "end_night: end the night although Dose 2 is neither taken nor skipped (asked on a terminal; needed elsewhere).")
    var values: [String] = []

    func parse(_ command: String) throws(DoseError) -> Set<ConfirmKind> {
        try Confirmations.parse(values, allowed: [.endNight], command: command)
    }
}

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract:
            "Log a sleep event: bathroom, water, snack, in_bed, lights_out, wake_temp, nap_start, nap_end, anxiety, dream, heart_racing, "
            + "noise, temperature, pain."
    )
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Argument(help: "The event, by wire name, camelCase name or label (\"Brief Wake\").") var event: String
    @OptionGroup var endNight: EndNightConfirmation
    func run() throws {
        try Output.run(json: options.json) {
            let kinds = try endNight.parse("log")
            try perform(options, actionOptions: action, confirmations: kinds, asking: [.endNight]) { _ in NightAction(.log(event: event)) }
        }
    }
}

struct Wake: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake", abstract: "Log your final wake-up; tonight's doses end and the check-in is next.",
        discussion: """
            Within 2 hours of Dose 2 (or a skip) it asks first on a terminal; elsewhere it needs --yes. While Dose 2 is \
            neither taken nor skipped it ends the night only when confirmed: asked on a terminal, --confirm end_night elsewhere.
            """)
    @OptionGroup var options: GlobalOptions
    @OptionGroup var action: ActionOptions
    @Flag(help: "Log it without asking, even within 2 hours of Dose 2 or a skip.") var yes = false
    @OptionGroup var endNight: EndNightConfirmation

    func run() throws {
        try Output.run(json: options.json) { try record(endNight.parse("wake")) }
    }

    private func record(_ kinds: Set<ConfirmKind>) throws {
        try perform(options, actionOptions: action, confirmations: kinds, asking: [.endNight]) { context in
            if !yes, action.at == nil {
                // D15: a wake-up this soon after Dose 2 is more often a bathroom trip than the morning; ask first.
                let snapshot = try context.app.night.status()
                if let question = snapshot.status.earlyWakeQuestion(in: snapshot.timeZone) { try Self.ask(question, json: options.json) }
            }
            return NightAction(.wake)
        }
    }

    /// Asks on a terminal; anywhere else the question becomes a refusal that names `--yes`.
    static func ask(_ question: String, json: Bool) throws {
        guard !json, Terminal.current.inputIsTerminal else {
            throw DoseError.invalidInput(
                field: "--yes", problem: "\(question) Nothing was logged",
                allowed: "`dosetap wake --yes` if you are up for the day")
        }
        try Terminal.ask(question, declined: "Not logged. Sleep well.")
    }
}

/// An enum answer by its snake_case or camelCase name, or an error listing the choices.
func choice<Value: RawRepresentable & CaseIterable>(_ text: String, field: String) throws(DoseError) -> Value where Value.RawValue == String {
    let key = SleepEventCatalogue.normalize(text)
    guard let value = Value.allCases.first(where: { $0.rawValue == key }) else {
        throw .invalidInput(field: field, problem: "'\(text)' is not a choice", allowed: Value.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return value
}

struct Press: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "press",
        abstract: "A button press: single = the next dose the night allows, double = snooze, hold = undo. Never confirms a risky dose.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "single, double or hold.") var kind: String
    func run() throws {
        try perform(options) { context in
            guard let press = ButtonPress(rawValue: kind.lowercased()) else {
                throw DoseError.invalidInput(field: "press", problem: "'\(kind)' is not a press", allowed: "single, double, hold")
            }
            return press.action(given: try context.app.night.status().status)
        }
    }
}

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a dosetap:// link: dose1, dose2, snooze, log?event=NAME&notes=TEXT. Same rules, never auto-confirmed.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The link.") var url: String
    func run() throws { try perform(options) { _ in try DoseLink.action(from: url) } }
}
