import DoseCore
import Foundation
import GRDB
import ZIPFoundation

extension RecordImporter {
    /// Imports an export bundle. Anything malformed refuses the whole import before anything is kept; rows that
    /// already exist (same id) are skipped, so importing the same bundle twice changes nothing; rows that clash
    /// with what is stored (a second open night, a second check-in for a night) are rejected with their reason.
    func importBundle(at path: String) throws -> ImportReport {
        var files = try BundleReader.read(path: path)
        try BundleFormats.upgrade(&files, from: try BundleReader.checkVersion(files["schema_version.json"]))
        var report = ImportReport()
        try importSettings(files["settings.json"], report: &report)
        var rejectedSessions = Set<String>()
        var touchedSessions = Set<String>()
        for spec in ExportBundle.tables {
            guard let text = files[spec.file] else { throw DoseError.invalidFile(problem: "the bundle has no \(spec.file)") }
            let table = try CSVTable(file: spec.file, text: text, expected: spec.columns)
            if ["dose_events", "sleep_events"].contains(spec.table), let column = table.header.firstIndex(of: "session_id") {
                try ImportLimits.checkEventsPerNight(file: spec.file, nights: table.rows.map { $0.indices.contains(column) ? $0[column] : "" })
            }
            let types = try records.bundleColumnTypes(of: spec.table)
            for (index, values) in table.rows.enumerated() {
                let row = index + 1
                if row % 1_000 == 0 { try checkStopped() }
                var record = try table.record(values, row: row, types: types, freeText: spec.freeText)
                guard let id = record["id"] ?? nil, !id.isEmpty else {
                    throw DoseError.invalidFile(problem: "\(spec.file) row \(row): id is empty")
                }
                switch try admission(of: &record, id: id, table: spec.table, rejectedSessions: rejectedSessions) {
                case .insert: break
                case .skip(let reason):
                    report.skippedRow(spec.file, because: reason)
                    continue
                case .reject(let reason, let rejectsNight):
                    if rejectsNight { rejectedSessions.insert(id) }
                    report.reject(spec.file, row: row, reason)
                    continue
                }
                do { try records.insertBundleRow(record, into: spec.table) } catch let refused as ImportRowRefused {
                    throw DoseError.invalidFile(problem: "\(spec.file) row \(row): a value is not allowed (\(refused.reason))")
                }
                if let session = spec.table == "sleep_sessions" ? id : (record["session_id"] ?? nil) { touchedSessions.insert(session) }
                report.importedRow(spec.file)
            }
        }
        // The derived columns are rebuilt from the imported events (D13), whatever the file said.
        for id in touchedSessions.sorted() {
            if let night = try records.night(id: SessionID(rawValue: id)) { try records.saveNight(night, closure: nil) }
        }
        return report
    }

    /// What becomes of one bundle row.
    enum Admission {
        case insert
        /// Already stored: importing the same bundle twice changes nothing.
        case skip(String)
        /// Refused with its reason; `rejectsNight` when the row is a night whose rows must all follow it out.
        case reject(String, rejectsNight: Bool = false)
    }

    /// Whether a bundle row joins the store: rows of a rejected night follow it, a row already stored is skipped, a
    /// second open night or a second check-in or pre-sleep log for a night is refused, a row's night must be in the
    /// store, and a medication whose night is not keeps the entry without it.
    func admission(of record: inout [String: String?], id: String, table: String, rejectedSessions: Set<String>) throws -> Admission {
        let session = record["session_id"] ?? nil
        if table != "audit_log", table != "sleep_sessions", let session, rejectedSessions.contains(session) {
            return .reject("its night (\(session)) was rejected")
        }
        if try records.holdsRow(in: table, id: id) { return .skip("already present (same id)") }
        if table == "sleep_sessions", record["ended_at"] ?? nil == nil, try records.openNight() != nil {
            return .reject("a night is already open here; an open night cannot be imported beside it", rejectsNight: true)
        }
        if table == "medication_events", let session, try !records.holdsRow(in: "sleep_sessions", id: session) {
            record["session_id"] = .some(nil)
        }
        if ["morning_checkins", "pre_sleep_logs"].contains(table), let session,
            try records.holdsRow(in: table, ofNight: SessionID(rawValue: session))
        {
            return .reject("that night already has one (one per night)")
        }
        if let session = record["session_id"] ?? nil, table != "audit_log", table != "medication_events",
            try !records.holdsRow(in: "sleep_sessions", id: session)
        {
            return .reject("its night (\(session)) is not in the bundle")
        }
        return .insert
    }

