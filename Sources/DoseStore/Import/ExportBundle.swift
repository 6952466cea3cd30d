import DoseCore
public import Foundation
import GRDB
import ZIPFoundation

/// The export bundle (SPEC §5.2, seed 002 "Export Schema"): every table as CSV, events.csv v1, settings,
/// the schema version and a readme describing every column.
public enum ExportBundle {
    /// The settings in effect as `settings.json` lists them. A titration plan is listed only when there is one: "no plan"
    /// is what a bundle without the key has always meant, so the format (and every released bundle read again) is
    /// unchanged by plans existing, with no schema step for a key that adds nothing to a bundle without one.
    static func effective(_ settings: DoseSettings) -> [(key: String, value: String)] {
        settings.listing().filter { !($0.key == SettingKey.titration.rawValue && $0.value.isEmpty) }
    }

    /// A table in the bundle: its file, its table, its order, and which columns hold free text.
    struct TableFile: Sendable {
        let file: String
        let table: String
        let order: String
        let freeText: Set<String>
        /// The file's columns in order: the format's, and the SQLite table's (a test holds the two together), so a store
        /// whose table orders them otherwise still writes the same file.
        let columns: [String]
    }

    /// Parents before children, so an import can insert in this order.
    static let tables: [TableFile] = [
        TableFile(
            file: "sessions.csv", table: "sleep_sessions", order: "started_at, id", freeText: [],
            columns: [
                "id", "session_date", "started_at", "time_zone", "ended_at", "end_reason", "terminal_state", "dose1_at", "dose2_at", "dose2_skipped",
                "extra_dose_count", "snooze_count", "interval_minutes",
            ]),
        TableFile(
            file: "dose_events.csv", table: "dose_events", order: "occurred_at, id", freeText: ["note"],
            columns: [
                "id", "session_id", "occurred_at", "recorded_at", "utc_offset_minutes", "time_zone", "source", "note", "event_type", "metadata",
            ]),
        TableFile(
            file: "sleep_events.csv", table: "sleep_events", order: "occurred_at, id", freeText: ["note"],
            columns: [
                "id", "session_id", "occurred_at", "recorded_at", "utc_offset_minutes", "time_zone", "source", "note", "event_type", "category",
            ]),
        TableFile(
            file: "morning_checkins.csv", table: "morning_checkins", order: "occurred_at, id", freeText: ["note", "notes"],
            columns: [
                "id", "session_id", "occurred_at", "recorded_at", "utc_offset_minutes", "time_zone", "source", "note", "sleep_quality", "feel_rested",
                "grogginess", "mental_clarity", "mood", "readiness", "has_physical_symptoms", "has_respiratory_symptoms", "has_narcolepsy_symptoms",
                "notes", "wellness_score", "sleep_inertia_duration", "dream_recall", "anxiety_level", "had_sleep_paralysis", "had_hallucinations",
                "had_automatic_behavior", "fell_out_of_bed", "had_confusion_on_waking", "physical_symptoms_json", "respiratory_symptoms_json",
                "used_sleep_therapy", "sleep_therapy_json", "has_sleep_environment", "sleep_environment_json",
            ]),
        TableFile(
            file: "pre_sleep_logs.csv", table: "pre_sleep_logs", order: "occurred_at, id", freeText: ["note"],
            columns: [
                "id", "session_id", "occurred_at", "recorded_at", "utc_offset_minutes", "time_zone", "source", "note", "completion_state",
                "answers_json",
            ]),
        TableFile(
            file: "medication_events.csv", table: "medication_events", order: "taken_at, id", freeText: ["notes"],
            columns: [
                "id", "session_id", "session_date", "medication_id", "dose_mg", "dose_amount", "dose_unit", "formulation", "taken_at", "recorded_at",
                "utc_offset_minutes", "time_zone", "source", "notes", "confirmed_duplicate", "batch_id",
            ]),
        TableFile(
            file: "audit_log.csv", table: "audit_log", order: "at, id", freeText: [],
            columns: ["id", "at", "action", "session_id", "entity_id", "details"]),
        TableFile(
            file: "inventory.csv", table: "inventory_events", order: "occurred_at, id", freeText: ["reason"],
            columns: ["id", "kind", "occurred_at", "recorded_at", "time_zone", "change_ml", "counted_ml", "bottles", "reason"]),
        TableFile(
            file: "wearable_sleep.csv", table: "wearable_sleep", order: "start_at, id", freeText: ["source"],
            columns: ["id", "provider", "source", "stage", "start_at", "end_at", "start_offset_minutes", "end_offset_minutes", "imported_at"]),
        TableFile(
            file: "wearable_vitals.csv", table: "wearable_vitals", order: "start_at, id", freeText: ["source"],
            columns: ["id", "provider", "source", "kind", "start_at", "end_at", "value", "imported_at"]),
        TableFile(
            file: "wearable_summaries.csv", table: "wearable_summaries", order: "start_at, id", freeText: ["source"],
            columns: [
                "id", "provider", "source", "start_at", "end_at", "offset_minutes", "nap", "in_bed_minutes", "asleep_minutes", "light_minutes",
                "deep_minutes", "rem_minutes", "awake_minutes", "recovery_percent", "sleep_performance_percent", "sleep_efficiency_percent",
                "resting_heart_rate", "hrv_ms", "respiratory_rate", "oxygen_saturation_percent", "skin_temp_celsius", "imported_at",
            ]),
    ]

