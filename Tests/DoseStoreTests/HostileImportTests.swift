import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing
import ZIPFoundation

@testable import DoseStore

/// One way to spoil a valid bundle.
enum Spoil: Sendable, CustomTestStringConvertible {
    /// Replace a CSV's header.
    case header(file: String, how: String)
    /// Change one field of the first data row.
    case field(file: String, column: String, value: String)
    /// Damage the CSV text itself.
    case text(file: String, how: String)
    /// Damage the archive.
    case archive(how: String)

    var testDescription: String {
        switch self {
        case .header(let file, let how): "\(file): header \(how)"
        case .field(let file, let column, let value): "\(file): \(column) = \(value.debugDescription)"
        case .text(let file, let how): "\(file): \(how)"
        case .archive(let how): "archive: \(how)"
        }
    }
}

@Suite("Hostile imports are refused before anything is written")
struct HostileImportTests {
    static let csvFiles = [
        "sessions.csv", "dose_events.csv", "sleep_events.csv", "morning_checkins.csv", "pre_sleep_logs.csv", "medication_events.csv", "audit_log.csv",
    ]

    /// Columns holding instants, whole numbers, numbers, enums, dates, zones and JSON, per file, with a bad value each.
    static let badFields: [(String, String, [String])] = [
        (
            "sessions.csv", "started_at",
            ["yesterday", "2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z", "2026-11-22 06:30:00", "2026-11-22T06:30:00.000+01:00"]
        ),
        ("sessions.csv", "session_date", ["2026/11/21", "21-11-2026", "2026-02-30", "tonight"]),
        ("sessions.csv", "time_zone", ["Mars/Olympus", "EST5EDT5"]),
        ("sessions.csv", "end_reason", ["bored", "CHECKIN"]),
        ("sessions.csv", "terminal_state", ["done", "Completed"]),
        ("sessions.csv", "snooze_count", ["three", "1.5", "0x3"]),
        ("sessions.csv", "id", [""]),
        ("dose_events.csv", "event_type", ["dose_1", "dose3", "DOSE1", "skip"]),
        ("dose_events.csv", "source", ["robot", "USER", "watch"]),
        ("dose_events.csv", "occurred_at", ["now", "2026-11-22T25:00:00.000Z", "1700000000"]),
        ("dose_events.csv", "recorded_at", ["", "2026-11-22"]),
        ("dose_events.csv", "utc_offset_minutes", ["-300.5", "east", "5000"]),
        ("dose_events.csv", "metadata", ["{not json", "[1,2"]),
        ("dose_events.csv", "note", [String(repeating: "n", count: 501)]),
        ("sleep_events.csv", "category", ["sleepy", "Physical"]),
        ("sleep_events.csv", "occurred_at", ["2026-11-22T06:30:00Z", "tomorrow"]),
        ("sleep_events.csv", "time_zone", ["Nowhere/City"]),
        ("sleep_events.csv", "source", ["flic"]),
        ("morning_checkins.csv", "sleep_quality", ["0", "6", "three"]),
        ("morning_checkins.csv", "feel_rested", ["Moderately", "very well"]),
        ("morning_checkins.csv", "grogginess", ["Mild", "cantFunction"]),
        ("morning_checkins.csv", "mood", ["Very Low", "happy"]),
        ("morning_checkins.csv", "mental_clarity", ["11", "-1"]),
        ("morning_checkins.csv", "wellness_score", ["101", "-5"]),
        ("morning_checkins.csv", "sleep_inertia_duration", ["fiveToFifteen", "5-15 minutes"]),
        ("morning_checkins.csv", "dream_recall", ["Vivid"]),
        ("morning_checkins.csv", "anxiety_level", ["panic"]),
        ("morning_checkins.csv", "sleep_environment_json", ["{broken"]),
        ("pre_sleep_logs.csv", "completion_state", ["done", "Complete"]),
        ("pre_sleep_logs.csv", "answers_json", ["not json"]),
        ("pre_sleep_logs.csv", "occurred_at", ["later"]),
        ("medication_events.csv", "dose_unit", ["tablet", "MG", "mcg"]),
        ("medication_events.csv", "dose_mg", ["-5", "0", "lots", "inf"]),
        ("medication_events.csv", "dose_amount", ["NaN", "0"]),
        ("medication_events.csv", "taken_at", ["2026-11-22T08:00", ""]),
        ("medication_events.csv", "session_date", ["2026-11-31"]),
        ("medication_events.csv", "source", ["imported!"]),
        ("audit_log.csv", "action", ["hack", "UNDO"]),
        ("audit_log.csv", "at", ["then"]),
        ("audit_log.csv", "details", ["{", "not json"]),
    ]

