public import DoseCore
import Foundation
import GRDB
import ZIPFoundation

/// WHOOP's data export (the app's Profile → App Settings → Export Data): a zip of CSV files, of which two tell the
/// night. `sleeps.csv` has a row a sleep (naps included); `physiological_cycles.csv` a row a day, with the day's main
/// sleep and the recovery scored from it. Times are the local clock time of the cycle's zone (`Cycle timezone`, as
/// `UTC-04:00`). The CSV counts no disturbances (only WHOOP's API does), so a WHOOP night has no wake count.
public enum WhoopExport {
    /// The two files read, and what they are for.
    public enum File: String, Sendable, CaseIterable {
        case sleeps = "sleeps.csv"
        case cycles = "physiological_cycles.csv"
    }

    /// The columns both files share: the cycle and its sleep.
    static let sleepColumns = [
        "Cycle start time", "Cycle end time", "Cycle timezone", "Sleep onset", "Wake onset", "Sleep performance %", "Respiratory rate (rpm)",
        "Asleep duration (min)", "In bed duration (min)", "Light sleep duration (min)", "Deep (SWS) duration (min)", "REM duration (min)",
        "Awake duration (min)", "Sleep need (min)", "Sleep debt (min)", "Sleep efficiency %", "Sleep consistency %",
    ]
    /// The cycle's own readings, in `physiological_cycles.csv` only.
    static let recoveryColumns = [
        "Recovery score %", "Resting heart rate (bpm)", "Heart rate variability (ms)", "Skin temp (celsius)", "Blood oxygen %", "Day Strain",
        "Energy burned (cal)", "Max HR (bpm)", "Average HR (bpm)",
    ]

    /// The columns DoseTap reads from each file; a file lacking any is refused with their names.
    public static func requiredColumns(of file: File) -> [String] {
        let sleep = [
            "Cycle timezone", "Sleep onset", "Wake onset", "Sleep performance %", "Respiratory rate (rpm)", "Asleep duration (min)",
            "In bed duration (min)", "Light sleep duration (min)", "Deep (SWS) duration (min)", "REM duration (min)", "Awake duration (min)",
            "Sleep efficiency %",
        ]
        switch file {
        case .sleeps: return sleep + ["Nap"]
        case .cycles:
            return sleep + ["Recovery score %", "Resting heart rate (bpm)", "Heart rate variability (ms)", "Skin temp (celsius)", "Blood oxygen %"]
        }
    }

    /// Every column the export is known to have in each file (read or passed by); others are reported by name.
    static func knownColumns(of file: File) -> Set<String> {
        switch file {
        case .sleeps: Set(sleepColumns + ["Nap"])
        case .cycles: Set(sleepColumns + recoveryColumns)
        }
    }

    /// The source name WHOOP's sleeps are stored under (its word in the source priority is `whoop`).
    public static let source = "WHOOP"

    /// Which of the two files a CSV is, by its header: `Nap` marks the sleeps, `Recovery score %` the cycles.
    static func file(ofHeader header: [String]) -> File? {
        if header.contains("Nap") { return .sleeps }
        if header.contains("Recovery score %") { return .cycles }
        return nil
    }

