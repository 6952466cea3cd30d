import DoseCore
import DoseStore
import Foundation

/// `sessions.csv` (seed 003 "Export System"): one row per night, oldest first, with the figures insights use, each
/// judged by DoseCore's window and adherence rules against the target in force, so a spreadsheet reproduces them. The
/// columns and what each means are the bundle format's (`DataTransfer.sessionsCSVColumns`).
enum SessionsCSV {
    /// `sessions.csv` for the nights dated `from` through `to` (all when nil) of `database`.
    static func text(_ database: AppDatabase, from: SessionKey? = nil, to: SessionKey? = nil, machineTimeZoneID: String) throws -> String {
        let settings = try database.settings.current(machineTimeZoneID: machineTimeZoneID)
        return try text(.sqlite(database), from: from, to: to, targetMinutes: settings.targetIntervalMinutes)
    }

    /// `sessions.csv` for the nights dated `from` through `to` (all when nil) of `store`, read in place.
    static func text(_ store: RecordStore, from: SessionKey? = nil, to: SessionKey? = nil, targetMinutes: Int) throws -> String {
        var records: [NightRecord] = []
        try store.forEachNight(from: from ?? SessionKey(year: 1, month: 1, day: 1)!, to: to ?? SessionKey(year: 9999, month: 12, day: 31)!) {
            records.append($0)
        }
        return text(records, targetMinutes: targetMinutes)
    }

    /// The night's sleep columns; every one empty without a wearable's sleep.
    static func sleepFields(_ figures: SleepFigures?, zone: TimeZone) -> [String] {
        guard let figures else { return Array(repeating: "", count: DataTransfer.sleepColumns.count) }
        func minutes(_ value: Double?) -> String { value.map(NumberText.tenths) ?? "" }
        func clock(_ instant: Date?) -> String { instant.map { LocalClock.hourMinute($0, in: zone) } ?? "" }
        let staged = figures.hasStages
        return [
            CSV.field(figures.sources.joined(separator: "; "), freeText: true), clock(figures.sleepOnset), clock(figures.finalWake),
            minutes(figures.minutesAsleep), minutes(figures.wasoMinutes), figures.wakeCount.map(String.init) ?? "",
            staged ? minutes(figures.stageMinutes[.deep]) : "", staged ? minutes(figures.stageMinutes[.rem]) : "",
            staged ? minutes(figures.stageMinutes[.core]) : "", minutes(figures.stageMinutes[.awake]), figures.stageAtDose2?.rawValue ?? "",
            minutes(figures.minutesFromDeepToDose2), minutes(figures.recovery?.recoveryPercent), minutes(figures.recovery?.restingHeartRate),
            minutes(figures.recovery?.hrvMilliseconds),
        ]
    }

    static func text(_ records: [NightRecord], targetMinutes: Int) -> String {
        var out = CSV.row(DataTransfer.sessionsCSVColumns)
        for record in records {
            let facts = record.session.facts
            let night = Adherence.Night(record.session, targetMinutes: targetMinutes)
            func local(_ event: NightEvent?) -> String {
                guard let event else { return "" }
                return LocalClock.hourMinute(event.occurredAt, in: TimeZone(identifier: event.timeZoneID) ?? TimeZone(secondsFromGMT: 0)!)
            }
            let zone = facts.dose1?.timeZoneID ?? record.session.events.first?.timeZoneID ?? ""
            out += CSV.row(
                [
                    record.session.date.description, record.session.id.rawValue, zone, local(facts.dose1), local(facts.dose2),
                    night?.intervalMinutes.map(String.init) ?? "", String(targetMinutes), night?.timing.rawValue ?? "",
                    night.map { String($0.timing == .onTarget) } ?? "", night.map { String($0.insideWindow) } ?? "",
                    night.map { String($0.naturalWake) } ?? "", String(facts.snoozes.count), String(facts.extraDoses.count),
                    night.map { String($0.awakenings) } ?? "", night.map { String($0.wasoEstimateMinutes) } ?? "",
                    record.checkIn.map { String($0.sleepQuality) } ?? "", record.checkIn.map { String($0.wellnessScore) } ?? "",
                    CSV.field(Array(Set(record.medications.map(\.name))).sorted().joined(separator: "; "), freeText: true),
                ] + sleepFields(record.sleep?.figures, zone: TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)!))
        }
        return out
    }
}
