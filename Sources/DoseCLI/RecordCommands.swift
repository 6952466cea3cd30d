import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// A session date argument, checked.
func sessionDate(_ text: String, field: String = "date") throws(DoseError) -> SessionKey {
    guard let key = SessionKey(parsing: text) else {
        throw .invalidInput(field: field, problem: "'\(text)' is not a date", allowed: "a date YYYY-MM-DD such as 2026-11-21")
    }
    return key
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Past nights: doses, interval, outcome, events, naps and check-in.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "First night (YYYY-MM-DD).") var from: String?
    @Option(help: "Last night (YYYY-MM-DD).") var to: String?
    @Option(help: "Only these event types (repeatable or comma-separated), e.g. dose2,bathroom.") var type: [String] = []
    @Option(help: "Only these categories: dose, checkin, physical, sleep_cycle, mental, environment, custom.") var category: [String] = []
    @Option(help: "newest (default), oldest, az, za.") var sort = "newest"
    @Option(help: "Group by day (default), week, month or none.") var group = "day"
    @Option(help: "Nights per page (default 30).") var limit = 30
    @Option(help: "Page number (default 1).") var page = 1

    func run() throws {
        try Output.run(options, reading: true) { context in
            var query = HistoryQuery()
            query.from = try from.map { text throws(DoseError) in try sessionDate(text, field: "from") }
            query.to = try to.map { text throws(DoseError) in try sessionDate(text, field: "to") }
            query.types = Set(type.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
            query.categories = Set(
                try category.flatMap { $0.split(separator: ",") }.map { name throws(DoseError) in try HistoryCategory.named(String(name)) })
            query.sort = try choice(sort, field: "sort")
            query.grouping = try choice(group, field: "group")
            query.limit = limit
            query.page = page
            let result = try context.app.records.history(query)
            if options.json {
                Output.line(JSONValue(response: HistoryResponse(result)).rendered())
                return
            }
            let zone = try context.app.settings.zone()
            if result.totalNights == 0 {
                Output.line("No nights recorded yet.")
                return
            }
            let target = try context.app.settings.current().targetIntervalMinutes
            for group in result.groups {
                if query.grouping != .none, query.grouping != .day { Output.line("== \(group.label) ==") }
                for night in group.nights { HumanText.night(night, zone: zone, targetMinutes: target).forEach(Output.line) }
            }
            Output.line("Page \(result.page) of \(result.pageCount) (\(result.totalNights) nights). Times in \(zone.identifier).")
        }
    }
}