    /// What the files say: one summary a sleep (a cycle's row and the sleeps' row of the same sleep joined), every
    /// unknown column by name, and the rows passed by (a cycle with no sleep yet). Any malformed row refuses all.
    public static func read(_ files: [File: String]) throws(DoseError) -> (sleeps: [SleepSummary], notes: [String], passedBy: Int) {
        var byBounds: [String: SleepSummary] = [:]
        var order: [String] = []
        var notes: [String] = []
        var passedBy = 0
        for file in File.allCases {
            guard let text = files[file] else { continue }
            let table: (header: [String], rows: [[String]])
            do throws(CSV.ParseError) {
                table = try CSV.parse(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text, maximumRows: 100_000)
            } catch {
                throw .invalidFile(problem: "\(file.rawValue) row \(error.row): \(error.problem)")
            }
            let header = table.header.map { $0.trimmingCharacters(in: .whitespaces) }
            let missing = requiredColumns(of: file).filter { !header.contains($0) }
            let unknown = header.filter { !knownColumns(of: file).contains($0) }
            guard missing.isEmpty else {
                let changed = unknown.isEmpty ? "" : "; it has columns DoseTap does not know: \(quoted(unknown))"
                throw .invalidFile(problem: "\(file.rawValue) lacks the columns \(quoted(missing))\(changed). Is it WHOOP's export, unchanged?")
            }
            guard Set(header).count == header.count else { throw .invalidFile(problem: "\(file.rawValue) names a column twice") }
            if !unknown.isEmpty { notes.append("\(file.rawValue): columns not read, unknown to DoseTap: \(quoted(unknown)).") }
            let index = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
            for (offset, values) in table.rows.enumerated() {
                let row = CSVRow(file: file, number: offset + 1, values: values, index: index)
                guard let summary = try row.summary() else {
                    passedBy += 1
                    continue
                }
                let key = "\(summary.start.timeIntervalSince1970)|\(summary.end.timeIntervalSince1970)"
                if let earlier = byBounds[key] {
                    byBounds[key] = earlier.filled(from: summary)
                } else {
                    byBounds[key] = summary
                    order.append(key)
                }
            }
        }
        return (order.compactMap { byBounds[$0] }, notes, passedBy)
    }

    static func quoted(_ names: [String]) -> String { names.map { "'\($0.prefix(80))'" }.joined(separator: ", ") }

    /// One data row of a CSV file, read by column name.
    struct CSVRow {
        let file: File
        let number: Int
        let values: [String]
        let index: [String: Int]

        func text(_ column: String) -> String { index[column].map { values[$0].trimmingCharacters(in: .whitespaces) } ?? "" }

        func refusal(_ column: String, _ allowed: String) -> DoseError {
            // The value itself is not quoted: it is health data, and messages reach logs.
            .invalidFile(problem: "\(file.rawValue) row \(number): '\(column)' is not \(allowed)")
        }

