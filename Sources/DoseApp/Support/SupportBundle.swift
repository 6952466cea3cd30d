import Crypto
public import DoseCore
import DoseStore
import Foundation

/// A support bundle's files after redaction, exactly as they will be written: what the person reviews.
public struct SupportBundle: Sendable {
    /// One file of the zip.
    public struct File: Sendable {
        public let name: String
        public let text: String
    }

    public let files: [File]
    /// The instant the zip's entries are dated: now, moved like every other time in the bundle.
    let datedAt: Date

    /// Every file and its whole content, for the review before anything is written.
    public var review: String {
        files.map { "===== \($0.name) (\($0.text.utf8.count) bytes) =====\n\($0.text)\($0.text.hasSuffix("\n") ? "" : "\n")" }.joined(separator: "\n")
    }
}

/// The support bundle (seed 003 "Support Bundle System"): what a person can send when asking for help, with what
/// identifies them taken out. Notes are left out; event and entry ids become salted SHA-256 pseudonyms, the salt
/// drawn anew for each bundle (stable inside one, unlinkable across two); every instant moves by the same whole number
/// of days so the first night falls on `firstNight` (intervals and times of day are kept); other medications are
/// named by their class only; settings leave out the escalation contact; the diagnostic log is re-checked line by line.
public struct SupportService: Sendable {
    let app: UseCases

    /// Where the redacted history starts.
    public static let firstNight = SessionKey(year: 2000, month: 1, day: 1)!
    /// The file name of the raw database, included only when asked for.
    public static let databaseFileName = "database.sqlite"

    /// The redacted files, from the stored records and the diagnostic log's text.
    public func bundle(diagnosticLog: String, version: String) throws -> SupportBundle {
        try app.night.settle()
        let records = try app.store.supportRecords(machineTimeZoneID: app.clock.machineTimeZoneID)
        let salt = app.clock.random.bytes(32)
        let pseudonym = { (id: String) -> String in
            var hash = SHA256()
            hash.update(data: salt)
            hash.update(data: Data(id.utf8))
            return "p-" + hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        }
        let first = (records.events.map(\.occurredAt) + records.medications.map(\.takenAt) + records.inventory.map(\.occurredAt)).min()
        let shift = first.map { Self.shift(from: $0) } ?? 0
        let moved = { (date: Date) in ISO8601.string(date.addingTimeInterval(shift)) }

        var events = CSV.row(DataTransfer.eventsCSVHeader.split(separator: ",").map(String.init))
        for event in records.events {
            events += CSV.row([pseudonym(event.id), event.type, event.source, moved(event.occurredAt), event.timeZoneID, event.doseSequence, ""])
        }
        var medications = CSV.row(["entry", "class", "taken_at_utc"])
        for entry in records.medications {
            let category = (try? MedicationCatalogue.medication(id: entry.medicationID))?.category.rawValue ?? "other"
            medications += CSV.row([pseudonym(entry.id), category, moved(entry.takenAt)])
        }
        var inventory = CSV.row(["entry", "kind", "occurred_at_utc", "change_ml", "counted_ml", "bottles"])
        for entry in records.inventory {
            inventory += CSV.row([
                pseudonym(entry.id), entry.kind.rawValue, moved(entry.occurredAt), entry.changeML.map(NumberText.plain) ?? "",
                entry.countedML.map(NumberText.plain) ?? "", entry.bottles.map(String.init) ?? "",
            ])
        }
        let metadata = SupportMetadata(
            app: "dosetap", version: version, schemaVersion: records.schemaVersion, createdAt: moved(app.clock.now),
            settings: Self.settingsWithoutSecrets(records.settings), counts: records.counts,
            databaseBytes: app.store.sqliteFile?.transfer.databaseBytes ?? 0,
            firstNight: Self.firstNight.description, redaction: Self.redaction)
        let files = [
            SupportBundle.File(name: "readme.txt", text: Self.readme),
            SupportBundle.File(name: "events.csv", text: events),
            SupportBundle.File(name: "medications.csv", text: medications),
            SupportBundle.File(name: "inventory.csv", text: inventory),
            SupportBundle.File(name: "app_metadata.json", text: JSONValue(response: metadata).rendered(pretty: true) + "\n"),
            SupportBundle.File(name: "debug_log.txt", text: DiagnosticLog.sanitized(diagnosticLog, shift: shift)),
        ]
        return SupportBundle(files: files, datedAt: app.clock.now.addingTimeInterval(shift))
    }