struct Session: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Show or delete one night.", subcommands: [Show.self, Delete.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Everything recorded for one night: by its id (session_id), or every night of a DATE.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The night's id (session_id, as history and status print it) or its date, YYYY-MM-DD.") var night: String
        func run() throws {
            try Output.run(options, reading: true) { context in
                let nights = try context.app.records.nights(named: night)
                if options.json {
                    Output.line(JSONValue(response: nights.map(NightResponse.init)).rendered())
                    return
                }
                let zone = try context.app.settings.zone()
                let target = try context.app.settings.current().targetIntervalMinutes
                for night in nights { HumanText.night(night, zone: zone, targetMinutes: target).forEach(Output.line) }
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete ended nights and every trace of them: one or more DATEs, or every night before --before DATE (Clear Old).",
            discussion:
                "Without --yes it only says what would be deleted. Tonight's open night, and a night whose dose is under 8 hours old, are "
                + "never deleted."
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The nights' dates, YYYY-MM-DD.") var dates: [String] = []
        @Option(help: "Delete every night dated before this date, YYYY-MM-DD.") var before: String?
        @Flag(help: "Confirm the deletion.") var yes = false
        func run() throws {
            try Output.run(json: options.json) {
                let selection = try selection()
                let context = try CommandContext.open(options)
                guard yes else {
                    let preview = try context.app.records.deletionPreview(selection)
                    throw DoseError.invalidInput(
                        field: "yes", problem: "deleting \(preview.words) cannot be undone", allowed: "add --yes to delete them")
                }
                let deleted = try context.app.records.deleteNights(selection, surface: "cli")
                if options.json {
                    let asked = dates.count == 1 ? try sessionDate(dates[0]) : nil
                    Output.line(JSONValue(response: DeletedNightsResponse(deleted, asked: asked)).rendered())
                } else {
                    Output.line("Deleted \(deleted.words), with their check-ins, pre-sleep logs and medication entries.")
                }
            }
        }

        private func selection() throws -> NightSelection {
            switch (dates.isEmpty, before) {
            case (false, nil): return .dates(try dates.map { try sessionDate($0) })
            case (true, let before?): return .before(try sessionDate(before, field: "before"))
            case (false, _?):
                throw DoseError.invalidInput(field: "before", problem: "given with dates", allowed: "either dates or --before DATE, not both")
            case (true, nil):
                throw DoseError.invalidInput(
                    field: "dates", problem: "no night was named", allowed: "one or more dates (YYYY-MM-DD), or --before DATE")
            }
        }
    }
}

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Read and change settings.", subcommands: [List.self, Get.self, Set.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every setting and its value.")
        @OptionGroup var options: GlobalOptions
        func run() throws {
            try Output.run(options, reading: true) { context in
                let settings = try context.app.settings.current()
                if options.json {
                    Output.line(JSONValue(response: SettingsResponse(settings)).rendered())
                    return
                }
                for (key, value) in settings.listing() { Output.line("\(key) = \(value)") }
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "One setting's value.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The key, e.g. target_interval or cooldown.bathroom.") var key: String
        func run() throws {
            try Output.run(options, reading: true) { context in
                let value = try context.app.settings.current().value(of: key)
                Output.line(options.json ? JSONValue(dictionaryLiteral: ("key", .string(key)), ("value", .string(value))).rendered() : value)
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change a setting; a value outside the allowed ones is refused.",
            discussion:
                "Keys: target_interval (165, 180, 195, 210, 225), max_snoozes (1–5), allow_snoozing, undo_window_seconds (3, 5, 7, 10), "
                + "time_zone, prep_time, sleep_start, wake_time (HH:mm), missed_checkin_cutoff_hours (1–12), reminders_enabled, cooldown.EVENT "
                + "(0–3600 s), medication_product, regimen, dose1_mg, dose2_mg, titration ('2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g', "
                + "empty for none), and the rest `settings list` shows."
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The key.") var key: String
        @Argument(help: "The new value.") var value: String
        @Option(help: "fast_titration: keep a titration step that rises faster than the label's weekly increase, as prescribed.")
        var confirm: [String] = []
        func run() throws {
            try Output.run(options) { context in
                let confirmations = try Confirmations.parse(confirm, allowed: SettingsBody.acceptedConfirmations, command: "settings set")
                let settings = try context.app.settings.update(key, to: value, confirmations: confirmations)
                if options.json {
                    Output.line(JSONValue(response: SettingsResponse(settings)).rendered())
                    return
                }
                Output.line("\(key) = \(try settings.value(of: key))")
            }
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export events.csv (SSOT CSV v1), the per-night analytics CSV, or the zip bundle of every table.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "csv (events.csv v1, default), analytics, sessions (sessions.csv: one row per night with the insights columns), or bundle.")
    var format = "csv"
    @Option(help: "Write to this file (owner-only, written atomically). Default: standard output; for a bundle, DoseTap_Export_YYYY-MM-DD.zip here.")
    var out: String?
    @Option(help: "Analytics and sessions: first night (YYYY-MM-DD).") var from: String?
    @Option(help: "Analytics and sessions: last night (YYYY-MM-DD).") var to: String?

    func run() throws {
        try Output.run(json: options.json) {
            let format: ExportFormat = try choice(self.format, field: "format")
            let context = try CommandContext.open(options, reading: true)
            let text: String
            switch format {
            case .bundle:
                let path = try out ?? context.app.transfer.bundleName()
                let counts = try context.app.transfer.exportBundle(to: path)
                if options.json {
                    Output.line(
                        JSONValue(
                            dictionaryLiteral: ("path", .string(path)), ("format", "bundle"),
                            ("rows", .object(counts.mapValues(JSONValue.int)))
                        ).rendered())
                } else {
                    Output.line("Wrote \(path): " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ".")
                }
                return
            case .csv:
                text = try context.app.transfer.eventsCSV()
            case .analytics:
                text = try context.app.transfer.analyticsCSV(
                    from: try from.map { value throws(DoseError) in try sessionDate(value, field: "from") },
                    to: try to.map { value throws(DoseError) in try sessionDate(value, field: "to") })
            case .sessions:
                text = try context.app.transfer.sessionsCSV(
                    from: try from.map { value throws(DoseError) in try sessionDate(value, field: "from") },
                    to: try to.map { value throws(DoseError) in try sessionDate(value, field: "to") })
            }
            guard let out else {
                Terminal.current.write(text)
                return
            }
            try SafeFile.write(text, to: out)
            let rows = CSV.dataRowCount(text)
            Output.show(
                json: options.json, JSONValue(dictionaryLiteral: ("path", .string(out)), ("rows", .int(rows)), ("format", .string(format.rawValue))),
                "Wrote \(rows) rows to \(out).")
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an export bundle (.zip), an events.csv, or the original app's database. All valid rows or none.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The file.") var file: String

    func run() throws {
        try Output.run(options) { context in
            let report = try context.app.transfer.importFile(at: file)
            if options.json {
                Output.line(JSONValue(response: ImportResponse(report)).rendered())
                return
            }
            Output.line("Imported \(report.importedTotal) rows, skipped \(report.skippedTotal), rejected \(report.rejected.count).")
            for (file, count) in report.imported.sorted(by: { $0.key < $1.key }) { Output.line("  \(file): \(count) imported") }
            for (file, count) in report.skipped.sorted(by: { $0.key < $1.key }) {
                Output.line("  \(file): \(count) skipped (\(report.skipReasons[file] ?? ""))")
            }
            for rejection in report.rejected { Output.line("  rejected \(rejection.file) row \(rejection.row): \(rejection.reason)") }
            for note in report.notes { Output.line("  \(note)") }
        }
    }
}

struct ClearAll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-all", abstract: "Delete all data, irreversibly. Needs --confirm \"\(AppDatabase.clearAllPhrase)\"")
    @OptionGroup var options: GlobalOptions
    @Option(help: "The exact phrase: \(AppDatabase.clearAllPhrase)") var confirm: String?

    func run() throws {
        try Output.run(json: options.json) {
            guard let confirm else {
                throw DoseError.invalidInput(
                    field: "confirm", problem: "Clear All Data deletes every night, setting and log and cannot be undone",
                    allowed: "--confirm \"\(AppDatabase.clearAllPhrase)\"")
            }
            let context = try CommandContext.open(options)
            let report = try context.app.transfer.clearAll(confirmation: confirm)
            let total = report.deleted.values.reduce(0, +)
            if options.json {
                Output.line(JSONValue(response: ClearAllResponse(report)).rendered())
            } else {
                Output.line("All data cleared: \(total) rows deleted; the database files were compacted and hold no trace of them.")
            }
        }
    }
}
