import Crypto
public import DoseCore
public import Foundation
import GRDB
import ZIPFoundation

extension DataTransfer {
    /// The export's path inside the Health app's zip.
    static let healthExportEntry = "apple_health_export/export.xml"

    /// Whether a zip is the Health app's export rather than a DoseTap bundle. Only a file that starts as a zip is
    /// opened as one: ZIPFoundation looks for a zip's directory from the end of the file, which takes minutes on a
    /// gigabyte of XML.
    static func isHealthExportZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        try? handle.close()
        guard magic.starts(with: [0x50, 0x4B, 0x03, 0x04]),
            let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        else { return false }
        return archive[healthExportEntry] != nil
    }

    /// Imports the Health app's export (`export.zip` or `export.xml`): sleep analysis and the four vitals, streamed,
    /// inside one transaction. A malformed file refuses everything with its line and reason; records already stored
    /// (the same source, kind, times and value) are skipped, so importing the same export again adds nothing. Vital
    /// samples are kept only within an hour of some sleep record: a night's, not a day's.
    func importAppleHealth(at path: String, clock: StoreClock) throws -> ImportReport {
        if Self.isHealthExportZip(path) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-health-\(clock.makeID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: folder) }
            let xml = folder.appendingPathComponent("export.xml")
            do {
                let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
                guard let entry = archive[Self.healthExportEntry] else {
                    throw DoseError.invalidFile(problem: "the zip has no \(Self.healthExportEntry): it is not the Health app's export")
                }
                _ = try archive.extract(entry, to: xml)
            } catch let error as DoseError {
                throw error
            } catch {
                throw DoseError.invalidFile(problem: "\(URL(fileURLWithPath: path).lastPathComponent) is not a readable zip archive (damaged or truncated)")
            }
            return try importHealthXML(at: xml.path, clock: clock)
        }
        return try importHealthXML(at: path, clock: clock)
    }

    private func importHealthXML(at path: String, clock: StoreClock) throws -> ImportReport {
        let now = ISO8601.string(clock.now)
        return try database.write { db in
            var report = ImportReport()
            let sleep = try db.makeStatement(
                sql: """
                    INSERT OR IGNORE INTO wearable_sleep (id, provider, source, stage, start_at, end_at, start_offset_minutes, end_offset_minutes, imported_at)
                    VALUES (?, 'apple_health', ?, ?, ?, ?, ?, ?, ?)
                    """)
            let vital = try db.makeStatement(
                sql: """
                    INSERT OR IGNORE INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                    VALUES (?, 'apple_health', ?, ?, ?, ?, ?, ?)
                    """)
            func count(_ file: String, _ changed: Bool) {
                if changed { report.importedRow(file) } else { report.skippedRow(file, because: "already imported (the same record)") }
            }
            let skipped = try AppleHealthReader.read(path: path) { record in
                switch record {
                case .sleep(let sample):
                    let (start, end) = (ISO8601.string(sample.start), ISO8601.string(sample.end))
                    try sleep.execute(arguments: [
                        Self.digest("sleep", sample.source, sample.stage.rawValue, start, end), sample.source, sample.stage.rawValue, start, end,
                        sample.startOffsetMinutes, sample.endOffsetMinutes, now,
                    ])
                    count("sleep", db.changesCount > 0)
                case .vital(let sample):
                    let (start, end) = (ISO8601.string(sample.start), ISO8601.string(sample.end))
                    let value = NumberText.plain(sample.value)
                    try vital.execute(arguments: [
                        Self.digest("vital", sample.source, sample.kind.rawValue, start, end, value), sample.source, sample.kind.rawValue, start, end,
                        sample.value, now,
                    ])
                    count("vitals", db.changesCount > 0)
                }
            }
            // Daytime vitals (a run, a walk) are not a night's: kept only within an hour of a sleep record. A sleep record
            // lasts at most a day (the reader refuses longer), so the search for one is bounded to the 25 hours before:
            // an index range, not a scan of every earlier night.
            try db.execute(
                sql: """
                    DELETE FROM wearable_vitals WHERE imported_at = ? AND NOT EXISTS (
                        SELECT 1 FROM wearable_sleep s
                        WHERE s.start_at BETWEEN strftime('%Y-%m-%dT%H:%M:%fZ', wearable_vitals.start_at, '-25 hours')
                                             AND strftime('%Y-%m-%dT%H:%M:%fZ', wearable_vitals.start_at, '+1 hour')
                          AND s.end_at >= strftime('%Y-%m-%dT%H:%M:%fZ', wearable_vitals.start_at, '-1 hour'))
                    """, arguments: [now])
            let dropped = db.changesCount
            if dropped > 0 {
                report.imported["vitals", default: 0] -= dropped
                report.notes.append("\(dropped) vital samples outside any night were left out.")
            }
            if skipped > 0 { report.notes.append("\(skipped) records of other kinds (steps, workouts, …) were not read.") }
            if report.importedTotal == 0, report.skippedTotal == 0 {
                report.notes.append("The export holds no sleep records: turn on Sleep in the Health app, or export again after a night with the watch.")
            }
            return report
        }
    }

    /// A record's id: the digest of what it says, so the same record from a later export has the same id.
    static func digest(_ parts: String...) -> String {
        "h-" + SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