    func importSettings(_ text: String?, report: inout ImportReport) throws {
        guard let text else { return }
        guard let explicit = (try? JSONDecoder().decode(BundleSettingsFile.self, from: Data(text.utf8)))?.explicit else {
            throw DoseError.invalidFile(problem: "settings.json is not a DoseTap settings file")
        }
        var settings = DoseSettings(timeZoneID: "UTC")
        for (key, value) in explicit.sorted(by: { $0.key < $1.key }) {
            do { settings = try settings.setting(key, to: value) } catch {
                throw DoseError.invalidFile(problem: "settings.json: \(error.message)")
            }
        }
        if try records.hasStoredSettings() {
            report.notes.append("settings kept: this database already has its own")
            return
        }
        // Dated at the epoch: the bundle does not say when each was chosen, and no audit entry claims it happened now.
        try records.insertImportedSettings(explicit.sorted(by: { $0.key < $1.key }).map { (key: $0.key, value: $0.value) })
        if !explicit.isEmpty { report.notes.append("settings applied: \(explicit.keys.sorted().joined(separator: ", "))") }
    }
}

/// A parsed CSV file checked against the columns it must have.
struct CSVTable {
    let file: String
    let header: [String]
    let rows: [[String]]

    init(file: String, text: String, expected: [String]) throws {
        let parsed: (header: [String], rows: [[String]])
        do {
            parsed = try CSV.parse(text)
        } catch {
            throw DoseError.invalidFile(problem: "\(file) row \(error.row): \(error.problem)")
        }
        let header = parsed.header
        guard header == expected else {
            let missing = expected.filter { !header.contains($0) }
            let extra = header.filter { !expected.contains($0) }
            // Name a few of the unexpected columns, each cut short: a header of 100,000 columns must not come back whole.
            let named = extra.prefix(5).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }.joined(separator: ", ")
            let more = extra.count > 5 ? " and \(extra.count - 5) more" : ""
            throw DoseError.invalidFile(
                problem:
                    "\(file) has the wrong header (missing: \(missing.joined(separator: ", ")); unexpected: \(named)\(more)); expected "
                    + "\(expected.joined(separator: ","))"
            )
        }
        self.file = file
        self.header = header
        self.rows = parsed.rows
    }

    /// One row as column → value (nil for empty), with numbers, instants and free text checked.
    func record(_ values: [String], row: Int, types: [String: String], freeText: Set<String>) throws -> [String: String?] {
        var record: [String: String?] = [:]
        for (column, raw) in zip(header, values) {
            guard !raw.isEmpty else {
                record[column] = .some(nil)
                continue
            }
            let value = freeText.contains(column) ? CSV.unguard(raw) : raw
            let type = types[column] ?? "TEXT"
            if type.contains("INT"), Int64(value) == nil {
                throw DoseError.invalidFile(problem: "\(file) row \(row): \(column) '\(raw)' is not a whole number")
            }
            if type.contains("REAL"), Double(value) == nil || !(Double(value)?.isFinite ?? false) {
                throw DoseError.invalidFile(problem: "\(file) row \(row): \(column) '\(raw)' is not a number")
            }
            if column == "at" || column.hasSuffix("_at"), ISO8601.parseCanonical(value) == nil {
                throw DoseError.invalidFile(problem: "\(file) row \(row): \(column) '\(raw)' is not an instant like 2026-11-22T06:30:00.000Z")
            }
            if column == "session_date", SessionKey(parsing: value) == nil {
                throw DoseError.invalidFile(problem: "\(file) row \(row): session_date '\(raw)' is not a date YYYY-MM-DD")
            }
            if column == "time_zone", TimeZone(identifier: value) == nil {
                throw DoseError.invalidFile(problem: "\(file) row \(row): time_zone '\(raw)' is not a known zone")
            }
            record[column] = .some(value)
        }
        return record
    }
}

