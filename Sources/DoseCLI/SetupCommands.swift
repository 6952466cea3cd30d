import ArgumentParser
import DoseApp
import DoseCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `dosetap setup`: the five steps of first-run setup, asked in a terminal or given as flags.
struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Set up DoseTap in five steps: sleep schedule, medication, dose window, notifications, privacy.",
        discussion: """
            In a terminal each step is asked in turn, with the current value in brackets (Enter keeps it). For scripts, \
            give the answers as flags with --accept-disclaimer; an answer not given keeps its current value. Every answer \
            is checked as the setting it is (`dosetap settings`); a refused answer changes nothing. Safe to run again.
            """)
    @OptionGroup var options: GlobalOptions
    @Option(name: .customLong("bedtime"), help: "Usual bedtime, HH:mm.") var sleepStart: String?
    @Option(help: "Usual wake time, HH:mm.") var wakeTime: String?
    @Option(help: "When a new evening begins, HH:mm.") var prepTime: String?
    @Option(name: .customLong("time-zone"), help: "IANA time zone, e.g. Europe/Paris.") var timeZone: String?
    @Option(help: "The oxybate: xywav, xyrem, sodium_oxybate or lumryz (Lumryz is once nightly).") var product: String?
    @Option(help: "twice_nightly or once_nightly (XYWAV allows either; applies from the next Dose 1).") var regimen: String?
    @Option(name: .customLong("dose1"), help: "Dose 1 in grams, e.g. 2.25.") var dose1: String?
    @Option(name: .customLong("dose2"), help: "Dose 2 in grams, e.g. 2.25.") var dose2: String?
    @Option(help: "A titration plan from your prescriber: '2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g' (empty for none).")
    var titration: String?
    @Flag(help: "Keep titration steps that rise faster than the label's weekly increase: your prescriber set them.")
    var confirmFastTitration = false
    @Option(help: "Bottle concentration in mg/mL (500 for XYWAV, Xyrem and the generics).") var concentration: String?
    @Option(help: "One bottle's volume in mL.") var bottleMl: String?
    @Option(help: "Target minutes from Dose 1 to Dose 2: 165, 180, 195, 210 or 225.") var target: String?
    @Option(help: "Whether snoozing is allowed: true or false.") var allowSnoozing: String?
    @Option(help: "Snoozes a night, 1–5.") var maxSnoozes: String?
    @Option(help: "Seconds to undo an action: 3, 5, 7 or 10.") var undoWindow: String?
    @Option(help: "Whether reminders ring: true or false.") var reminders: String?
    @Option(help: "Minutes after which an unanswered wake alarm rings again, 0 (off) to 10.") var refire: String?
    @Flag(help: "Accept the disclaimer (shown by `dosetap setup` in a terminal): DoseTap is not a medical device.") var acceptDisclaimer = false

    /// The flags' answers by step.
    var flagAnswers: [SetupStep: [String: String]] {
        let given: [(SetupStep, String, String?)] = [
            (.sleepSchedule, "sleep_start", sleepStart), (.sleepSchedule, "wake_time", wakeTime), (.sleepSchedule, "prep_time", prepTime),
            (.sleepSchedule, "time_zone", timeZone), (.medication, "medication_product", product), (.medication, "regimen", regimen),
            (.medication, "dose1_g", dose1),
            (.medication, "dose2_g", dose2), (.medication, "titration", titration),
            (.medication, SetupWizard.fastTitrationAnswer, confirmFastTitration ? "yes" : nil),
            (.medication, "concentration_mg_per_ml", concentration), (.medication, "bottle_ml", bottleMl),
            (.doseWindow, "target_interval", target), (.doseWindow, "allow_snoozing", allowSnoozing), (.doseWindow, "max_snoozes", maxSnoozes),
            (.doseWindow, "undo_window_seconds", undoWindow), (.notifications, "reminders_enabled", reminders),
            (.notifications, "wake_alarm_refire_minutes", refire),
        ]
        var answers: [SetupStep: [String: String]] = [:]
        for (step, name, value) in given { if let value { answers[step, default: [:]][name] = value } }
        if acceptDisclaimer { answers[.privacy, default: [:]][SetupWizard.disclaimerAnswer] = "yes" }
        return answers
    }

    func run() throws {
        try Output.run(options) { context in
            let interactive = Terminal.current.inputIsTerminal && !options.json && !acceptDisclaimer
            let settings: DoseSettings
            if interactive {
                settings = try SetupConversation(app: context.app, prefilled: flagAnswers).run()
            } else {
                guard acceptDisclaimer else {
                    throw DoseError.invalidInput(
                        field: "accept-disclaimer",
                        problem:
                            "setup was not run in a terminal, and the disclaimer was not accepted "
                            + "(\(SetupWizard.disclaimer.joined(separator: " ").dropLast()))",
                        allowed: "--accept-disclaimer with the answers as flags, or `dosetap setup` in a terminal")
                }
                let answers = flagAnswers
                settings = try context.app.setup.run(SetupStep.allCases.map { ($0, answers[$0] ?? [:]) }, surface: "cli")
            }
            let summary = SetupText.summary(settings)
            if options.json {
                Output.line(JSONValue(dictionaryLiteral: ("setup_complete", true), ("summary", .strings(summary))).rendered())
            } else {
                Output.line("Setup complete.")
                for line in summary { Output.line("  " + line) }
            }
        }
    }
}

