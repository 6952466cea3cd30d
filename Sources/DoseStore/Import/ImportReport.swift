import DoseCore
import Foundation

/// What an import did: rows imported and skipped per file, and every rejected row with its reason.
public struct ImportReport: Sendable, Hashable {
    /// A row that was not imported, and why.
    public struct Rejection: Sendable, Hashable {
        public var file: String
        /// 1 is the first data row (the header is row 0); for database imports, the row's position in its table.
        public var row: Int
        public var reason: String
    }

    public var imported: [String: Int] = [:]
    public var skipped: [String: Int] = [:]
    /// Why rows were skipped (duplicates, derived tables), by file.
    public var skipReasons: [String: String] = [:]
    public var rejected: [Rejection] = []
    /// Notes about the import as a whole (settings kept or applied, …).
    public var notes: [String] = []

    public init() {}

    public var importedTotal: Int { imported.values.reduce(0, +) }
    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    mutating func importedRow(_ file: String) { imported[file, default: 0] += 1 }
    mutating func skippedRow(_ file: String, because reason: String) {
        skipped[file, default: 0] += 1
        skipReasons[file] = reason
    }
    mutating func reject(_ file: String, row: Int, _ reason: String) { rejected.append(Rejection(file: file, row: row, reason: reason)) }
}

/// Limits that keep a hostile file from doing harm (SPEC §5.3: import bodies up to 20 MiB).
public enum ImportLimits {
    /// The largest file accepted.
    public static let maximumFileBytes = 20 * 1024 * 1024
    /// The most entries a bundle may have.
    public static let maximumEntries = 32
    /// The largest uncompressed entry.
    public static let maximumEntryBytes = 64 * 1024 * 1024
    /// The most all entries may expand to together.
    public static let maximumTotalBytes = 128 * 1024 * 1024
    /// The highest compression ratio accepted (a zip bomb expands far beyond it).
    public static let maximumCompressionRatio = 100
    /// The most events one night may bring. A real night has a few dozen (doses, snoozes, a few wake-ups and
    /// bathroom trips); a thousand is a file that is not a night's record, refused before anything is read into it.
    public static let maximumEventsPerNight = 1_000

    /// Refuses a file in which any night has more than `maximumEventsPerNight` events; `nights` holds each event's
    /// night (its date, or its night's id).
    static func checkEventsPerNight(file: String, nights: [String]) throws {
        var counts: [String: Int] = [:]
        for night in nights { counts[night, default: 0] += 1 }
        guard let (night, count) = counts.filter({ $0.value > maximumEventsPerNight }).min(by: { $0.key < $1.key }) else { return }
        throw DoseError.invalidFile(
            problem:
                "\(file) has \(count) events for the night of \(night); DoseTap imports at most \(maximumEventsPerNight) events per night (a "
                + "real night has a few dozen). Nothing was imported"
        )
    }
}