        /// A number in `range`, nil when the cell is empty.
        func number(_ column: String, _ range: ClosedRange<Double>, _ allowed: String) throws(DoseError) -> Double? {
            let text = text(column)
            if text.isEmpty { return nil }
            guard text.count <= 32, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }), let value = Double(text),
                value.isFinite, range.contains(value)
            else { throw refusal(column, allowed) }
            return value
        }

        /// The summary of the row's sleep; nil for a cycle with no sleep (the day under way, a day without the band).
        func summary() throws(DoseError) -> SleepSummary? {
            let onsetText = text("Sleep onset")
            let wakeText = text("Wake onset")
            if onsetText.isEmpty, wakeText.isEmpty { return nil }
            guard let offset = WhoopExport.offsetMinutes(text("Cycle timezone")) else {
                throw refusal("Cycle timezone", "a UTC offset such as UTC-04:00 (−18:00 to +18:00)")
            }
            guard let start = WhoopExport.instant(onsetText, offsetMinutes: offset) else {
                throw refusal("Sleep onset", "a local time YYYY-MM-DD HH:MM:SS")
            }
            guard let end = WhoopExport.instant(wakeText, offsetMinutes: offset) else {
                throw refusal("Wake onset", "a local time YYYY-MM-DD HH:MM:SS")
            }
            guard end > start, end.timeIntervalSince(start) <= 24 * 3600 else {
                throw .invalidFile(problem: "\(file.rawValue) row \(number): 'Wake onset' must come after 'Sleep onset', within 24 hours")
            }
            let minutes = "a number of minutes from 0 to 1440"
            var summary = SleepSummary(
                source: WhoopExport.source, start: start, end: end, offsetMinutes: offset,
                inBedMinutes: try number("In bed duration (min)", 0...1440, minutes),
                asleepMinutes: try number("Asleep duration (min)", 0...1440, minutes),
                lightMinutes: try number("Light sleep duration (min)", 0...1440, minutes),
                deepMinutes: try number("Deep (SWS) duration (min)", 0...1440, minutes),
                remMinutes: try number("REM duration (min)", 0...1440, minutes),
                awakeMinutes: try number("Awake duration (min)", 0...1440, minutes))
            let percent = "a percentage from 0 to 100"
            summary.recovery.sleepPerformancePercent = try number("Sleep performance %", 0...100, percent)
            summary.recovery.sleepEfficiencyPercent = try number("Sleep efficiency %", 0...100, percent)
            summary.recovery.respiratoryRate = try number("Respiratory rate (rpm)", 4...60, "breaths a minute from 4 to 60")
            switch file {
            case .sleeps:
                switch text("Nap").lowercased() {
                case "true": summary.isNap = true
                case "false", "": summary.isNap = false
                default: throw refusal("Nap", "true or false")
                }
            case .cycles:
                summary.recovery.recoveryPercent = try number("Recovery score %", 0...100, percent)
                summary.recovery.restingHeartRate = try number("Resting heart rate (bpm)", 20...250, "beats a minute from 20 to 250")
                summary.recovery.hrvMilliseconds = try number("Heart rate variability (ms)", 0...500, "milliseconds from 0 to 500")
                summary.recovery.skinTemperatureCelsius = try number("Skin temp (celsius)", 20...45, "°C from 20 to 45")
                summary.recovery.oxygenSaturationPercent = try number("Blood oxygen %", 50...100, "a percentage from 50 to 100")
            }
            return summary
        }
    }

    /// Minutes east of UTC from `UTC-04:00`, `UTC+05:30`, `UTC` or `-04:00`; nil otherwise or beyond ±18 hours.
    static func offsetMinutes(_ text: String) -> Int? {
        var rest = Substring(text)
        if rest.hasPrefix("UTC") { rest = rest.dropFirst(3) }
        if rest.isEmpty { return text == "UTC" ? 0 : nil }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }), let hours = Int(parts[0]),
            let minutes = Int(parts[1]),
            minutes < 60
        else { return nil }
        let total = hours * 60 + minutes
        guard total <= 18 * 60 else { return nil }
        return sign == "-" ? -total : total
    }

    /// The instant of a local time `YYYY-MM-DD HH:MM:SS` (seconds optional, `T` allowed between date and time) at a
    /// fixed offset, read as Apple Health's times are, and so kept to the years every stored instant is (1970–2999).
    static func instant(_ text: String, offsetMinutes: Int) -> Date? {
        var bytes = Array(text.utf8)
        if bytes.count == 16 { bytes += Array(":00".utf8) }
        guard bytes.count == 19, abs(offsetMinutes) <= 18 * 60 else { return nil }
        if bytes[10] == UInt8(ascii: "T") { bytes[10] = UInt8(ascii: " ") }
        let offset = abs(offsetMinutes)
        let zone =
            (offsetMinutes < 0 ? " -" : " +") + String(offset / 600) + String(offset / 60 % 10) + String(offset % 60 / 10) + String(offset % 10)
        return AppleHealthReader.instant(String(decoding: bytes, as: UTF8.self) + zone)?.date
    }
}

extension SleepSummary {
    /// This sleep with what `other` (the same sleep from the other file, or a later export) says where this says nothing.
    func filled(from other: SleepSummary) -> SleepSummary {
        var copy = self
        copy.offsetMinutes = offsetMinutes ?? other.offsetMinutes
        copy.isNap = isNap || other.isNap
        copy.inBedMinutes = inBedMinutes ?? other.inBedMinutes
        copy.asleepMinutes = asleepMinutes ?? other.asleepMinutes
        copy.lightMinutes = lightMinutes ?? other.lightMinutes
        copy.deepMinutes = deepMinutes ?? other.deepMinutes
        copy.remMinutes = remMinutes ?? other.remMinutes
        copy.awakeMinutes = awakeMinutes ?? other.awakeMinutes
        let (a, b) = (recovery, other.recovery)
        copy.recovery = WearableRecovery(
            recoveryPercent: a.recoveryPercent ?? b.recoveryPercent, sleepPerformancePercent: a.sleepPerformancePercent ?? b.sleepPerformancePercent,
            sleepEfficiencyPercent: a.sleepEfficiencyPercent ?? b.sleepEfficiencyPercent, restingHeartRate: a.restingHeartRate ?? b.restingHeartRate,
            hrvMilliseconds: a.hrvMilliseconds ?? b.hrvMilliseconds, respiratoryRate: a.respiratoryRate ?? b.respiratoryRate,
            oxygenSaturationPercent: a.oxygenSaturationPercent ?? b.oxygenSaturationPercent,
            skinTemperatureCelsius: a.skinTemperatureCelsius ?? b.skinTemperatureCelsius)
        return copy
    }
}