    /// Writes the reviewed bundle as a zip (owner-only, atomic). The raw database goes in only with `includeDatabase`.
    public func write(_ bundle: SupportBundle, to path: String, includeDatabase: Bool) throws {
        var entries = bundle.files.map { (name: $0.name, data: Data($0.text.utf8)) }
        if includeDatabase {
            let copy = app.scratchPath("dosetap-support", suffix: ".sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
            try app.store.copyDatabase(to: copy)
            entries.append((name: Self.databaseFileName, data: try Data(contentsOf: URL(fileURLWithPath: copy))))
        }
        try SafeZip.write(entries, to: path, at: bundle.datedAt)
    }

    /// The warning shown before the raw database is added.
    public static let databaseWarning =
        "The raw database holds everything DoseTap recorded, unredacted: every note, time, medication and device name. "
        + "Include it only if you were asked to, and only for someone you trust with your health data."

    /// Seconds to add to every instant so the first one falls on `firstNight`'s date (UTC): a whole number of days.
    static func shift(from first: Date) -> TimeInterval {
        let firstDay = (first.timeIntervalSince1970 / 86_400).rounded(.down)
        let target = (Self.firstNightInstant.timeIntervalSince1970 / 86_400).rounded(.down)
        return (target - firstDay) * 86_400
    }

    private static let firstNightInstant = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z

    /// The settings as a support person needs them, without the escalation contact's address.
    static func settingsWithoutSecrets(_ settings: DoseSettings) -> [String: String] {
        var listed = Dictionary(settings.listing().map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        listed[SettingKey.escalationContact.rawValue] = settings.escalationContact.isEmpty ? "" : "(set, withheld)"
        // The product is a medication name; its class says what support needs (the amounts and concentration stay).
        listed[SettingKey.medicationProduct.rawValue] = MedicationCategory.sodiumOxybate.rawValue
        return listed
    }

    static let redaction = [
        "notes removed", "ids replaced by salted SHA-256 pseudonyms, stable within this bundle only",
        "times moved by whole days so the first night is on 2000-01-01", "medications named by class (the oxybate product too)",
        "supply reasons removed",
        "escalation contact withheld", "diagnostic log: fixed messages and plain tokens only",
    ]

    /// One line a point, unwrapped, so it reads on a phone's review page as well as in a text editor.
    static let readme =
        [
            "DoseTap support bundle", "",
            "Made to help with a problem, with what identifies you taken out:",
            "- events.csv: every event's type, source, time and zone (SSOT CSV v1 columns); notes are empty, and ids are pseudonyms that mean "
                + "nothing outside this bundle.",
            "- medications.csv: other medications by class only (stimulant, SSRI, ...), with their times.",
            "- inventory.csv: refills and supply adjustments in mL, with their times; the reasons typed are left out.",
            "- Every time is moved by the same whole number of days so the first night falls on 2000-01-01; intervals and times of day are kept.",
            "- app_metadata.json: version, schema, settings (the escalation contact withheld), row counts and sizes.",
            "- debug_log.txt: the diagnostic log, which holds fixed messages and plain codes, never health data, notes, names, tokens or addresses.",
        ].joined(separator: "\n") + "\n"
}

/// `app_metadata.json`.
struct SupportMetadata: Encodable {
    let app, version: String
    let schemaVersion: Int
    let createdAt: String
    let settings: [String: String]
    let counts: [String: Int]
    let databaseBytes: Int
    let firstNight: String
    let redaction: [String]

    enum CodingKeys: String, CodingKey {
        case app, version, schemaVersion = "schema_version", createdAt = "created_at", settings, counts, databaseBytes = "database_bytes"
        case firstNight = "first_night", redaction
    }
}