/// The questions of `dosetap setup` in a terminal: one step at a time, a refused step asked again.
struct SetupConversation {
    let app: UseCases
    let prefilled: [SetupStep: [String: String]]

    func run() throws -> DoseSettings {
        Output.line("DoseTap setup: five steps. Press Enter to keep the value in brackets.\n")
        var settings = try app.settings.current()
        for step in SetupStep.allCases {
            Output.line("Step \(step.rawValue) of 5 — \(step.title)")
            for line in SetupText.explanation(step, place: app.store.place, regimen: settings.regimen) { Output.line("  " + line) }
            // Set when a fast titration step is confirmed: the same answers are sent again, not asked again.
            var confirmedAnswers: [String: String]?
            while true {
                var answers = confirmedAnswers ?? prefilled[step] ?? [:]
                for name in step.answers where confirmedAnswers == nil && answers[name] == nil && name != SetupWizard.fastTitrationAnswer {
                    let current = SetupText.currentAnswer(name, settings: settings)
                    let prompt = SetupText.question(name) + (current.isEmpty ? ": " : " [\(current)]: ")
                    Terminal.current.write(prompt)
                    guard let line = Terminal.current.readLine() else {
                        throw DoseError.invalidInput(field: name, problem: "the input ended before setup finished", allowed: "an answer, or Enter")
                    }
                    let typed = line.trimmingCharacters(in: .whitespaces)
                    // Enter keeps a value; the regimen is kept by leaving it unanswered, so a product that brings its own
                    // (Lumryz, once nightly) is not refused for the regimen it replaces.
                    if !typed.isEmpty {
                        answers[name] = typed
                    } else if name != SetupWizard.disclaimerAnswer, name != SettingKey.regimen.rawValue {
                        answers[name] = current
                    }
                }
                confirmedAnswers = nil
                do {
                    settings = try app.setup.apply(step, answers: answers, surface: "cli")
                    Output.line("")
                    break
                } catch let error as DoseError {
                    // A step faster than the label is asked about once, in words; most plans never are.
                    if case .titrationTooFast = error, answers[SetupWizard.fastTitrationAnswer] == nil {
                        Output.line("  " + error.message { _ in nil })
                        Terminal.current.write("  " + SetupText.question(SetupWizard.fastTitrationAnswer) + ": ")
                        if Terminal.current.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" {
                            answers[SetupWizard.fastTitrationAnswer] = "yes"
                            confirmedAnswers = answers
                            continue
                        }
                    }
                    Output.line("  " + Output.flagWording(error) + " Please answer this step again.")
                }
            }
        }
        return settings
    }
}