    /// Other files of the bundle.
    static let otherFiles = ["events.csv", "settings.json", "schema_version.json", "readme.txt", analyticsFile]
    /// The per-night analytics (`DataTransfer.sessionsCSV`): derived, so an import reads past it.
    static let analyticsFile = "sessions_analytics.csv"

    /// `DoseTap_Export_YYYY-MM-DD.zip` for a local date.
    public static func fileName(on date: Date, timeZone: TimeZone) -> String {
        let parts = LocalClock.calendar(timeZone).dateComponents([.year, .month, .day], from: date)
        let day = SessionKey(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)?.description ?? "1970-01-01"
        return "DoseTap_Export_\(day).zip"
    }

    /// The columns of a table, in schema order.
    static func columns(of table: String, _ db: Database) throws -> [String] {
        try db.columns(in: table).map(\.name)
    }

    /// One table as CSV.
    static func csv(_ spec: TableFile, _ db: Database) throws -> String {
        let columns = spec.columns
        var out = CSV.row(columns)
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(spec.table) ORDER BY \(spec.order)")
        while let row = try rows.next() {
            out += CSV.row(
                columns.map { column in
                    let value = row[column] as DatabaseValue
                    switch value.storage {
                    case .null, .blob: return field(nil, column: column, of: spec)
                    case .int64(let number): return field(.integer(number), column: column, of: spec)
                    case .double(let number): return field(.real(number), column: column, of: spec)
                    case .string(let text): return field(.text(text), column: column, of: spec)
                    }
                })
        }
        return out
    }

    /// A stored value as the bundle writes it, whichever store it came from: SQLite's storage classes, which
    /// PostgreSQL's values are read as (flags as integers, instants and dates as the file's text).
    enum Cell {
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    /// One CSV field: empty for NULL, a whole real without its fraction, free text guarded against formulas.
    static func field(_ cell: Cell?, column: String, of spec: TableFile) -> String {
        switch cell {
        case nil: ""
        case .integer(let number): String(number)
        case .real(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .text(let text): CSV.field(text, freeText: spec.freeText.contains(column))
        }
    }

    /// The settings file: the settings in force and the ones set explicitly (`key`, `value` pairs).
    static func settingsFile(_ settings: DoseSettings, explicit: [(key: String, value: String)]) throws -> String {
        try BundleFiles.json(
            BundleSettingsFile(
                effective: Dictionary(effective(settings).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }),
                explicit: Dictionary(explicit.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })))
    }

    /// Writes a bundle of the table files (`tables`, in `ExportBundle.tables` order, with their columns) and the rest.
    static func write(
        tables: [(file: String, columns: [String], text: String)], settings: DoseSettings, explicit: [(key: String, value: String)],
        events: String, analytics: String, to path: String, clock: StoreClock
    ) throws {
        let version = BundleVersionFile(
            schemaVersion: String(Schema.version), app: "dosetap", format: BundleFormats.format, exportTimestamp: ISO8601.string(clock.now),
            timezone: clock.zone(settings).identifier)
        let files =
            tables.map { ($0.file, $0.text) } + [
                ("settings.json", try settingsFile(settings, explicit: explicit)), ("schema_version.json", try BundleFiles.json(version)),
                ("readme.txt", readme(columns: tables.map { ($0.file, $0.columns) })), ("events.csv", events), (analyticsFile, analytics),
            ]
        try SafeZip.write(files.map { ($0, Data($1.utf8)) }, to: path, at: clock.now)
    }

