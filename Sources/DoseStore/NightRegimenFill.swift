import DoseCore
import Foundation

/// The one statement that gives every Dose 1 recorded before nights kept their regimen the regimen of its time (SQLite's
/// migration v12, PostgreSQL's v14). Built from the profile's defaults in DoseCore, so the fill and a new night agree.
enum NightRegimenFill {
    /// The SQL dialect's pieces the statement needs.
    struct Dialect: Sendable {
        /// The text of `key` in the JSON text column `column`, or NULL.
        let jsonField: @Sendable (_ column: String, _ key: String) -> String
        /// One stored setting of the event's person, or NULL when it has its default.
        let settingValue: @Sendable (SettingKey) -> String
        /// The condition that keeps a sub-query on `e` to the event's person (empty for a store of one).
        let samePerson: String

        /// SQLite: one person, `json_extract`.
        static let sqlite = Dialect(
            jsonField: { "CAST(json_extract(\($0), '$.\($1)') AS TEXT)" },
            settingValue: { "(SELECT value FROM settings WHERE key = '\($0.rawValue)')" }, samePerson: "")
        /// PostgreSQL: every person's, `->>`.
        static let postgres = Dialect(
            jsonField: { "(\($0)::jsonb ->> '\($1)')" },
            settingValue: { "(SELECT s.value FROM settings AS s WHERE s.person_id = d.person_id AND s.key = '\($0.rawValue)')" },
            samePerson: "AND e.person_id = d.person_id")
    }

    /// The UPDATE in `dialect`.
    static func sql(_ dialect: Dialect) -> String {
        let defaults = DoseSettings(timeZoneID: "UTC")
        func setting(_ key: SettingKey, _ fallback: String) -> String { "COALESCE(\(dialect.settingValue(key)), '\(fallback)')" }
        let dose2Amount = """
            (SELECT \(dialect.jsonField("e.metadata", "amount_mg")) FROM dose_events AS e
                WHERE e.session_id = d.session_id AND e.event_type = 'dose2' \(dialect.samePerson) LIMIT 1)
            """
        // The keys of a Dose 1's metadata all sort before "regimen", so it goes last, as the sorted encoder puts it.
        return """
            UPDATE dose_events AS d SET metadata =
                CASE WHEN trim(d.metadata) = '{}' THEN '{' ELSE substr(d.metadata, 1, length(d.metadata) - 1) || ',' END
                || '"regimen":{"doses_mg":['
                || COALESCE(\(dialect.jsonField("d.metadata", "amount_mg")), \(setting(.dose1Milligrams, String(defaults.dose1Milligrams))))
                || ',' || COALESCE(\(dose2Amount), \(setting(.dose2Milligrams, String(defaults.dose2Milligrams))))
                || '],"kind":"\(DoseRegimen.Kind.twiceNightly.rawValue)","product":"' || \(setting(.medicationProduct, defaults.medicationProduct))
                || '","target_minutes":' || \(setting(.targetInterval, String(defaults.targetIntervalMinutes))) || '}}'
            WHERE d.event_type = 'dose1' AND \(dialect.jsonField("d.metadata", "regimen")) IS NULL;
            """
    }
}

extension NightRegimenFill {
    /// A Dose 1's metadata text with `regimen` added as its last key, as the migrations add it; unchanged when it has one.
    static func stamped(_ metadata: String, with regimen: DoseRegimen) throws -> String {
        let decoded = try JSONDecoder().decode(EventMetadata.self, from: Data(metadata.utf8))
        guard decoded.regimen == nil else { return metadata }
        let regimenText = String(decoding: try NightRecords.metadataEncoder.encode(regimen), as: UTF8.self)
        let trimmed = metadata.trimmingCharacters(in: .whitespaces)
        let opening = trimmed == "{}" ? "{" : String(trimmed.dropLast()) + ","
        return opening + "\"regimen\":" + regimenText + "}"
    }

    /// `dose_events.csv` of a bundle from before nights kept their regimen, with each Dose 1 given the regimen of its time:
    /// twice nightly, its own amount and its night's Dose 2 amount (the profile's where a dose has none), the profile's
    /// product and target.
    static func stampedDoseEvents(_ text: String, profile: DoseSettings) throws -> String {
        let table = try CSV.parse(text)
        guard let type = table.header.firstIndex(of: "event_type"), let metadata = table.header.firstIndex(of: "metadata"),
            let session = table.header.firstIndex(of: "session_id")
        else { return text }
        func amount(_ row: [String]) -> Int? { try? JSONDecoder().decode(EventMetadata.self, from: Data(row[metadata].utf8)).amountMilligrams }
        var dose2Amounts: [String: Int] = [:]
        for row in table.rows where row[type] == "dose2" { dose2Amounts[row[session]] = dose2Amounts[row[session]] ?? amount(row) }
        var out = CSV.row(table.header.map { CSV.field($0) })
        for var row in table.rows {
            if row[type] == "dose1" {
                let regimen = DoseRegimen(
                    kind: .twiceNightly, product: profile.medicationProduct,
                    dosesMilligrams: [amount(row) ?? profile.dose1Milligrams, dose2Amounts[row[session]] ?? profile.dose2Milligrams],
                    targetMinutes: profile.targetIntervalMinutes)
                row[metadata] = try stamped(row[metadata].isEmpty ? "{}" : row[metadata], with: regimen)
            }
            out += CSV.row(row.map { CSV.field($0) })
        }
        return out
    }
}