/// Setup's words, shared by the terminal and the summary.
enum SetupText {
    static func question(_ answer: String) -> String {
        switch answer {
        case "sleep_start": "Usual bedtime (HH:mm)"
        case "wake_time": "Usual wake time (HH:mm)"
        case "prep_time": "A new evening begins at (HH:mm)"
        case "time_zone": "Time zone (IANA, e.g. Europe/Paris)"
        case "medication_product": "Product (" + RegimenCatalogue.entries.map(\.product).joined(separator: ", ") + ")"
        case "regimen": "Doses a night (" + DoseRegimen.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case "dose1_g": "Dose 1 in grams"
        case "dose2_g": "Dose 2 in grams (twice nightly)"
        case "titration": "Titration plan ('2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g', none for none)"
        case SetupWizard.fastTitrationAnswer: "Did your prescriber set these steps? Type yes to keep them, Enter to change the plan"
        case "concentration_mg_per_ml": "Bottle concentration (mg/mL)"
        case "bottle_ml": "One bottle holds (mL)"
        case "target_interval": "Target minutes after Dose 1 (165, 180, 195, 210, 225)"
        case "allow_snoozing": "Allow snoozing (yes/no)"
        case "max_snoozes": "Snoozes a night (1–5)"
        case "undo_window_seconds": "Seconds to undo (3, 5, 7, 10)"
        case "reminders_enabled": "Reminders ring (yes/no)"
        case "wake_alarm_refire_minutes": "Ring the wake alarm again after (minutes, 0 = off)"
        default: "Type yes to accept the disclaimer"
        }
    }

    static func currentAnswer(_ answer: String, settings: DoseSettings) -> String {
        switch answer {
        case "dose1_g": SetupWizard.grams(settings.dose1Milligrams)
        case "dose2_g": SetupWizard.grams(settings.dose2Milligrams)
        case SetupWizard.disclaimerAnswer: ""
        default: (try? settings.value(of: answer)) ?? ""
        }
    }

    static func explanation(_ step: SetupStep, place: String, regimen: DoseRegimen) -> [String] {
        switch step {
        case .sleepSchedule: return ["Nights are dated by the evening they start; the time zone dates them and shows every time."]
        case .medication:
            return [
                "Lumryz is once nightly; XYWAV twice nightly, or once nightly for idiopathic hypersomnia; Xyrem and the generics twice nightly.",
                "A change applies from your next Dose 1. The amounts count your supply down; they never change when a dose may be taken.",
            ]
        case .doseWindow:
            guard let window = regimen.window else {
                return ["\(RegimenWords.summary(regimen)): no Dose 2, so no window or wake alarm. These settings wait for a twice-nightly regimen."]
            }
            let (opens, closes) = (String(window.opensAfterMinutes), String(window.closesAfterMinutes))
            return [
                "\(RegimenWords.dose2Rule(window)):",
                "  0 ─── \(opens) ══════════ \(closes) ─── minutes after Dose 1",
                "        opens   window  closes",
                "The wake alarm rings at your target inside it. Snoozes are 10 minutes and stop 15 minutes before it closes.",
            ]
        case .notifications:
            return [
                "Reminders ring through `dosetap serve`: open pages, Web Push, ntfy, webhooks.",
                "Test every channel any time with `dosetap alarm test` (or Settings → Test alarm in the web app).",
            ]
        case .privacy: return SetupWizard.privacy(storedIn: place) + ["", "Disclaimer:"] + SetupWizard.disclaimer.map { "- " + $0 }
        }
    }

    /// What was set, a line a step.
    static func summary(_ settings: DoseSettings) -> [String] {
        return [
            "Schedule: bed \(settings.sleepStart), up \(settings.wakeTime), evening from \(settings.prepTime), \(settings.timeZoneID)",
            "Medication: \(RegimenWords.summary(settings.regimen)), \(settings.concentrationMgPerML) mg/mL, \(settings.bottleML) mL bottles",
            "Titration: " + (settings.titrationPlan.steps.isEmpty ? "none" : settings.titrationPlan.text),
            "Window: wake alarm \(settings.targetIntervalMinutes) min after Dose 1, "
                + (settings.allowSnoozing ? "up to \(settings.maxSnoozes) snoozes" : "no snoozing") + ", \(settings.undoWindowSeconds) s to undo",
            "Reminders: " + (settings.remindersEnabled ? "on" : "off")
                + (settings.wakeAlarmRefireMinutes > 0 ? ", wake alarm again after \(settings.wakeAlarmRefireMinutes) min" : ""),
        ]
    }
}

