import Crypto
import DoseCore
import Foundation
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
            let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: nil)
        else { return false }
        return archive[healthExportEntry] != nil
    }

    /// Imports the Health app's export (`export.zip` or `export.xml`): sleep analysis and the four vitals, streamed,
    /// inside one transaction. A malformed file refuses everything with its line and reason; records already stored
    /// (the same source, kind, times and value) are skipped, so importing the same export again adds nothing. Vital
    /// samples are kept only within an hour of some sleep record: a night's, not a day's.
    func importAppleHealth(at path: String, clock: StoreClock, scratchFolder: URL) throws -> ImportReport {
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
                    INSERT OR IGNORE INTO wearable_sleep (id, provider, source, stage, start_at, end_at, start_offset_minutes,
                    end_offset_minutes, imported_at)
                    VALUES (?, 'apple_health', ?, ?, ?, ?, ?, ?, ?)
                    """)
            // Vitals wait in a temporary table as read (milliseconds, no id, no index), because whether one belongs to a
            // night is known only once every sleep record is in: most are daytime samples that are never kept, and an
            // id or an index entry for each of them was most of the import's writing time. The table goes with the
            // transaction whichever way it ends.
            try db.execute(
                sql:
                    "CREATE TEMP TABLE health_vitals_read (source TEXT NOT NULL, kind TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER "
                    + "NOT NULL, value REAL NOT NULL)"
            )
            let vital = try db.makeStatement(sql: "INSERT INTO temp.health_vitals_read VALUES (?, ?, ?, ?, ?)")
            var vitalsRead = 0
            let skipped = try AppleHealthReader.read(path: path) { record in
                switch record {
                case .sleep(let sample):
                    let (start, end) = (ISO8601.string(sample.start), ISO8601.string(sample.end))
                    try sleep.execute(arguments: [
                        Self.digest("sleep", sample.source, sample.stage.rawValue, start, end), sample.source, sample.stage.rawValue, start, end,
                        sample.startOffsetMinutes, sample.endOffsetMinutes, now,
                    ])
                    if db.changesCount > 0 {
                        report.importedRow("sleep")
                    } else {
                        report.skippedRow("sleep", because: "already imported (the same record)")
                    }
                case .vital(let sample):
                    try vital.execute(arguments: [
                        sample.source, sample.kind.rawValue, Self.milliseconds(sample.start), Self.milliseconds(sample.end), sample.value,
                    ])
                    vitalsRead += 1
                }
            }
            try Self.keepNightVitals(read: vitalsRead, importedAt: now, report: &report, db)
            if skipped > 0 { report.notes.append("\(skipped) records of other kinds (steps, workouts, …) were not read.") }
            if report.importedTotal == 0, report.skippedTotal == 0 {
                report.notes.append(
                    "The export holds no sleep records: turn on Sleep in the Health app, or export again after a night with the watch.")
            }
            return report
        }
    }

    /// Whole milliseconds since 1970, as every stored instant is rounded.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Whole milliseconds since 1970 as stored text.
    private static func instantText(_ milliseconds: Int64) -> String { ISO8601.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000)) }

    /// Moves the vitals read that belong to a night into `wearable_vitals`: those within an hour of some sleep record
    /// (this import's or an earlier one's), each with its id, so a sample stored before is skipped. Daytime samples (a
    /// run, a walk) are left out and counted in a note.
    private static func keepNightVitals(read: Int, importedAt: String, report: inout ImportReport, _ db: Database) throws {
        let instant = DatabaseFunction("dosetap_instant", argumentCount: 1, pure: true) { values in
            Int64.fromDatabaseValue(values[0]).map(instantText)
        }
        let id = DatabaseFunction("dosetap_vital_id", argumentCount: 5, pure: true) { values in
            guard let source = String.fromDatabaseValue(values[0]), let kind = String.fromDatabaseValue(values[1]),
                let start = Int64.fromDatabaseValue(values[2]), let end = Int64.fromDatabaseValue(values[3]),
                let value = Double.fromDatabaseValue(values[4])
            else { return nil }
            return digest("vital", source, kind, instantText(start), instantText(end), NumberText.plain(value))
        }
        db.add(function: instant)
        db.add(function: id)
        defer {
            db.remove(function: instant)
            db.remove(function: id)
        }
        // A sleep record's bounds in milliseconds, exactly: unixepoch() drops the fraction, which the text holds at 21–23.
        let milliseconds = { (column: String) in "(unixepoch(\(column)) * 1000 + CAST(substr(\(column), 21, 3) AS INTEGER))" }
        try db.execute(
            sql: """
                CREATE INDEX temp.health_vitals_read_by_start ON health_vitals_read(start_ms);
                CREATE TEMP TABLE health_vitals_kept AS
                    SELECT DISTINCT v.rowid AS id FROM wearable_sleep s JOIN temp.health_vitals_read v
                    ON v.start_ms BETWEEN \(milliseconds("s.start_at")) - 3600000 AND \(milliseconds("s.end_at")) + 3600000;
                """)
        let kept = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM temp.health_vitals_kept") ?? 0
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                SELECT dosetap_vital_id(v.source, v.kind, v.start_ms, v.end_ms, v.value), 'apple_health', v.source, v.kind,
                       dosetap_instant(v.start_ms), dosetap_instant(v.end_ms), v.value, ?
                FROM temp.health_vitals_kept k JOIN temp.health_vitals_read v ON v.rowid = k.id ORDER BY k.id
                """, arguments: [importedAt])
        let inserted = db.changesCount
        try db.execute(sql: "DROP TABLE temp.health_vitals_kept; DROP TABLE temp.health_vitals_read")
        if inserted > 0 { report.imported["vitals"] = inserted }
        if kept > inserted {
            report.skipped["vitals"] = kept - inserted
            report.skipReasons["vitals"] = "already imported (the same record)"
        }
        if read > kept { report.notes.append("\(read - kept) vital samples outside any night were left out.") }
    }

    /// A record's id: the digest of what it says, so the same record from a later export has the same id. `prefix`
    /// names the provider (`h-` Apple Health, `w-` WHOOP).
    static func digest(_ parts: String..., prefix: String = "h-") -> String {
        // Hex by table, not String(format:): a gigabyte export digests a million records, and formatting was a third of
        // the import's time.
        prefix + SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8)).prefix(16).hexString
    }
}
