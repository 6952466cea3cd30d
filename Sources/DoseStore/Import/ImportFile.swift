public import DoseCore
public import Foundation

extension DataTransfer {
    /// Imports a file by what it is: a zip bundle, an events.csv (SSOT CSV v1), or an SQLite database of the original app.
    /// The import works on a private copy and lands in one short transaction (`StagedImport`), so however long it
    /// takes, it never holds the writer that actions and alarms need, and a reader sees all of it or none. A zip that
    /// must be unpacked first is unpacked in `scratchFolder`, and removed from it when the import ends.
    public func importFile(at path: String, clock: StoreClock, settling: @escaping NightSettling, scratchFolder: URL) throws -> ImportReport {
        try StagedImport(database: database).run { staged in
            try staged.write { db in
                try RecordImporter(
                    records: SQLiteNightTransaction(db: db, cache: nil), clock: clock, settling: settling, scratchFolder: scratchFolder,
                    stop: staged.importStop
                ).importFile(at: path)
            }
        }
    }
}

/// One import's rules, written once for both stores: each reads and writes through the store's `ImportTransaction`, in
/// the one transaction the store gives the import, so it lands whole or not at all.
struct RecordImporter {
    let records: any ImportTransaction
    let clock: StoreClock
    let settling: NightSettling
    let scratchFolder: URL
    /// Set once the process is ending (graceful shutdown): the import stops before it keeps anything.
    let stop: ImportStops.Flag?

    /// Throws `importStopped` once the import was told to stop: its loops call this between rows.
    func checkStopped() throws {
        if stop?.isStopped == true { throw DoseError.importStopped }
    }

    /// Which of `ids` the person holds already, asked a thousand at a time so a stop is heard between them.
    func recorded(among ids: [EventID]) throws -> Set<EventID> {
        var found = Set<EventID>()
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            try checkStopped()
            found.formUnion(try records.recorded(among: Array(ids[start..<min(start + 1_000, ids.count)])))
        }
        return found
    }

    /// The stored night of each date, asked five hundred dates at a time so a stop is heard between them.
    func latestNights(on dates: Set<SessionKey>) throws -> [SessionKey: NightSession] {
        let sorted = dates.sorted()
        var found: [SessionKey: NightSession] = [:]
        for start in stride(from: 0, to: sorted.count, by: 500) {
            try checkStopped()
            found.merge(try records.latestNights(on: Set(sorted[start..<min(start + 500, sorted.count)])), uniquingKeysWith: { first, _ in first })
        }
        return found
    }

    /// Imports the file at `path` by what it is.
    func importFile(at path: String) throws -> ImportReport {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DoseError.invalidFile(problem: "\(path) cannot be read")
        }
        let head = (try? handle.read(upToCount: 24)) ?? Data()
        try? handle.close()
        if head.starts(with: [0x50, 0x4B]) {
            if Self.isHealthExportZip(path) { return try importAppleHealth(at: path) }
            return Self.isWhoopExportZip(path) ? try importWhoop(at: path) : try importBundle(at: path)
        }
        if Self.isWhoopCSV(head) { return try importWhoop(at: path) }
        if head.starts(with: Data("<?xml".utf8)) || head.starts(with: Data("<HealthData".utf8)) || path.hasSuffix("export.xml") {
            return try importAppleHealth(at: path)
        }
        if head.starts(with: Data("SQLite format 3".utf8)) { return try importOriginalDatabase(at: path) }
        if head.starts(with: Data("event_id,".utf8)) || head.starts(with: Data([0xEF, 0xBB, 0xBF])) {
            return try importEventsCSV(at: path)
        }
        throw DoseError.invalidFile(
            problem:
                "\(URL(fileURLWithPath: path).lastPathComponent) is not a DoseTap bundle (.zip), an events.csv, an SQLite database, the Health "
                + "app's export (export.zip, export.xml) or WHOOP's export (its zip, sleeps.csv, physiological_cycles.csv)"
        )
    }
}
