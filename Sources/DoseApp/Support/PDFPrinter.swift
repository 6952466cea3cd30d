import DoseCore
public import Foundation

/// Prints the clinician report to PDF with a headless Chromium, the one program here that lays out print CSS faithfully:
/// for `dosetap report --pdf` and the report page's PDF download.
public enum PDFPrinter {
    /// The programs tried, in order; `DOSETAP_CHROMIUM` names another.
    public static let candidates = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// The Chromium to use, from the environment `variables` (`DOSETAP_CHROMIUM`, then `PATH`), or nil when none is installed.
    public static func chromium(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let chosen = variables["DOSETAP_CHROMIUM"] {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        let folders = (variables["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in candidates {
            for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) { return folder + "/" + name }
        }
        return nil
    }

    /// Whether this machine can print a PDF.
    public static func available(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> Bool { chromium(variables) != nil }

    /// The PDF of the report `html`, printed in a scratch folder only this user can read.
    public static func pdf(html: String, app: UseCases, variables: [String: String] = ProcessInfo.processInfo.environment) throws -> Data {
        try app.inScratchFolder("dosetap-pdf") { work in
            let page = work.appendingPathComponent("report.html")
            guard FileManager.default.createFile(atPath: page.path, contents: Data(html.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw DoseError.invalidFile(problem: "the report could not be written to print it")
            }
            return try printed(page.path, in: work, variables: variables)
        }
    }

    /// Prints the HTML file at `html` to `pdf` (0600, like the HTML).
    public static func print(htmlAt html: String, to pdf: String, app: UseCases, variables: [String: String]) throws {
        let bytes = try app.inScratchFolder("dosetap-pdf") { work in try printed(html, in: work, variables: variables, kept: html) }
        try? FileManager.default.removeItem(atPath: pdf)
        guard FileManager.default.createFile(atPath: pdf, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw DoseError.invalidFile(problem: "the PDF could not be written to \(pdf)")
        }
    }

    /// Chromium's PDF of the HTML file at `html`, printed inside `work` (its profile and output stay there). `kept` is where
    /// the HTML report stays when no PDF can be made, for the refusal to say.
    static func printed(_ html: String, in work: URL, variables: [String: String], kept: String? = nil) throws -> Data {
        guard let program = chromium(variables) else {
            throw DoseError.invalidInput(
                field: "pdf",
                problem: "a PDF needs Chromium, and none was found (looked for \(candidates.joined(separator: ", ")) on PATH, or DOSETAP_CHROMIUM)",
                allowed: "install Chromium (on Debian: apt-get install chromium), or print the HTML report from a browser"
                    + (kept.map { "; the HTML report was written to \($0)" } ?? ""))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        let printed = work.appendingPathComponent("report.pdf")
        process.arguments = [
            "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--user-data-dir=\(work.appendingPathComponent("profile").path)",
            "--no-pdf-header-footer", "--print-to-pdf=\(printed.path)", URL(fileURLWithPath: html).absoluteString,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let bytes = FileManager.default.contents(atPath: printed.path) else {
            throw DoseError.invalidFile(problem: "Chromium (\(program)) could not print the report to PDF (exit \(process.terminationStatus))")
        }
        return bytes
    }
}