    /// What each file and column means, for a person opening the bundle.
    /// Long by design: it is the readme's text, one file of words.
    static func readme(columns: [(String, [String])]) -> String {
        var text = """
            DoseTap export bundle
            =====================

            All instants are ISO-8601 UTC with milliseconds; utc_offset_minutes is the offset in force when it happened and
            time_zone the IANA zone then in use. Enumerated values are snake_case. CSV follows RFC 4180; text that begins with
            =, +, -, @, a tab, a carriage return or ' has one ' added in front so spreadsheets do not run it as a formula
            (DoseTap removes it again on import). An empty field is a missing value.

            events.csv             SSOT CSV v1: every dose and sleep event and every undo, sorted by time.
            sessions_analytics.csv one row per night with the insights figures (`dosetap export --format sessions` writes
                                   it alone as sessions.csv); derived from the events, so an import does not read it.
            settings.json          the settings in force and the ones set explicitly.
            schema_version.json    the schema version, DoseTap version, export time and time zone.

            Importing: `dosetap import FILE.zip` (or Settings → Import) reads this bundle, format \(BundleFormats.format) at schema
            \(Schema.version), in this DoseTap and every later one. This DoseTap imports every \(BundleFormats.format) bundle from
            schema \(BundleFormats.oldest) to \(Schema.version), bringing an older one to today's layout first. Importing the
            same bundle again changes nothing.

            """
        let meanings: [String: String] = [
            "id": "unique id (UUID)", "session_id": "the night it belongs to (sessions.csv id)",
            "session_date": "the night's date (evening before, 18:00 rollover)",
            "started_at": "when the night's first record happened", "time_zone": "IANA zone in use", "ended_at": "when the night closed",
            "end_reason": "checkin, missed_checkin_cutoff or prep_rollover", "terminal_state": "completed, skipped, expired or aborted",
            "dose1_at": "Dose 1 instant (derived)", "dose2_at": "Dose 2 instant (derived)",
            "dose2_skipped": "1 if Dose 2 was skipped or slept through",
            "extra_dose_count": "extra doses that night", "snooze_count": "snoozes used", "interval_minutes": "minutes from Dose 1 to Dose 2",
            "occurred_at": "when it happened", "recorded_at": "when DoseTap recorded it", "utc_offset_minutes": "UTC offset then, minutes east",
            "source": "user, button, link, system or imported", "note": "the person's note", "event_type": "what happened (wire name)",
            "metadata": "JSON: is_early, is_late, dose_index, reason, count, snooze_until, confirmed", "category": "sleep event category",
            "wellness_score": "0–100, seed 003 formula", "completion_state": "partial, complete or skipped",
            "answers_json": "JSON of the pre-sleep answers",
            "medication_id": "catalogue id (dosetap med list)", "dose_mg": "dose in milligrams", "dose_amount": "amount as entered",
            "dose_unit": "mg, g or mL as entered", "taken_at": "when taken",
            "confirmed_duplicate": "1 if logged within 5 min of the same medication, confirmed",
            "batch_id": "entries logged together share it", "at": "when the change was made", "action": "undo, edit_event, delete_session, …",
            "entity_id": "the id of what changed", "details": "JSON of the values before (and after) the change",
            "kind": "refill_logged or inventory_adjustment (inventory); heart_rate, hrv_sdnn, respiratory_rate or oxygen_saturation (vitals)",
            "change_ml": "mL added (+) or removed (−); empty for a count",
            "counted_ml": "mL a count of the bottles found; empty for a change", "bottles": "bottles of a refill, when logged in bottles",
            "reason": "why (the person's words)", "provider": "apple_health or whoop", "stage": "in_bed, asleep, core, deep, rem or awake",
            "start_at": "when it began", "end_at": "when it ended", "start_offset_minutes": "the export's UTC offset at the start",
            "end_offset_minutes": "the export's UTC offset at the end", "imported_at": "when it was imported",
            "value": "beats or breaths a minute, ms (HRV), or a fraction (SpO2)",
            "offset_minutes": "the sleep's UTC offset (WHOOP's cycle time zone), minutes east", "nap": "1 for a nap",
            "in_bed_minutes": "minutes in bed", "asleep_minutes": "minutes asleep", "light_minutes": "light sleep (core), minutes",
            "deep_minutes": "deep sleep (slow-wave), minutes", "rem_minutes": "REM sleep, minutes", "awake_minutes": "awake in bed, minutes",
            "recovery_percent": "WHOOP's recovery, 0–100", "sleep_performance_percent": "sleep had against sleep needed, 0–100",
            "sleep_efficiency_percent": "asleep against in bed, 0–100", "resting_heart_rate": "beats a minute",
            "hrv_ms": "heart-rate variability (RMSSD), ms", "respiratory_rate": "breaths a minute", "oxygen_saturation_percent": "blood oxygen, %",
            "skin_temp_celsius": "skin temperature, °C",
        ].merging(DataTransfer.sessionsCSVMeanings) { first, _ in first }
        for (file, names) in columns + [(analyticsFile, DataTransfer.sessionsCSVColumns)] {
            text += "\n\(file)\n"
            for name in names { text += "  \(name): \(meanings[name] ?? name.replacingOccurrences(of: "_", with: " "))\n" }
        }
        return text
    }
}

