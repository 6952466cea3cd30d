public import DoseCore
public import Foundation
import GRDB

/// The export formats of this issue (SPEC §5.2, D10).
public enum ExportFormat: String, Sendable, CaseIterable {
    /// SSOT CSV v1: every event, one row each.
    case csv
    /// One row per night: `Date,Dose1Time,Dose2Time,Interval,OnTime,NaturalWake`.
    case analytics
    /// The zip bundle of every table (`DoseTap_Export_YYYY-MM-DD.zip`).
    case bundle
    /// `sessions.csv`: one row per night with the insights columns (seed 003 "Export System").
    case sessions
}

/// Moving records in and out: the CSV exports, the backup bundle, and imports of every format DoseTap reads.
public struct DataTransfer: Sendable {
    let database: AppDatabase

    /// The SSOT CSV v1 header (seed 001 §7).
    public static let eventsCSVHeader = "event_id,event_type,source,occurred_at_utc,local_tz,dose_sequence,note"
    /// Every dose and sleep event and every undo, by time: `id, event_type, source, occurred_at, time_zone, metadata,
    /// note` (a compound select's columns are named by its first select). events.csv and the support bundle read it.
    static let everyEventSQL = """
        SELECT id, event_type, source, occurred_at, time_zone, metadata, note FROM dose_events
        UNION ALL SELECT id, event_type, source, occurred_at, time_zone, NULL AS metadata, note FROM sleep_events
        UNION ALL SELECT id, 'undo', 'user', at, json_extract(details, '$.time_zone'), NULL,
            'undid ' || json_extract(details, '$.event_type') || ' ' || entity_id || ' of ' || json_extract(details, '$.occurred_at')
            FROM audit_log WHERE action = 'undo'
        ORDER BY occurred_at, id
        """

    /// `events.csv` v1: every dose and sleep event and every undo, sorted by time; the header is always there.
    public func eventsCSV() throws -> String {
        var out = ""
        try eventsCSV { out += $0 }
        return out
    }

    /// events.csv a piece at a time, in one read: `write` is given the header, then runs of lines of about
    /// `CSVPieces.size` bytes, so a long history is never held whole.
    public func eventsCSV(_ write: (String) throws -> Void) throws {
        try database.read { db in
            var pieces = CSVPieces()
            try pieces.add(CSV.row(Self.eventsCSVHeader.split(separator: ",").map(String.init)), write)
            let rows = try Row.fetchCursor(db, sql: Self.everyEventSQL)
            while let row = try rows.next() {
                try pieces.add(
                    Self.eventsCSVLine(
                        EventRow(
                            id: row["id"], type: row["event_type"], source: row["source"], occurredAt: row["occurred_at"],
                            timeZone: row["time_zone"], metadata: row["metadata"], note: row["note"])), write)
            }
            try pieces.flush(write)
        }
    }

    /// The nights with a Dose 1 dated `from` through `to` (all when nil), oldest first, as the analytics CSV reads them.
    public func dosedNights(from: SessionKey? = nil, to: SessionKey? = nil) throws -> [DosedNight] {
        return try database.read { db in
            var conditions = ["dose1_at IS NOT NULL"]
            var arguments: [any DatabaseValueConvertible] = []
            if let from {
                conditions.append("session_date >= ?")
                arguments.append(from.description)
            }
            if let to {
                conditions.append("session_date <= ?")
                arguments.append(to.description)
            }
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT session_date, dose1_at, dose2_at, interval_minutes, snooze_count FROM sleep_sessions
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY session_date, started_at, id
                    """, arguments: StatementArguments(arguments))
            var nights: [DosedNight] = []
            while let row = try rows.next() {
                nights.append(
                    DosedNight(
                        date: row["session_date"], dose1: NightRecords.instant(row["dose1_at"]),
                        dose2: (row["dose2_at"] as String?).map(NightRecords.instant),
                        intervalMinutes: row["interval_minutes"], snoozes: row["snooze_count"]))
            }
            return nights
        }
    }

    /// One row of `everyEventSQL`, as either store reads it.
    struct EventRow: Sendable {
        var id: String
        var type: String
        var source: String
        var occurredAt: String
        var timeZone: String?
        var metadata: String?
        var note: String?
    }

    /// One line of events.csv: the same bytes from either store.
    static func eventsCSVLine(_ event: EventRow) -> String {
        CSV.row([
            CSV.field(event.id), CSV.field(Self.csvEventType(event.type)), CSV.field(event.source), CSV.field(event.occurredAt),
            CSV.field(event.timeZone), Self.doseSequence(type: event.type, metadata: event.metadata), CSV.field(event.note, freeText: true),
        ])
    }

    static func csvEventType(_ stored: String) -> String {
        switch stored {
        case "dose1": "dose1_taken"
        case "dose2": "dose2_taken"
        case "extra_dose": "extra_dose_taken"
        default: stored
        }
    }

    static func doseSequence(type: String, metadata: String?) -> String {
        switch type {
        case "dose1": return "1"
        case "dose2", "dose2_skipped": return "2"
        case "extra_dose":
            guard let metadata, let decoded = try? JSONDecoder().decode(EventMetadata.self, from: Data(metadata.utf8)),
                let index = decoded.doseIndex
            else { return "" }
            return String(index)
        default: return ""
        }
    }
}

/// Writes files so a crash never leaves a half-written export: a temporary name in the same directory,
/// owner-only permissions, synced, then renamed into place.
public enum SafeFile {
    /// Writes `contents` to `path` atomically with mode 0600.
    public static func write(_ contents: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DoseError.invalidInput(
                field: "out", problem: "the folder \(directory.path) does not exist", allowed: "a path in an existing folder")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw DoseError.invalidInput(
                field: "out", problem: "cannot write in \(directory.path) (\(String(cString: strerror(errno))))", allowed: "a writable folder")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(contents.utf8))
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else {
                throw DoseError.invalidInput(
                    field: "out", problem: "cannot replace \(path) (\(String(cString: strerror(errno))))", allowed: "a writable path")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        let directoryDescriptor = open(directory.path, O_RDONLY)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}

/// A night with a Dose 1 as the analytics CSV reads it: its date, its doses, its interval and its snoozes.
public struct DosedNight: Sendable {
    public var date: String
    public var dose1: Date
    public var dose2: Date?
    public var intervalMinutes: Int?
    public var snoozes: Int
}

/// Lines gathered into pieces of about `size` bytes, each handed to `write` (a file, a response) once full.
public struct CSVPieces {
    /// About how many bytes a piece holds before it is handed on.
    public static let size = 64 * 1024
    private var pending = ""

    public init() {}

    /// Adds lines, handing the piece to `write` once it is full.
    public mutating func add(_ lines: String, _ write: (String) throws -> Void) throws {
        pending += lines
        if pending.utf8.count >= Self.size { try flush(write) }
    }

    /// Hands what is gathered to `write`.
    public mutating func flush(_ write: (String) throws -> Void) throws {
        guard !pending.isEmpty else { return }
        try write(pending)
        pending = ""
    }
}