/// Reads a bundle's entries, refusing anything hostile before a byte of it is used.
enum BundleReader {
    static let allowedNames = Set(ExportBundle.tables.map(\.file) + ExportBundle.otherFiles + ["settings.csv"])

    static func read(path: String) throws -> [String: String] {
        try read(path: path, what: "the bundle") { name in
            guard !name.contains("/") else { throw DoseError.invalidFile(problem: "'\(name)' is not a plain file name (paths and '..' are refused)") }
            guard allowedNames.contains(name) else { throw DoseError.invalidFile(problem: "'\(name)' is not a file of a DoseTap bundle") }
            return name
        }
    }

    /// Reads the text of a zip's entries that `select` names (it returns the key to keep an entry under, nil to pass
    /// it by, or throws to refuse the zip), after checking every entry: files only, no absolute or `..` paths, sizes
    /// and compression ratios within `ImportLimits`, checksums intact, UTF-8 text.
    static func read(path: String, what: String, select: (String) throws -> String?) throws -> [String: String] {
        let url = URL(fileURLWithPath: path)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? Int,
            (attributes[.type] as? FileAttributeType) == .typeRegular
        else {
            throw DoseError.invalidFile(problem: "\(path) cannot be read as a file")
        }
        guard size <= ImportLimits.maximumFileBytes else { throw DoseError.tooLarge(what: url.lastPathComponent, limit: "20 MiB") }
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw DoseError.invalidFile(problem: "\(url.lastPathComponent) is not a readable zip archive (damaged or truncated)")
        }
        var entries: [Entry] = []
        var wanted: [(entry: Entry, key: String)] = []
        var total: UInt64 = 0
        for entry in archive {
            entries.append(entry)
            guard entries.count <= ImportLimits.maximumEntries else {
                throw DoseError.invalidFile(problem: "\(what) has more than \(ImportLimits.maximumEntries) entries")
            }
            let name = entry.path
            guard entry.type == .file else {
                throw DoseError.invalidFile(problem: "'\(name)' is a \(entry.type == .symlink ? "link" : "folder"); \(what) may hold only files")
            }
            guard !name.hasPrefix("/"), !name.contains(".."), !name.contains("\\") else {
                throw DoseError.invalidFile(problem: "'\(name)' is not a plain file name (paths and '..' are refused)")
            }
            if let key = try select(name) { wanted.append((entry, key)) }
            guard entry.uncompressedSize <= UInt64(ImportLimits.maximumEntryBytes) else {
                throw DoseError.tooLarge(what: name, limit: "64 MiB uncompressed")
            }
            if entry.uncompressedSize > 4096, entry.uncompressedSize > entry.compressedSize * UInt64(ImportLimits.maximumCompressionRatio) {
                throw DoseError.invalidFile(
                    problem: "'\(name)' expands more than \(ImportLimits.maximumCompressionRatio):1; refused as a possible zip bomb")
            }
            total += entry.uncompressedSize
            guard total <= UInt64(ImportLimits.maximumTotalBytes) else { throw DoseError.tooLarge(what: what, limit: "128 MiB uncompressed") }
        }
        guard Set(entries.map(\.path)).count == entries.count else { throw DoseError.invalidFile(problem: "\(what) names a file twice") }
        var files: [String: String] = [:]
        for (entry, key) in wanted {
            guard files[key] == nil else { throw DoseError.invalidFile(problem: "\(what) holds two files named \(key)") }
            files[key] = try text(of: entry, in: archive)
        }
        return files
    }

    /// An entry's text, read no further than its header's size, with its checksum checked and as UTF-8.
    static func text(of entry: Entry, in archive: Archive) throws -> String {
        var data = Data()
        do {
            let checksum = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                // The header's size may lie; stop at what it promised.
                guard data.count <= Int(entry.uncompressedSize) else {
                    throw DoseError.invalidFile(problem: "'\(entry.path)' is larger than its header says")
                }
            }
            guard checksum == entry.checksum else { throw DoseError.invalidFile(problem: "'\(entry.path)' is damaged (checksum mismatch)") }
        } catch let error as DoseError {
            throw error
        } catch {
            throw DoseError.invalidFile(problem: "'\(entry.path)' cannot be read (damaged or truncated)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw DoseError.invalidFile(problem: "'\(entry.path)' is not UTF-8 text") }
        return text
    }

    /// The bundle's schema version, if this build imports it.
    static func checkVersion(_ text: String?) throws -> Int {
        guard let text, let file = try? JSONDecoder().decode(BundleVersionFile.self, from: Data(text.utf8)), let version = Int(file.schemaVersion)
        else {
            throw DoseError.invalidFile(problem: "the bundle has no valid schema_version.json")
        }
        if let format = file.format, format != BundleFormats.format {
            throw DoseError.invalidFile(problem: "the bundle's format is '\(format.prefix(40))'; this DoseTap imports \(BundleFormats.format)")
        }
        guard version <= Schema.version else {
            throw DoseError.invalidFile(problem: "the bundle is from a newer DoseTap (schema \(version); this one reads up to \(Schema.version))")
        }
        guard BundleFormats.importable.contains(version) else {
            throw DoseError.invalidFile(
                problem:
                    "the bundle has schema \(version); this DoseTap imports bundles of schema "
                    + "\(BundleFormats.importable.lowerBound)–\(BundleFormats.importable.upperBound)"
            )
        }
        return version
    }
}