extension DataTransfer {
    /// Writes the export bundle to `path`: a temporary name in the same folder, owner-only, synced, then renamed.
    /// Returns the number of data rows per file.
    @discardableResult
    public func exportBundle(to path: String, analytics: String, clock: StoreClock) throws -> [String: Int] {
        let (tables, counts, settings, explicit) = try database.read { db in
            var tables: [(file: String, columns: [String], text: String)] = []
            var counts: [String: Int] = [:]
            for spec in ExportBundle.tables {
                tables.append((spec.file, spec.columns, try ExportBundle.csv(spec, db)))
                counts[spec.file] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(spec.table)") ?? 0
            }
            let explicit = try Row.fetchAll(db, sql: "SELECT key, value FROM settings ORDER BY key").map {
                (key: $0["key"] as String, value: $0["value"] as String)
            }
            return (tables, counts, try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID), explicit)
        }
        try ExportBundle.write(
            tables: tables, settings: settings, explicit: explicit, events: try eventsCSV(), analytics: analytics, to: path, clock: clock)
        return counts
    }
}

struct BundleSettingsFile: Codable {
    var effective: [String: String]?
    var explicit: [String: String]
}

/// A bundle's `schema_version.json`. Bundles of schema 4 carry the same fields; `format` is checked when present.
struct BundleVersionFile: Codable {
    var schemaVersion: String
    var app: String?
    var format: String?
    var exportTimestamp: String?
    var timezone: String?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", app, format, exportTimestamp = "export_timestamp", timezone
    }
}

enum BundleFiles {
    /// A bundle's JSON file: sorted keys, indented, as every released bundle wrote it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Writes a zip so a crash never leaves half of one: owner-only, to a temporary name in the same folder, synced, then
/// renamed into place and the folder synced.
public enum SafeZip {
    /// Writes `entries` (name, bytes), deflated, dated `at`, to `path`.
    public static func write(_ entries: [(name: String, data: Data)], to path: String, at date: Date) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DoseError.invalidInput(
                field: "out", problem: "the folder \(directory.path) does not exist", allowed: "a path in an existing folder")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try? FileManager.default.removeItem(at: temporary)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw DoseError.invalidInput(field: "out", problem: "cannot write in \(directory.path)", allowed: "a writable folder")
        }
        try? FileManager.default.removeItem(at: temporary)
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            for (name, data) in entries {
                try archive.addEntry(
                    with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: date, permissions: 0o600,
                    compressionMethod: .deflate
                ) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
        let descriptor = open(temporary.path, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        guard rename(temporary.path, path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw DoseError.invalidInput(field: "out", problem: "cannot replace \(path)", allowed: "a writable path")
        }
        let directoryDescriptor = open(directory.path, O_RDONLY)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}
