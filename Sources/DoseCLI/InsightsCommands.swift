import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import DoseStore
import Foundation

/// The period options every insights command shares: `--nights 7|30|90`, or `--from`/`--to`.
struct PeriodOptions: ParsableArguments {
    @Option(help: "The last 7, 30 or 90 nights (default 30).") var nights: Int?
    @Option(help: "First night of a custom range (YYYY-MM-DD).") var from: String?
    @Option(help: "Last night of a custom range (YYYY-MM-DD; default tonight).") var to: String?

    func insights(_ context: CommandContext) throws -> InsightsResult {
        try context.app.insights.insights(nights: nights, from: try parsed(from, "from"), to: try parsed(to, "to"))
    }

    /// The clinician report of the period, and the figures it shows.
    func report(_ context: CommandContext, paper: ClinicianReport.Paper) throws -> (html: String, result: InsightsResult) {
        let app = context.app
        return try ClinicianReport.html(
            app.insights, nights: nights, from: try parsed(from, "from"), to: try parsed(to, "to"), paper: paper, generatedAt: app.clock.now,
            zone: app.clock.zone(try app.settings.current()))
    }

    private func parsed(_ text: String?, _ field: String) throws(DoseError) -> SessionKey? {
        try text.map { text throws(DoseError) in try sessionDate(text, field: field) }
    }
}

struct InsightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract: "Adherence, the interval, natural wake, WASO estimate, wellness, patterns and the weekly planner for a period.")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var period: PeriodOptions

    func run() throws {
        try Output.run(options, reading: true) { context in
            let result = try period.insights(context)
            if options.json {
                Output.line(JSONValue(response: InsightsResponse(result.insights, planner: result.planner)).rendered())
                return
            }
            InsightsText.lines(result).forEach(Output.line)
        }
    }
}

/// `dosetap insights` in words.
enum InsightsText {
    static func lines(_ result: InsightsResult) -> [String] {
        let insights = result.insights
        var lines = [
            "\(insights.period.label) (\(insights.period.from) to \(insights.period.to)): \(insights.nightsRecorded) nights recorded, "
                + "\(insights.adherence.nights.count) with Dose 1."
        ]
        if insights.state == .insufficientData {
            let needed = insights.adherence.nightsNeeded
            lines.append("Not enough nights yet (insufficient_data): \(needed) more night\(needed == 1 ? "" : "s") with Dose 1 needed.")
        }
        for figure in InsightFigure.all(insights) {
            lines.append("\(figure.name): \(figure.value)" + (figure.note.map { " (\($0))" } ?? ""))
        }
        lines.append("Weekly planner: \(result.planner.reason)")
        if result.planner.isChange {
            lines.append("  To apply it: dosetap planner apply \(result.planner.suggestedMinutes) --yes  (\(PlannerSuggestion.safetyWarning))")
        }
        let shown = insights.shownCorrelations.compactMap(\.sentence)
        lines.append(shown.isEmpty ? "Patterns: none yet (each needs \(FactorComparison.minimumNights) nights on both sides)." : "Patterns:")
        lines += shown.map { "  \($0)" }
        if !shown.isEmpty { lines.append("  \(FactorComparison.caveat)") }
        for medication in insights.medications {
            lines.append("Other medication: \(medication.name), \(medication.nightsTaken) of \(insights.nightsRecorded) nights")
        }
        lines += insights.notable.map { "Notable \($0.date): \($0.text)" }
        return lines
    }
}

struct Planner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "planner", abstract: "The weekly planner: show its target suggestion, or apply it after confirming.",
        subcommands: [PlannerShow.self, PlannerApply.self], defaultSubcommand: PlannerShow.self)
}

struct PlannerShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "The suggestion and its reason.")
    @OptionGroup var options: GlobalOptions

    func run() throws {
        try Output.run(options, reading: true) { context in
            let suggestion = try context.app.insights.insights().planner
            let response = PlannerResponse(suggestion)
            Output.show(json: options.json, response, response.words)
        }
    }
}

struct PlannerApply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Change the target interval to the planner's suggestion (audited). Needs --yes: \(PlannerSuggestion.safetyWarning)")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The suggested target in minutes (one of 165, 180, 195, 210, 225), as `planner show` gives it.") var minutes: Int
    @Flag(help: "Confirm that you have read the warning and your prescriber agrees.") var yes = false

    func run() throws {
        try Output.run(options) { context in
            let applied = try context.app.insights.applyPlanner(minutes: minutes, confirmed: yes)
            let response = PlannerResponse(applied.suggestion, applied: applied.settings.targetIntervalMinutes)
            Output.show(json: options.json, response, response.words)
        }
    }
}

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the clinician report: one self-contained, printable HTML file (and a PDF with --pdf, through headless Chromium).")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var period: PeriodOptions
    @Option(help: "Where to write the HTML (owner-only, written atomically).") var out: String
    @Option(help: "Paper for printing: a4 (default) or letter.") var paper = "a4"
    @Flag(help: "Also print it to PDF beside the HTML (same name, .pdf) with headless Chromium.") var pdf = false

    func run() throws {
        try Output.run(options, reading: true) { context in
            let paper = try ClinicianReport.Paper.named(self.paper)
            let (html, result) = try period.report(context, paper: paper)
            try SafeFile.write(html, to: out)
            var pdfPath: String?
            if pdf {
                let target = URL(fileURLWithPath: out).deletingPathExtension().appendingPathExtension("pdf").path
                try PDFPrinter.print(htmlAt: out, to: target, app: context.app, variables: Terminal.current.environment)
                pdfPath = target
            }
            let figures = result.insights.adherence
            let onTarget = figures.percent(.onTarget).map { "\(Correlation.decimal($0, places: 1))%" } ?? "—"
            let words =
                "Wrote \(out) (\(result.insights.period.from) to \(result.insights.period.to), \(result.insights.nightsRecorded) nights, on "
                + "target \(onTarget))"
                + (pdfPath.map { " and \($0)" } ?? "") + "."
            Output.show(
                json: options.json,
                JSONValue(
                    dictionaryLiteral: ("path", .string(out)), ("pdf", pdfPath.map(JSONValue.string) ?? .null),
                    ("from", .string(result.insights.period.from.description)), ("to", .string(result.insights.period.to.description)),
                    ("nights", .int(result.insights.nightsRecorded)), ("on_target_percent", figures.percent(.onTarget).map(JSONValue.double) ?? .null)
                ),
                words)
        }
    }
}