extension RecordImporter {
    /// Whether a zip is WHOOP's export: it holds one of the files WHOOP's export has (at its root or in a folder). Only
    /// the names are listed; nothing is extracted.
    static func isWhoopExportZip(_ path: String) -> Bool {
        let names: Set = ["sleeps.csv", "physiological_cycles.csv", "workouts.csv", "journal_entries.csv"]
        guard let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: nil) else { return false }
        return archive.contains { names.contains(fileName($0.path)) }
    }

    /// The file an entry of WHOOP's zip is, by its name; nil for the files not read (workouts, journal).
    static func whoopEntry(_ name: String) -> String? { WhoopExport.File(rawValue: fileName(name))?.rawValue }

    /// An entry's name without its folders: WHOOP's zip has its files at the root or in one folder.
    private static func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Whether a CSV's first line is WHOOP's (it starts with the cycle's start time).
    static func isWhoopCSV(_ head: Data) -> Bool {
        let text = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        return text.starts(with: Data("Cycle start time,".utf8))
    }

    /// Imports WHOOP's export: its zip, or `sleeps.csv` or `physiological_cycles.csv` alone. Each sleep is one row,
    /// identified by its bounds, so the same export again adds nothing, a newer one adds its new sleeps and fills in
    /// what the older one lacked (recovery scored later), and the two files of one export make one sleep. All or
    /// nothing: a malformed row refuses every row, naming its file, row and column.
    func importWhoop(at path: String) throws -> ImportReport {
        var files: [WhoopExport.File: String] = [:]
        let head = (FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 4) }) ?? Data()
        if head.starts(with: [0x50, 0x4B]) {
            for (name, text) in try BundleReader.read(path: path, what: "WHOOP's export", select: Self.whoopEntry) {
                if let file = WhoopExport.File(rawValue: name) { files[file] = text }
            }
            guard !files.isEmpty else {
                throw DoseError.invalidFile(
                    problem:
                        "WHOOP's zip holds neither sleeps.csv nor physiological_cycles.csv, the two files with the nights; export again with "
                        + "sleep included"
                )
            }
        } else {
            let text = try Self.readText(path, limit: ImportLimits.maximumFileBytes)
            let firstLine = text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
            let header = (try? CSV.parse(String(firstLine.hasPrefix("\u{FEFF}") ? firstLine.dropFirst() : firstLine)).header) ?? []
            guard let file = WhoopExport.file(ofHeader: header.map { $0.trimmingCharacters(in: .whitespaces) }) else {
                throw DoseError.invalidFile(
                    problem:
                        "\(URL(fileURLWithPath: path).lastPathComponent) starts as WHOOP's export but has neither a 'Nap' column (sleeps.csv) "
                        + "nor 'Recovery score %' (physiological_cycles.csv)"
                )
            }
            files[file] = text
        }
        let read = try WhoopExport.read(files)
        let now = ISO8601.string(clock.now)
        var report = ImportReport()
        report.notes = read.notes
        for summary in read.sleeps {
            let id = Self.whoopID(summary)
            if let stored = try records.wearableSummary(id: id) {
                let merged = stored.filled(from: summary)
                if merged == stored {
                    report.skippedRow("sleeps", because: "already imported (the same sleep)")
                } else {
                    try records.saveWearableSummary(merged, id: id, importedAt: now, replacing: true)
                    report.importedRow("sleeps filled in")
                }
            } else {
                try records.saveWearableSummary(summary, id: id, importedAt: now, replacing: false)
                report.importedRow("sleeps")
            }
        }
        if read.passedBy > 0 {
            report.notes.append("\(read.passedBy) cycles without a sleep (the day under way, or without the band) were passed by.")
        }
        if read.sleeps.isEmpty { report.notes.append("The export holds no sleeps: wear the band to bed, then export again.") }
        return report
    }

    /// A WHOOP sleep's id: the digest of its source and bounds, the same in every export.
    static func whoopID(_ summary: SleepSummary) -> String {
        digest(summary.source, ISO8601.string(summary.start), ISO8601.string(summary.end), prefix: "w-")
    }
}