    static let textDamage = [
        "unterminated quote", "quote inside field", "text after quote", "lone carriage return", "missing field", "extra field", "empty file",
        "only a newline",
    ]
    static let headerDamage = ["drop first column", "rename a column", "swap two columns", "add a column", "upper-case"]
    static let archiveDamage = [
        "parent path", "absolute path", "sub folder", "backslash path", "unknown file", "duplicate entry", "too many entries", "zip bomb",
        "directory entry", "symlink entry", "not a zip", "empty file", "truncated 10%", "truncated 50%", "truncated 90%", "truncated -22 bytes",
        "missing schema_version.json", "newer schema", "older schema", "schema not a number", "missing sessions.csv", "settings not json",
        "settings invalid value", "not UTF-8", "too large file", "corrupt bytes in the middle",
    ]

    static let cases: [Spoil] = {
        var cases: [Spoil] = []
        for (file, column, values) in badFields { for value in values { cases.append(.field(file: file, column: column, value: value)) } }
        for file in csvFiles {
            for how in textDamage { cases.append(.text(file: file, how: how)) }
            for how in headerDamage { cases.append(.header(file: file, how: how)) }
        }
        for how in archiveDamage { cases.append(.archive(how: how)) }
        return cases
    }()

    /// A valid bundle of varied nights, built once.
    static let source: (files: [String: Data], directory: URL) = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-hostile-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (ledger, clock) = try! BundleFixture.variedLedger(weeks: 1)
        let url = directory.appendingPathComponent("valid.zip")
        _ = try! UseCases(store: .sqlite(ledger.database), clock: clock.store).transfer.exportBundle(to: url.path)
        return (try! BundleFixture.entries(of: url), directory)
    }()

    @Test("there are at least 200 hostile cases")
    func enoughCases() {
        #expect(Self.cases.count >= 200)
    }

    @Test("an events.csv with 100,000 extra columns is refused in a short message that names a few of them")
    func wideHeaderIsQuotedShort() throws {
        let url = Self.source.directory.appendingPathComponent("wide-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let extra = (0..<100_000).map { "column_\($0)" }
        let header = DataTransfer.eventsCSVHeader.split(separator: ",").map(String.init) + extra
        try Data((header.joined(separator: ",") + "\r\n").utf8).write(to: url)
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 11, 20, 12, 0))
        let before = try StoreFixture.snapshot(ledger)
        #expect {
            try ledger.database.transfer.importFile(at: url.path, clock: clock.store)
        } throws: { error in
            let message = (error as? DoseError)?.message ?? ""
            return message.utf8.count < 1_000 && message.contains("unexpected: column_0, column_1, column_2, column_3, column_4 and 99995 more")
        }
        #expect(try StoreFixture.snapshot(ledger) == before)
    }

    @Test("each hostile bundle gets a clear error and the database is untouched", arguments: cases)
    func refused(_ spoil: Spoil) throws {
        let url = Self.source.directory.appendingPathComponent("\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.build(spoil, at: url)
        FuzzCorpus.keep(url, as: .bundle, named: spoil.testDescription)
        let ledger = try StoreFixture.ledger()
        let clock = TestClock(WallClock.date(2026, 11, 20, 12, 0))
        try StoreFixture.act(ledger, .log(event: "nap_start"), at: clock.now, clock: clock, note: "existing")
        let before = try StoreFixture.snapshot(ledger)
        do {
            let report = try ledger.database.transfer.importFile(at: url.path, clock: clock.store)
            Issue.record("imported \(report.importedTotal) rows from a hostile bundle")
        } catch let error as DoseError {
            #expect([ErrorCode.invalidInput, .tooLarge].contains(error.code))
            #expect(error.message.count > 25, "a clear message: \(error.message)")
        }
        #expect(try StoreFixture.snapshot(ledger) == before)
    }

    static func build(_ spoil: Spoil, at url: URL) throws {
        var files = source.files
        var order = files.keys.sorted()
        func text(_ name: String) -> String { String(decoding: files[name]!, as: UTF8.self) }
        func lines(_ name: String) -> [String] { text(name).components(separatedBy: "\r\n") }
        switch spoil {
        case .field(let file, let column, let value):
            let (header, rows) = try CSV.parse(text(file))
            guard let index = header.firstIndex(of: column), var first = rows.first else {
                Issue.record("no \(column) in \(file)")
                return
            }
            first[index] = value
            let body = ([header, first] + rows.dropFirst()).map { CSV.row($0.map { CSV.field($0) }) }.joined()
            files[file] = Data(body.utf8)
        case .header(let file, let how):
            var all = lines(file)
            var header = all[0].split(separator: ",").map(String.init)
            switch how {
            case "drop first column": header.removeFirst()
            case "rename a column": header[1] = header[1] + "_x"
            case "swap two columns": header.swapAt(0, 1)
            case "add a column": header.append("extra")
            default: header = header.map { $0.uppercased() }
            }
            all[0] = header.joined(separator: ",")
            files[file] = Data(all.joined(separator: "\r\n").utf8)
        case .text(let file, let how):
            var all = lines(file)
            let row = all.count > 2 ? 1 : 0
            switch how {
            case "unterminated quote": all[row] += ",\"open"
            case "quote inside field": all[row] = "ab\"cd," + all[row]
            case "text after quote": all[row] = "\"ab\"cd," + all[row]
            case "lone carriage return": all[row] += "\rx"
            case "missing field": all[row] = all[row].split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
            case "extra field": all[row] += ",surplus"
            case "empty file": all = []
            default: all = [""]
            }
            files[file] = Data(all.joined(separator: "\r\n").utf8)
        case .archive(let how):
            try archive(how, files: &files, order: &order, url: url)
            return
        }
        try BundleFixture.zip(order.map { ($0, files[$0]!) }, to: url)
    }

    static func archive(_ how: String, files: inout [String: Data], order: inout [String], url: URL) throws {
        func write() throws { try BundleFixture.zip(order.map { ($0, files[$0]!) }, to: url) }
        func rename(_ name: String) throws {
            files[name] = files["events.csv"]
            order.append(name)
            try write()
        }
        switch how {
        case "parent path": try rename("../sessions.csv")
        case "absolute path": try rename("/etc/cron.d/dosetap")
        case "sub folder": try rename("nested/sessions.csv")
        case "backslash path": try rename("..\\sessions.csv")
        case "unknown file": try rename("payload.sh")
        case "duplicate entry":
            order.append("sessions.csv")
            try write()
        case "too many entries":
            for index in 0..<40 {
                files["f\(index).csv"] = Data("x".utf8)
                order.append("f\(index).csv")
            }
            try write()
        case "zip bomb":
            files["events.csv"] = Data(count: 8 * 1024 * 1024)
            try write()
        case "directory entry":
            try write()
            let archive = try Archive(url: url, accessMode: .update)
            try archive.addEntry(with: "folder/", type: .directory, uncompressedSize: Int64(0), compressionMethod: .none) {
                (_: Int64, _: Int) -> Data in Data()
            }
        case "symlink entry":
            try write()
            let archive = try Archive(url: url, accessMode: .update)
            let target = Data("/etc/passwd".utf8)
            try archive.addEntry(with: "link.csv", type: .symlink, uncompressedSize: Int64(target.count), compressionMethod: .none) {
                (position: Int64, size: Int) -> Data in target.subdata(in: Int(position)..<Int(position) + size)
            }
        case "not a zip": try Data("event_id?\nno".utf8).write(to: url)
        case "empty file": try Data().write(to: url)
        case "truncated 10%", "truncated 50%", "truncated 90%", "truncated -22 bytes":
            try write()
            let data = try Data(contentsOf: url)
            let keep =
                switch how {
                case "truncated 10%": data.count / 10
                case "truncated 50%": data.count / 2
                case "truncated 90%": data.count * 9 / 10
                default: data.count - 22
                }
            try data.prefix(keep).write(to: url)
        case "corrupt bytes in the middle":
            try write()
            var data = try Data(contentsOf: url)
            for index in stride(from: data.count / 3, to: data.count / 3 + 64, by: 1) { data[index] ^= 0xA5 }
            try data.write(to: url)
        case "missing schema_version.json":
            order.removeAll { $0 == "schema_version.json" }
            try write()
        case "newer schema", "older schema", "schema not a number":
            let value = how == "newer schema" ? "99" : how == "older schema" ? "1" : "six"
            files["schema_version.json"] = Data("{\"schema_version\": \"\(value)\"}".utf8)
            try write()
        case "missing sessions.csv":
            order.removeAll { $0 == "sessions.csv" }
            try write()
        case "settings not json":
            files["settings.json"] = Data("{effective:".utf8)
            try write()
        case "settings invalid value":
            files["settings.json"] = Data("{\"explicit\": {\"target_interval\": \"90\"}}".utf8)
            try write()
        case "not UTF-8":
            files["sessions.csv"] = Data([0xFF, 0xFE, 0x00, 0xD8])
            try write()
        default:  // too large file
            let handle = try { () throws -> FileHandle in
                _ = FileManager.default.createFile(atPath: url.path, contents: Data("PK".utf8))
                return try FileHandle(forWritingTo: url)
            }()
            try handle.truncate(atOffset: UInt64(ImportLimits.maximumFileBytes + 1))
            try handle.close()
        }
    }
}