/// Every bundle this project has released stays importable: a bundle of an older schema is brought, one frozen step
/// at a time, to today's layout before it is read, as the database itself is migrated. A migration that changes what
/// a bundle holds must add its step here; a test fails while one is missing, and the committed fixtures of every
/// released format are imported and checked row by row on every test run.
enum BundleFormats {
    /// The name in every bundle's `schema_version.json`.
    static let format = "dosetap-bundle-1"
    /// The first released bundle: `dosetap-bundle-1` at schema 4.
    static let oldest = 4
    static var importable: ClosedRange<Int> { oldest...Schema.version }

    /// Rewrites a bundle's files from schema `key` to `key + 1`. Never edit a step once released.
    static let upgrades: [Int: @Sendable (inout [String: String]) throws -> Void] = [
        // v5 added the server's run log (`server_runs`), which bundles do not carry: the files are unchanged.
        4: { _ in },
        // v6 added Web Push subscriptions and the alarm log, which bundles do not carry, and five alarm settings, which
        // settings.json lists among the settings in effect with their defaults.
        5: { files in
            guard let text = files["settings.json"], var settings = try? JSONDecoder().decode(BundleSettingsFile.self, from: Data(text.utf8)),
                settings.effective != nil
            else { return }
            let defaults = DoseSettings(timeZoneID: "UTC")
            for key in [SettingKey.wakeAlarmRefireMinutes, .escalationEnabled, .escalationMinutes, .escalationContact, .escalationContactFormat] {
                if settings.effective?[key.rawValue] == nil { settings.effective?[key.rawValue] = try defaults.value(of: key.rawValue) }
            }
            files["settings.json"] = try BundleFiles.json(settings)
        },
        // v7 added the nights' summaries for insights, derived from the events, which bundles do not carry: unchanged.
        6: { _ in },
        // v8 added the supply ledger (`inventory.csv`, empty before) and eight medication and refill settings, listed
        // among the settings in effect with their defaults.
        7: { files in
            files["inventory.csv"] = files["inventory.csv"] ?? CSV.row(BundleFormats.inventoryColumns)
            guard let text = files["settings.json"], var settings = try? JSONDecoder().decode(BundleSettingsFile.self, from: Data(text.utf8)),
                settings.effective != nil
            else { return }
            let defaults = DoseSettings(timeZoneID: "UTC")
            let added: [SettingKey] = [
                .medicationProduct, .dose1Milligrams, .dose2Milligrams, .concentration, .bottleML, .pharmacyLeadDays, .refillMarginDays,
                .refillReminderTime,
            ]
            for key in added where settings.effective?[key.rawValue] == nil {
                settings.effective?[key.rawValue] = try defaults.value(of: key.rawValue)
            }
            files["settings.json"] = try BundleFiles.json(settings)
        },
        // v9 added wearable sleep and vitals, empty before.
        8: { files in
            files["wearable_sleep.csv"] = files["wearable_sleep.csv"] ?? CSV.row(BundleFormats.wearableSleepColumns)
            files["wearable_vitals.csv"] = files["wearable_vitals.csv"] ?? CSV.row(BundleFormats.wearableVitalsColumns)
        },
        // v10 added sleeps given as totals (WHOOP), empty before, and the sleep-source priority, listed among the settings
        // in effect with its default.
        9: { files in
            files["wearable_summaries.csv"] = files["wearable_summaries.csv"] ?? CSV.row(BundleFormats.wearableSummaryColumns)
            guard let text = files["settings.json"], var settings = try? JSONDecoder().decode(BundleSettingsFile.self, from: Data(text.utf8)),
                settings.effective != nil
            else { return }
            let key = SettingKey.sleepSourcePriority.rawValue
            if settings.effective?[key] == nil { settings.effective?[key] = try DoseSettings(timeZoneID: "UTC").value(of: key) }
            files["settings.json"] = try BundleFiles.json(settings)
        },
        // v11 added when each paired device was last used and when it expires; bundles carry no devices: unchanged.
        10: { _ in },
        // v12 keeps each night's regimen on its Dose 1. Every Dose 1 of an older bundle was twice nightly and gets the regimen
        // of its time from the bundle's profile, as the database's migration gives it; `regimen` is listed among the
        // settings in effect with its default.
        11: { files in
            var profile = DoseSettings(timeZoneID: "UTC")
            let settingsFile = files["settings.json"].flatMap { try? JSONDecoder().decode(BundleSettingsFile.self, from: Data($0.utf8)) }
            for (key, value) in (settingsFile?.explicit ?? [:]).sorted(by: { $0.key < $1.key }) {
                profile = (try? profile.setting(key, to: value)) ?? profile
            }
            if let events = files["dose_events.csv"] { files["dose_events.csv"] = try NightRegimenFill.stampedDoseEvents(events, profile: profile) }
            let key = SettingKey.regimen.rawValue
            if var file = settingsFile, file.effective != nil, file.effective?[key] == nil {
                file.effective?[key] = try DoseSettings(timeZoneID: "UTC").value(of: key)
                files["settings.json"] = try BundleFiles.json(file)
            }
        },
        // v13 admits the audit of a dose taken past the night's limits; an older bundle has none: the files are unchanged.
        12: { _ in },
    ]