/// `dosetap supply`: the medication supply, refills and adjustments.
struct SupplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supply", abstract: "The oxybate supply: what is left, refills, adjustments.",
        subcommands: [Status.self, LogRefill.self, Adjust.self, Delete.self], defaultSubcommand: Status.self)

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "What is left, how many nights it lasts, when it runs out.")
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try Output.run(options, reading: true) { context in
                let report = try context.app.supply.report()
                if options.json {
                    Output.line(JSONValue(response: SupplyResponse(report)).rendered())
                    return
                }
                Output.line(SupplyText.summary(report))
                for entry in report.entries.reversed().prefix(10) {
                    Output.line("  " + SupplyLines.entry(entry, zone: report.timeZone))
                }
            }
        }
    }

    struct LogRefill: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "Log a refill: --bottles N (of the bottle_ml setting) or --ml X.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Bottles received.") var bottles: Int?
        @Option(help: "mL received, instead of bottles.") var ml: Double?
        @Option(help: "When it arrived: local HH:mm or ISO-8601 (default now).") var at: String?
        @Option(help: "A note, e.g. the pharmacy.") var reason: String?

        func run() throws {
            try Output.run(options) { context in
                let at = try context.occurrence(at, in: try context.app.settings.zone())
                let entry = try context.app.supply.logRefill(bottles: bottles, ml: ml, at: at, reason: reason)
                try SupplyLines.show(entry, context: context)
            }
        }
    }

    struct Adjust: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "adjust",
            abstract: "Correct the supply: --add ML, --remove ML (a spill), or --counted ML (what a count found), with --reason.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "mL to add.") var add: Double?
        @Option(help: "mL to remove (spilled, wasted).") var remove: Double?
        @Option(help: "mL a count of the bottles found.") var counted: Double?
        @Option(help: "Why (required).") var reason: String?
        @Option(help: "When: local HH:mm or ISO-8601 (default now).") var at: String?

        func run() throws {
            try Output.run(options) { context in
                let given = [add, remove, counted].compactMap { $0 }
                guard given.count == 1 else {
                    throw DoseError.invalidInput(
                        field: "adjust", problem: given.isEmpty ? "no amount was given" : "more than one amount was given",
                        allowed: "one of --add ML, --remove ML, --counted ML")
                }
                let at = try context.occurrence(at, in: try context.app.settings.zone())
                let change = add ?? remove.map { -$0 }
                if let remove, remove <= 0 {
                    throw DoseError.invalidInput(field: "remove", problem: "\(NumberText.plain(remove)) mL", allowed: "more than 0 mL")
                }
                let entry = try context.app.supply.adjust(changeML: change, countedML: counted, at: at, reason: reason)
                try SupplyLines.show(entry, context: context)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a supply entry logged by mistake (the audit log keeps it).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The entry's id (`dosetap supply status --json`).") var id: String
        @Flag(help: "Confirm the deletion.") var yes = false

        func run() throws {
            try Output.run(options, deleting: "a supply entry", confirmed: yes) { context in
                let entry = try context.app.supply.delete(id)
                try SupplyLines.show(entry, context: context, verb: "Deleted")
            }
        }
    }
}

/// The supply's lines in the terminal.
enum SupplyLines {
    static func entry(_ entry: InventoryEntry, zone: TimeZone) -> String {
        let when = "\(Supply.calendarDay(of: entry.occurredAt, in: zone)) \(LocalClock.hourMinute(entry.occurredAt, in: zone))"
        return "\(when)  \(SupplyText.entry(entry))" + (entry.reason.map { " — \($0)" } ?? "") + "  [\(entry.id)]"
    }

    static func show(_ entry: InventoryEntry, context: CommandContext, verb: String = "Logged") throws {
        let report = try context.app.supply.report()
        if context.options.json {
            Output.line(
                JSONValue(
                    dictionaryLiteral: ("entry", JSONValue(response: InventoryEntryResponse(entry))),
                    ("supply", JSONValue(response: SupplyResponse(report)))
                ).rendered())
        } else {
            Output.line("\(verb): " + Self.entry(entry, zone: report.timeZone))
            Output.line(SupplyText.summary(report))
        }
    }
}
