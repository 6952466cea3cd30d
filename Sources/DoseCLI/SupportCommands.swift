import ArgumentParser
import DoseApp
import DoseCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `dosetap support-bundle`: the redacted diagnostic zip, written only after its review.
struct SupportBundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "support-bundle",
        abstract: "A redacted diagnostic zip to send when asking for help: you see every file before it is written.",
        discussion: """
            Notes are left out, ids become pseudonyms, times move so the first night falls on 2000-01-01, other \
            medications are named by class, and the diagnostic log holds no health data, names, tokens or addresses. \
            In a terminal it shows every file and asks; --review only shows them; --yes confirms in advance for scripts \
            (the review then goes to stderr).
            """)
    @OptionGroup var options: GlobalOptions
    @Option(help: "Where to write the zip.") var out: String
    @Flag(help: "Show every file and its redacted content on stdout, and write nothing.") var review = false
    @Flag(help: "Confirm in advance; the review is printed to stderr.") var yes = false
    @Flag(help: "Also include the raw, unredacted database (a warning is shown first).") var includeDatabase = false

    func run() throws {
        try Output.run(json: options.json) {
            if review && yes {
                throw DoseError.invalidInput(
                    field: "review", problem: "given with --yes", allowed: "--review to read the bundle, or --yes to write it")
            }
            let context = try CommandContext.open(options)
            let folder = try context.dataFolder
            let bundle = try context.app.support.bundle(diagnosticLog: DiagnosticLogFile.read(in: folder), version: AppVersion.current)
            if review {
                Terminal.current.write(bundle.review)
                Output.line("\nNothing was written. To write it: dosetap support-bundle --out \(out) --yes")
                return
            }
            let warning = includeDatabase ? "\nWarning: \(SupportService.databaseWarning)\n" : ""
            if yes {
                Terminal.current.writeError(bundle.review + warning)
            } else {
                guard Terminal.current.inputIsTerminal, !options.json else {
                    throw DoseError.invalidInput(
                        field: "yes", problem: "the bundle has not been reviewed",
                        allowed: "--review to read every file first, then --yes to write it (or run it in a terminal to be asked)")
                }
                Terminal.current.line(bundle.review + warning)
                let question = "Write \(out) with \(includeDatabase ? "these files and the raw database" : "these files")? Type yes to write it: "
                Terminal.current.write(question)
                guard Terminal.current.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                    throw DoseError.invalidInput(
                        field: "confirm", problem: "the bundle was not confirmed", allowed: "yes, to write it; nothing was written")
                }
            }
            try context.app.support.write(bundle, to: out, includeDatabase: includeDatabase)
            let names = bundle.files.map(\.name) + (includeDatabase ? [SupportService.databaseFileName] : [])
            if options.json {
                Output.line(JSONValue(dictionaryLiteral: ("written", .string(out)), ("files", .strings(names))).rendered())
            } else {
                Output.line("Wrote \(out): \(names.joined(separator: ", ")).")
            }
        }
    }
}
