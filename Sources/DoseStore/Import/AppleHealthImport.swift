import Crypto
import DoseCore
import Foundation
import ZIPFoundation

extension RecordImporter {
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
            let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: nil)
        else { return false }
        return archive[healthExportEntry] != nil
    }

    /// Imports the Health app's export (`export.zip` or `export.xml`): sleep analysis and the four vitals, streamed,
    /// inside one transaction. A malformed file refuses everything with its line and reason; records already stored
    /// (the same source, kind, times and value) are skipped, so importing the same export again adds nothing. Vital
    /// samples are kept only within an hour of some sleep record: a night's, not a day's.
    func importAppleHealth(at path: String) throws -> ImportReport {
        if Self.isHealthExportZip(path) {
            let folder = scratchFolder.appendingPathComponent("dosetap-health-\(clock.makeID())")
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
                throw DoseError.invalidFile(
                    problem: "\(URL(fileURLWithPath: path).lastPathComponent) is not a readable zip archive (damaged or truncated)")
            }
            return try importHealthXML(at: xml.path)
        }
        return try importHealthXML(at: path)
    }

    private func importHealthXML(at path: String) throws -> ImportReport {
        let writer = try records.healthRecords(importedAt: ISO8601.string(clock.now))
        let skipped = try AppleHealthReader.read(path: path) { record in
            switch record {
            case .sleep(let sample):
                try writer.add(
                    sample, id: Self.digest("sleep", sample.source, sample.stage.rawValue, ISO8601.string(sample.start), ISO8601.string(sample.end)))
            case .vital(let sample): try writer.add(sample)
            }
        }
        let counts = try writer.finish()
        var report = ImportReport()
        let stored = "already imported (the same record)"
        if counts.sleepAdded > 0 { report.imported["sleep"] = counts.sleepAdded }
        if counts.sleepStored > 0 {
            report.skipped["sleep"] = counts.sleepStored
            report.skipReasons["sleep"] = stored
        }
        if counts.vitalsAdded > 0 { report.imported["vitals"] = counts.vitalsAdded }
        if counts.vitalsOfNights > counts.vitalsAdded {
            report.skipped["vitals"] = counts.vitalsOfNights - counts.vitalsAdded
            report.skipReasons["vitals"] = stored
        }
        if counts.vitalsRead > counts.vitalsOfNights {
            report.notes.append("\(counts.vitalsRead - counts.vitalsOfNights) vital samples outside any night were left out.")
        }
        if skipped > 0 { report.notes.append("\(skipped) records of other kinds (steps, workouts, …) were not read.") }
        if report.importedTotal == 0, report.skippedTotal == 0 {
            report.notes.append(
                "The export holds no sleep records: turn on Sleep in the Health app, or export again after a night with the watch.")
        }
        return report
    }

    /// Whole milliseconds since 1970, as every stored instant is rounded.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Whole milliseconds since 1970 as stored text.
    static func instantText(_ milliseconds: Int64) -> String { ISO8601.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000)) }

    /// A vital's id: the digest of what it says, from the milliseconds it was read in.
    static func vitalID(source: String, kind: String, startMilliseconds: Int64, endMilliseconds: Int64, value: Double) -> String {
        digest("vital", source, kind, instantText(startMilliseconds), instantText(endMilliseconds), NumberText.plain(value))
    }

    /// A record's id: the digest of what it says, so the same record from a later export has the same id. `prefix`
    /// names the provider (`h-` Apple Health, `w-` WHOOP).
    static func digest(_ parts: String..., prefix: String = "h-") -> String {
        // Hex by table, not String(format:): a gigabyte export digests a million records, and formatting was a third of
        // the import's time.
        prefix + SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)).prefix(16).hexString
    }
}