    /// The columns of `wearable_summaries.csv` at schema 10.
    static let wearableSummaryColumns = [
        "id", "provider", "source", "start_at", "end_at", "offset_minutes", "nap", "in_bed_minutes", "asleep_minutes", "light_minutes",
        "deep_minutes", "rem_minutes", "awake_minutes", "recovery_percent", "sleep_performance_percent", "sleep_efficiency_percent",
        "resting_heart_rate", "hrv_ms", "respiratory_rate", "oxygen_saturation_percent", "skin_temp_celsius", "imported_at",
    ]

    /// The columns of `wearable_sleep.csv` and `wearable_vitals.csv` at schema 9.
    static let wearableSleepColumns = [
        "id", "provider", "source", "stage", "start_at", "end_at", "start_offset_minutes", "end_offset_minutes", "imported_at",
    ]
    static let wearableVitalsColumns = ["id", "provider", "source", "kind", "start_at", "end_at", "value", "imported_at"]

    /// The columns of `inventory.csv` at schema 8.
    static let inventoryColumns = ["id", "kind", "occurred_at", "recorded_at", "time_zone", "change_ml", "counted_ml", "bottles", "reason"]

    static func upgrade(_ files: inout [String: String], from version: Int) throws {
        for step in version..<Schema.version {
            guard let upgrade = upgrades[step] else {
                throw DoseError.invalidFile(problem: "this DoseTap cannot bring a schema \(step) bundle to schema \(step + 1)")
            }
            try upgrade(&files)
        }
    }
}
