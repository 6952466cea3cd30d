import DoseCore
import Foundation

extension RecordImporter {
    /// Imports an events.csv (SSOT CSV v1). Events are grouped into nights by their session key in their own zone;
    /// a night that exists here receives them, otherwise one is created (closed once its check-in cutoff has passed).
    /// Undo rows describe removed events and are skipped; doses that would contradict the night are rejected.
    func importEventsCSV(at path: String) throws -> ImportReport {
        let file = "events.csv"
        let text = try Self.readText(path, limit: ImportLimits.maximumFileBytes)
        let table = try CSVTable(
            file: file, text: text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text,
            expected: DataTransfer.eventsCSVHeader.split(separator: ",").map(String.init))
        var parsed: [(row: Int, event: NightEvent, night: SessionKey)] = []
        var report = ImportReport()
        for (index, values) in table.rows.enumerated() {
            let row = index + 1
            if row % 1_000 == 0 { try checkStopped() }
            let field = Dictionary(uniqueKeysWithValues: zip(table.header, values))
            let id = field["event_id"] ?? ""
            guard !id.isEmpty, id.count <= 64 else { throw DoseError.invalidFile(problem: "\(file) row \(row): event_id is empty or too long") }
            let type = field["event_type"] ?? ""
            if type == "undo" {
                report.skippedRow(file, because: "undo rows record removed events; there is nothing to import")
                continue
            }
            parsed.append(try Self.eventRow(field, type: type, id: id, row: row, file: file, clock: clock))
        }
        try ImportLimits.checkEventsPerNight(file: file, nights: parsed.map(\.night.description))
        let settings = try records.settings(machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        _ = try settling(records)
        var fresh: [(row: Int, event: NightEvent, night: SessionKey)] = []
        let recorded = try recorded(among: parsed.map(\.event.id))
        for item in parsed {
            if recorded.contains(item.event.id) {
                report.skippedRow(file, because: "already present (same event_id)")
            } else {
                fresh.append(item)
            }
        }
        let nights = Dictionary(grouping: fresh, by: \.night)
        let stored = try latestNights(on: Set(nights.keys))
        for key in nights.keys.sorted() {
            try checkStopped()
            let items = nights[key]!.map { (row: $0.row, event: $0.event) }.sorted { $0.event.occurredAt < $1.event.occurredAt }
            try importNight(key, into: stored[key], items: items, file: file, settings: settings, zone: zone, report: &report)
        }
        return report
    }

    /// One row of an events.csv as the event it records and its night (the session key in the event's own zone), or
    /// the refusal naming the row and the column.
    static func eventRow(
        _ field: [String: String], type: String, id: String, row: Int, file: String, clock: StoreClock
    ) throws -> (row: Int, event: NightEvent, night: SessionKey) {
        let kind: EventKind
        switch type {
        case "dose1_taken", "dose1": kind = .dose1
        case "dose2_taken", "dose2": kind = .dose2
        case "extra_dose_taken", "extra_dose": kind = .extraDose
        case "dose2_skipped": kind = .dose2Skipped
        case "snooze": kind = .snooze
        default:
            guard let definition = SleepEventCatalogue.standard.definition(of: SleepEventType(rawValue: type)) else {
                throw DoseError.invalidFile(problem: "\(file) row \(row): event_type '\(type)' is not a DoseTap event")
            }
            kind = .sleep(definition.type)
        }
        let sourceText = field["source"] ?? ""
        guard let source = EventSource(rawValue: sourceText) ?? (["watch", "flic"].contains(sourceText) ? .button : nil) else {
            throw DoseError.invalidFile(problem: "\(file) row \(row): source '\(sourceText)' is not one of user, button, link, system, imported")
        }
        guard let at = ISO8601.parse(field["occurred_at_utc"] ?? "") else {
            throw DoseError.invalidFile(
                problem: "\(file) row \(row): occurred_at_utc '\(field["occurred_at_utc"] ?? "")' is not an ISO-8601 instant")
        }
        guard at <= clock.now.addingTimeInterval(NightRules.futureTolerance) else {
            throw DoseError.invalidFile(problem: "\(file) row \(row): occurred_at_utc is in the future")
        }
        let zoneText = field["local_tz"] ?? ""
        guard let zone = TimeZone(identifier: zoneText), zoneText.contains("/") || zoneText == "UTC" else {
            throw DoseError.invalidFile(problem: "\(file) row \(row): local_tz '\(zoneText)' is not an IANA time zone")
        }
        let sequence = field["dose_sequence"] ?? ""
        guard sequence.isEmpty || Int(sequence).map({ (1...20).contains($0) }) == true else {
            throw DoseError.invalidFile(problem: "\(file) row \(row): dose_sequence '\(sequence)' is not 1, 2, … or empty")
        }
        let rawNote = field["note"] ?? ""
        let note: String?
        do { note = try TextLimits.validated(rawNote.isEmpty ? nil : CSV.unguard(rawNote), field: "note", limit: TextLimits.note) } catch {
            throw DoseError.invalidFile(problem: "\(file) row \(row): \(error.message)")
        }
        var metadata = EventMetadata()
        if kind == .extraDose { metadata.doseIndex = Int(sequence) }
        return (
            row,
            NightEvent(
                id: EventID(rawValue: id), kind: kind, occurredAt: at, recordedAt: clock.now, timeZone: zone,
                source: source == .system ? .system : .imported, note: note, metadata: metadata),
            // Its night: the session key in its own zone.
            SessionKey(for: at, in: zone)
        )
    }

    /// Adds one night's imported events to the night of that date (`existing`), or to a new one, keeping the doses
    /// consistent.
    func importNight(
        _ key: SessionKey, into existing: NightSession?, items: [(row: Int, event: NightEvent)], file: String, settings: DoseSettings, zone: TimeZone,
        report: inout ImportReport
    ) throws {
        var session: NightSession
        var isNew = false
        if let existing {
            session = existing
        } else {
            let first = items[0].event
            session = NightSession(id: SessionID(rawValue: clock.makeID()), date: key, startedAt: first.occurredAt)
            isNew = true
        }
        var accepted: [NightEvent] = []
        // events.csv states no regimen: its nights are taken to be under the person's own, at the titration step of
        // their date.
        var night = JoiningNight(session.facts, unstatedRegimen: settings.regimen(on: key))
        for item in items {
            switch night.join(item.event) {
            case .success(let event): accepted.append(event)
            case .failure(let refusal): report.reject(file, row: item.row, refusal.reason)
            }
        }
        guard !accepted.isEmpty else { return }
        // How the lifecycle leaves the night once these events are in it: a past night closes (with its sleep-through
        // expiry, if due) exactly as it would have closed had DoseTap recorded it.
        var joined = session
        joined.events = (session.events + accepted).sorted(by: NightSession.chronological)
        let update = SessionLifecycle.evaluate(joined, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        if isNew {
            if update.closure == nil, try records.openNight() != nil {
                // Two open nights cannot exist; tonight's own record wins and these rows are reported, not merged.
                let acceptedIDs = Set(accepted.map(\.id))
                for item in items where acceptedIDs.contains(item.event.id) {
                    report.reject(file, row: item.row, "its night (\(key)) has not ended and another night is open here")
                }
                return
            }
            try records.insertNight(session, timeZone: TimeZone(identifier: accepted[0].timeZoneID) ?? zone, closure: update.closure)
        }
        for event in accepted {
            try records.insert(event, night: session.id, checkIn: nil)
            report.importedRow(file)
        }
        if let expiry = update.expiry { try records.insert(expiry, night: session.id, checkIn: nil) }
        try records.saveNight(SessionLifecycle.apply(update, to: joined), closure: update.closure)
    }

    static func readText(_ path: String, limit: Int) throws -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? Int else {
            throw DoseError.invalidFile(problem: "\(path) cannot be read")
        }
        guard size <= limit else { throw DoseError.tooLarge(what: URL(fileURLWithPath: path).lastPathComponent, limit: "20 MiB") }
        guard let text = String(data: try Data(contentsOf: URL(fileURLWithPath: path)), encoding: .utf8) else {
            throw DoseError.invalidFile(problem: "\(URL(fileURLWithPath: path).lastPathComponent) is not UTF-8 text")
        }
        return text
    }
}