/// `wearable_summaries` rows to and from `SleepSummary`.
enum WearableSummaryRow {
    static let columns = BundleFormats.wearableSummaryColumns
    /// The summary's figures, each a number or empty.
    static let figureColumns = [
        "in_bed_minutes", "asleep_minutes", "light_minutes", "deep_minutes", "rem_minutes", "awake_minutes", "recovery_percent",
        "sleep_performance_percent", "sleep_efficiency_percent", "resting_heart_rate", "hrv_ms", "respiratory_rate", "oxygen_saturation_percent",
        "skin_temp_celsius",
    ]

    static func fetch(id: String, _ db: Database) throws -> SleepSummary? {
        try Row.fetchOne(db, sql: "SELECT * FROM wearable_summaries WHERE id = ?", arguments: [id]).flatMap(summary)
    }

    /// Every stored sleep overlapping `from..<to`.
    static func overlapping(from: Date, to: Date, _ db: Database) throws -> [SleepSummary] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM wearable_summaries WHERE start_at < ? AND end_at > ? ORDER BY start_at, id",
            arguments: [ISO8601.string(to), ISO8601.string(from)]
        ).compactMap(summary)
    }

    static func summary(_ row: Row) -> SleepSummary? {
        summary(text: { row[$0] }, int: { row[$0] }, number: { row[$0] }, flag: { row[$0] })
    }

    /// A stored summary from its cells by column name, as either store reads them (instants as UTC text).
    static func summary(
        text: (String) throws -> String?, int: (String) throws -> Int?, number: (String) throws -> Double?, flag: (String) throws -> Bool
    ) rethrows -> SleepSummary? {
        guard let start = try text("start_at").flatMap(ISO8601.parse), let end = try text("end_at").flatMap(ISO8601.parse),
            let source = try text("source")
        else { return nil }
        return SleepSummary(
            source: source, start: start, end: end, offsetMinutes: try int("offset_minutes"), isNap: try flag("nap"),
            inBedMinutes: try number("in_bed_minutes"), asleepMinutes: try number("asleep_minutes"), lightMinutes: try number("light_minutes"),
            deepMinutes: try number("deep_minutes"), remMinutes: try number("rem_minutes"), awakeMinutes: try number("awake_minutes"),
            recovery: WearableRecovery(
                recoveryPercent: try number("recovery_percent"), sleepPerformancePercent: try number("sleep_performance_percent"),
                sleepEfficiencyPercent: try number("sleep_efficiency_percent"), restingHeartRate: try number("resting_heart_rate"),
                hrvMilliseconds: try number("hrv_ms"), respiratoryRate: try number("respiratory_rate"),
                oxygenSaturationPercent: try number("oxygen_saturation_percent"), skinTemperatureCelsius: try number("skin_temp_celsius")))
    }

    static func write(_ summary: SleepSummary, id: String, importedAt: String, replacing: Bool, _ db: Database) throws {
        let r = summary.recovery
        let values: [(any DatabaseValueConvertible)?] = [
            id, "whoop", summary.source, ISO8601.string(summary.start), ISO8601.string(summary.end), summary.offsetMinutes, summary.isNap,
            summary.inBedMinutes, summary.asleepMinutes, summary.lightMinutes, summary.deepMinutes, summary.remMinutes, summary.awakeMinutes,
            r.recoveryPercent, r.sleepPerformancePercent, r.sleepEfficiencyPercent, r.restingHeartRate, r.hrvMilliseconds, r.respiratoryRate,
            r.oxygenSaturationPercent, r.skinTemperatureCelsius, importedAt,
        ]
        try db.execute(
            sql:
                "INSERT \(replacing ? "OR REPLACE " : "")INTO wearable_summaries (\(columns.joined(separator: ", "))) VALUES "
                + "(\(databaseQuestionMarks(count: columns.count)))",
            arguments: StatementArguments(values))
    }
}
