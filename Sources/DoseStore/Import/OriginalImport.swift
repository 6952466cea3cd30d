import DoseCore
import Foundation
import GRDB

extension RecordImporter {
    /// Imports a database of the original iOS app: schema versions 1–6 of seed 004 and the later layout of
    /// reference §4.3, recognised by their tables and columns. Names and values are mapped to DoseTap's (D8);
    /// every source row is imported, skipped with a reason, or rejected with a reason. All or nothing.
    func importOriginalDatabase(at path: String) throws -> ImportReport {
        var configuration = Configuration()
        configuration.readonly = true
        let source: DatabaseQueue
        do { source = try DatabaseQueue(path: path, configuration: configuration) } catch {
            throw DoseError.invalidFile(problem: "\(URL(fileURLWithPath: path).lastPathComponent) cannot be opened as an SQLite database")
        }
        let snapshot: OriginalSnapshot
        do { snapshot = try source.read(OriginalSnapshot.init) } catch let error as DoseError { throw error } catch {
            throw DoseError.invalidFile(problem: "\(URL(fileURLWithPath: path).lastPathComponent) is not a readable database of the original app")
        }
        try source.close()
        let settings = try records.settings(machineTimeZoneID: clock.machineTimeZoneID)
        let zone = clock.zone(settings)
        _ = try settling(records)
        var importer = OriginalImporter(snapshot: snapshot, settings: settings, zone: zone, clock: clock)
        try importer.run(records)
        return importer.report
    }
}

/// Every row of the original database, read once.
struct OriginalSnapshot {
    var tables: [String: [SourceRow]] = [:]
    var columns: [String: Set<String>] = [:]

    init(_ db: Database) throws {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        let known: Set<String> = [
            "current_session", "dose_events", "sleep_events", "morning_checkins", "pre_sleep_logs", "sleep_sessions",
            "medication_events", "checkin_submissions", "cloudkit_tombstones",
        ]
        guard names.contains("current_session") || names.contains("dose_events") else {
            throw DoseError.invalidFile(
                problem: "this SQLite database is not one of the original DoseTap app (no current_session or dose_events table)")
        }
        for name in names where known.contains(name) {
            columns[name] = Set(try db.columns(in: name).map(\.name))
            tables[name] = try Row.fetchAll(db, sql: "SELECT rowid AS _rowid, * FROM \(name) ORDER BY rowid").map(SourceRow.init)
        }
        let unknown = names.filter { !known.contains($0) }
        if !unknown.isEmpty {
            tables["_unknown"] = []
            columns["_unknown"] = Set(unknown)
        }
    }
}

/// A row of the original database. Its file is outside input and SQLite columns hold any type, so values are read
/// without GRDB's subscripts, which trap on a value that does not convert: here a value of another type reads as nil
/// (missing), and the importer's own checks name it.
struct SourceRow {
    let row: Row

    /// The value of a column, or nil when it is missing, NULL or not of this type (text in a number column, 1e300 as
    /// an Int).
    subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value? {
        guard let value = row[column] as DatabaseValue? else { return nil }
        return Value.fromDatabaseValue(value)
    }

    /// The row's rowid (always an integer in SQLite), for reports.
    var number: Int { self["_rowid"] ?? 0 }
}

/// Maps the original app's rows onto nights.
struct OriginalImporter {
    let snapshot: OriginalSnapshot
    let settings: DoseSettings
    let zone: TimeZone
    let clock: StoreClock
    var report = ImportReport()

    /// Events, check-ins and pre-sleep logs gathered per night before writing.
    struct Night {
        var events: [(table: String, row: Int, event: NightEvent)] = []
        var checkIns: [(table: String, row: Int, id: String, at: Date, answers: MorningCheckIn)] = []
        var preSleep: [(table: String, row: Int, id: String, at: Date, log: PreSleepLog, completion: String?)] = []
        var sessionID: String?
        var startedAt: Date?
        var endedAt: Date?
    }
    var nights: [String: Night] = [:]
    /// Source rows already counted, so a row that became two events (current_session) counts once.
    var counted = Set<String>()

    mutating func countImported(_ table: String, row: Int) {
        if counted.insert("\(table)#\(row)").inserted { report.importedRow(table) }
    }

    mutating func countSkipped(_ table: String, row: Int, because reason: String) {
        if counted.insert("\(table)#\(row)").inserted { report.skippedRow(table, because: reason) }
    }

    init(snapshot: OriginalSnapshot, settings: DoseSettings, zone: TimeZone, clock: StoreClock) {
        self.snapshot = snapshot
        self.settings = settings
        self.zone = zone
        self.clock = clock
    }

    func rows(_ table: String) -> [SourceRow] { snapshot.tables[table] ?? [] }
    func has(_ table: String, _ column: String) -> Bool { snapshot.columns[table]?.contains(column) ?? false }

    /// An instant as the original app wrote it: ISO-8601 with or without fractions, or SQLite's `yyyy-MM-dd HH:mm:ss` (UTC).
    static func instant(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let date = ISO8601.parse(text) { return date }
        return ISO8601.parse(text.replacingOccurrences(of: " ", with: "T") + "Z")
    }

    /// The fixed-offset zone of a UTC offset in minutes; nil outside ±18 hours, the range the schema stores.
    static func fixedZone(offsetMinutes: Int?) -> TimeZone? {
        guard let offsetMinutes, (-1080...1080).contains(offsetMinutes) else { return nil }
        return TimeZone(secondsFromGMT: offsetMinutes * 60)
    }

    /// `Very Low`, `veryLow`, `very_low`, `Can't function` → `very_low`, `cant_function`.
    static func key(_ text: String) -> String {
        SleepEventCatalogue.normalize(text.replacingOccurrences(of: "'", with: "").replacingOccurrences(of: "’", with: ""))
    }

    mutating func run(_ records: any ImportTransaction) throws {
        if let unknown = snapshot.columns["_unknown"] {
            report.notes.append("tables not from DoseTap were left alone: \(unknown.sorted().joined(separator: ", "))")
        }
        for row in rows("sleep_sessions") {
            guard let date = row["session_date"] as String?, SessionKey(parsing: date) != nil else {
                report.reject("sleep_sessions", row: row.number, "session_date is not a date")
                continue
            }
            nights[date, default: Night()].sessionID = row["session_id"]
            nights[date, default: Night()].startedAt = Self.instant(row["start_utc"])
            nights[date, default: Night()].endedAt = Self.instant(row["end_utc"])
            report.skippedRow("sleep_sessions", because: "nights are rebuilt from their events; the night's id and start are kept")
        }
        collectDoseEvents()
        collectCurrentSession()
        collectSleepEvents()
        collectCheckIns()
        collectPreSleepLogs()
        for table in ["checkin_submissions", "cloudkit_tombstones"] {
            for _ in rows(table) {
                report.skippedRow(
                    table,
                    because: table == "checkin_submissions"
                        ? "copies of the check-ins and pre-sleep logs, imported from their own tables"
                        : "sync bookkeeping of the iOS app")
            }
        }
        let stored = try records.latestNights(on: Set(nights.keys.compactMap(SessionKey.init(parsing:))))
        for date in nights.keys.sorted() { try write(date, into: stored, records) }
        try importMedications(records)
    }

    // MARK: Collecting

    mutating func add(
        _ kind: EventKind, table: String, row: SourceRow, at: Date?, date: String?, id: String?, note: String? = nil,
        metadata: EventMetadata = EventMetadata()
    ) {
        let number = row.number
        guard let at else {
            report.reject(table, row: number, "the time is missing or not a time")
            return
        }
        guard let date, SessionKey(parsing: date) != nil else {
            report.reject(table, row: number, "session_date is missing or not a date")
            return
        }
        let event = NightEvent(
            id: EventID(rawValue: id ?? "legacy-\(table)-\(number)"), kind: kind, occurredAt: at, recordedAt: clock.now,
            timeZone: zone, source: .imported, note: note.flatMap { try? TextLimits.validated($0, field: "note", limit: TextLimits.note) },
            metadata: metadata)
        nights[date, default: Night()].events.append((table, number, event))
    }

    static func doseKind(_ raw: String) -> EventKind? {
        switch key(raw) {
        case "dose_1", "dose1", "dose1_taken", "dose_1_taken": .dose1
        case "dose_2", "dose2", "dose2_taken", "dose_2_taken", "dose2_early", "dose2_late", "dose_2_early", "dose_2_late": .dose2
        case "skip", "skipped", "dose2_skipped", "dose_2_skipped", "skip_dose2": .dose2Skipped
        case "snooze", "snoozed": .snooze
        case "extra_dose", "extra", "dose3": .extraDose
        default: nil
        }
    }

    mutating func collectDoseEvents() {
        for row in rows("dose_events") {
            let raw: String = row["event_type"] ?? ""
            guard let kind = Self.doseKind(raw) else {
                report.reject("dose_events", row: row.number, "event_type '\(raw)' is not a dose event")
                continue
            }
            add(kind, table: "dose_events", row: row, at: Self.instant(row["timestamp"]), date: row["session_date"], id: row["id"])
        }
    }

    /// Version 1 databases hold their only night in `current_session`; later ones repeat what dose_events hold.
    mutating func collectCurrentSession() {
        for row in rows("current_session") {
            let date: String? = row["session_date"]
            let already = nights[date ?? ""]?.events.contains { $0.event.kind == .dose1 } ?? false
            if already || (row["dose1_time"] as String?) == nil {
                report.skippedRow("current_session", because: "the app's live copy of a night; its events come from dose_events")
                continue
            }
            add(.dose1, table: "current_session", row: row, at: Self.instant(row["dose1_time"]), date: date, id: "legacy-current-dose1-\(date ?? "")")
            if let dose2 = Self.instant(row["dose2_time"]) {
                add(.dose2, table: "current_session", row: row, at: dose2, date: date, id: "legacy-current-dose2-\(date ?? "")")
            } else if (row["dose2_skipped"] as Int?) == 1 {
                let skippedAt = Self.instant(row["dose1_time"]).map { DoseWindow.label.closes(after: $0) }
                add(.dose2Skipped, table: "current_session", row: row, at: skippedAt, date: date, id: "legacy-current-skip-\(date ?? "")")
            }
            if let count = row["snooze_count"] as Int?, count > 0 {
                report.notes.append("current_session \(date ?? ""): \(count) snooze(s) had no times recorded and were not imported as events")
            }
        }
    }

    static func sleepType(_ raw: String) -> SleepEventType? {
        let key = key(raw)
        let mapped =
            switch key {
            case "brief_wake", "briefwake", "wake_temp", "waketemp": "wake_temp"
            case "wake_up", "wakeup", "wake_final", "wakefinal": "wake_final"
            case "lightsout", "light_out", "lightout": "lights_out"
            case "inbed": "in_bed"
            case "heartracing": "heart_racing"
            case "napstart": "nap_start"
            case "napend": "nap_end"
            default: key
            }
        return SleepEventCatalogue.standard.definition(of: SleepEventType(rawValue: mapped))?.type
    }

    mutating func collectSleepEvents() {
        for row in rows("sleep_events") {
            let raw: String = row["event_type"] ?? ""
            if Self.doseKind(raw) != nil {
                report.reject(
                    "sleep_events", row: row.number, "'\(raw)' is a dose recorded as a sleep event; doses are imported only from dose_events")
                continue
            }
            guard let type = Self.sleepType(raw) else {
                report.reject("sleep_events", row: row.number, "event_type '\(raw)' is not a DoseTap sleep event")
                continue
            }
            add(
                .sleep(type), table: "sleep_events", row: row, at: Self.instant(row["timestamp"]), date: row["session_date"], id: row["id"],
                note: has("sleep_events", "notes") ? row["notes"] : nil)
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ raw: String?, _ aliases: [String: T] = [:]) -> T? where T.RawValue == String {
        guard let raw else { return nil }
        let key = key(raw)
        return aliases[key] ?? T.allCases.first { $0.rawValue == key }
    }

    mutating func collectCheckIns() {
        for row in rows("morning_checkins") {
            let number = row.number
            var answers = MorningCheckIn()
            var extra: [String] = []
            if has("morning_checkins", "overall_quality") {
                // Versions 5–6: quality and rested as 1–5, wake count and latency as numbers.
                answers.sleepQuality = row["overall_quality"] ?? 3
                let rested: Int = row["feeling_rested"] ?? 3
                answers.feelRested = FeelRested.allCases.first { $0.score == rested } ?? .moderate
                if let wakes = row["wake_count"] as Int? { extra.append("wake count: \(wakes)") }
                if let latency = row["sleep_latency"] as Int? { extra.append("sleep latency: \(latency) min") }
            } else {
                extra += Self.laterCheckInAnswers(row, into: &answers)
            }
            for column in ["sleep_therapy", "sleep_therapy_json"] {
                guard let json = row[column] as String?, let data = json.data(using: .utf8),
                    let list = try? JSONSerialization.jsonObject(with: data) as? [String]
                else { continue }
                answers.sleepTherapy = list.compactMap { Self.choice($0) }
                let unknown = list.filter { Self.choice($0) as SleepTherapy? == nil }
                if !unknown.isEmpty { extra.append("sleep therapy: \(unknown.joined(separator: ", "))") }
            }
            if let json = row["sleep_environment_json"] as String?, !json.isEmpty, json != "{}", json != "null" {
                extra.append("sleep environment: \(json)")
            }
            var notes = [row["notes"] as String?].compactMap { $0 }.filter { !$0.isEmpty }
            notes += extra
            answers.notes = notes.isEmpty ? nil : TextLimits.truncated(notes.joined(separator: "; "), limit: TextLimits.note)
            if TextLimits.length(notes.joined(separator: "; ")) > TextLimits.note {
                report.notes.append("morning_checkins row \(number): notes and unmapped answers were cut to \(TextLimits.note) characters")
            }
            let at = Self.instant(row["timestamp"] ?? row["completed_at"])
            let date: String? = row["session_date"]
            guard let at, let date, SessionKey(parsing: date) != nil else {
                report.reject("morning_checkins", row: number, "the time or session_date is missing")
                continue
            }
            guard let valid = try? answers.validated() else {
                report.reject("morning_checkins", row: number, "an answer is out of range (quality 1–5, clarity 1–10, readiness 1–5)")
                continue
            }
            nights[date, default: Night()].checkIns.append(("morning_checkins", number, row["id"] ?? "legacy-checkin-\(number)", at, valid))
        }
    }

    /// The answers of a check-in row of the versions that name them (not 5–6's `overall_quality`), in the model's
    /// terms; answers DoseTap has no field for are returned as words for the notes.
    static func laterCheckInAnswers(_ row: SourceRow, into answers: inout MorningCheckIn) -> [String] {
        var extra: [String] = []
        answers.sleepQuality = row["sleep_quality"] ?? 3
        answers.feelRested = Self.choice(row["feel_rested"], ["moderately": .moderate]) ?? .moderate
        answers.grogginess = Self.choice(row["grogginess"]) ?? .mild
        answers.sleepInertia =
            Self.choice(
                row["sleep_inertia_duration"],
                [
                    "5_minutes": .lessThanFive, "less_than_five": .lessThanFive, "5_15_minutes": .fiveToFifteen,
                    "15_30_minutes": .fifteenToThirty,
                    "30_60_minutes": .thirtyToSixty, "1_hour": .moreThanHour, "more_than_hour": .moreThanHour,
                ]) ?? .fiveToFifteen
        answers.dreamRecall = Self.choice(row["dream_recall"]) ?? .none
        answers.mentalClarity = row["mental_clarity"] ?? 5
        answers.mood = Self.choice(row["mood"]) ?? .neutral
        answers.anxietyLevel = Self.choice(row["anxiety_level"]) ?? .none
        answers.readiness = row["readiness_for_day"] ?? 3
        answers.hadSleepParalysis = (row["had_sleep_paralysis"] as Int? ?? 0) != 0
        answers.hadHallucinations = (row["had_hallucinations"] as Int? ?? 0) != 0
        answers.hadAutomaticBehavior = (row["had_automatic_behavior"] as Int? ?? 0) != 0
        answers.fellOutOfBed = (row["fell_out_of_bed"] as Int? ?? 0) != 0
        answers.hadConfusionOnWaking = (row["had_confusion_on_waking"] as Int? ?? 0) != 0
        answers.hasPhysicalSymptoms = (row["has_physical_symptoms"] as Int? ?? 0) != 0
        answers.hasRespiratorySymptoms = (row["has_respiratory_symptoms"] as Int? ?? 0) != 0
        for column in ["physical_symptoms_json", "respiratory_symptoms_json", "stress_context_json"] {
            if let json = row[column] as String?, !json.isEmpty, json != "{}", json != "null" {
                extra.append("\(column.replacingOccurrences(of: "_json", with: "")): \(json)")
            }
        }
        if let stress = row["stress_level"] as Int? { extra.append("stress level: \(stress)") }
        return extra
    }

    mutating func collectPreSleepLogs() {
        for row in rows("pre_sleep_logs") {
            let number = row.number
            var log = PreSleepLog()
            var unmapped: [String] = []
            var date: String? = row["session_date"]
            let at = Self.instant(row["completed_at"] ?? row["created_at_utc"])
            if has("pre_sleep_logs", "answers_json") {
                let object = (row["answers_json"] as String?).flatMap { JSONValue.parse(Data($0.utf8))?.objectValue } ?? [:]
                unmapped = Self.preSleepAnswers(object, into: &log)
                if date == nil, let id = row["session_id"] as String?, SessionKey(parsing: id) != nil { date = id }
                if date == nil, let id = row["session_id"] as String? { date = nights.first { $0.value.sessionID == id }?.key }
                if date == nil, let at, let fixed = Self.fixedZone(offsetMinutes: row["local_offset_minutes"]) {
                    date = SessionKey(for: at, in: fixed).description
                }
            } else {
                log.caffeineCups = row["caffeine_cups"]
                log.alcoholDrinks = row["alcohol_drinks"]
                log.exercise = Self.choice(row["exercise_type"])
                log.exerciseMinutes = row["exercise_duration"]
                // Version 6 asked for stress on 1–10; DoseTap asks 1–5.
                log.stressLevel = (row["stress_level"] as Int?).map { min(5, max(1, $0 / 2 + $0 % 2)) }
                if let cutoff = Self.instant(row["caffeine_cutoff"]) {
                    let parts = LocalClock.calendar(zone).dateComponents([.hour, .minute], from: cutoff)
                    log.caffeineLastTime = ClockTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
                }
                log.notes = row["notes"]
            }
            if !unmapped.isEmpty {
                report.notes.append(
                    "pre_sleep_logs row \(number): answers without a DoseTap question were not imported: \(unmapped.joined(separator: ", "))")
            }
            guard let at, let date, SessionKey(parsing: date) != nil else {
                report.reject("pre_sleep_logs", row: number, "its time or night cannot be determined")
                continue
            }
            guard let valid = try? log.validated() else {
                report.reject("pre_sleep_logs", row: number, "an answer is out of range")
                continue
            }
            nights[date, default: Night()].preSleep.append(
                ("pre_sleep_logs", number, row["id"] ?? "legacy-presleep-\(number)", at, valid, row["completion_state"]))
        }
    }

    /// The later versions' pre-sleep answers (`answers_json`) in DoseTap's questions; returns the names DoseTap has no
    /// question for.
    static func preSleepAnswers(_ object: [String: JSONValue], into log: inout PreSleepLog) -> [String] {
        var unmapped: [String] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "intendedSleepTime":
                log.intendedSleepTime = choice(
                    value.stringValue,
                    [
                        "15min": .in15Minutes, "15_min": .in15Minutes, "within30": .in30Minutes,
                        "30min": .in30Minutes, "30_min": .in30Minutes, "1hr": .inAnHour, "30to60": .inAnHour,
                    ])
            case "stressLevel": log.stressLevel = value.intValue.map { min(5, max(1, $0)) }
            case "bodyPain": log.bodyPain = choice(value.stringValue)
            case "napToday": log.napToday = choice(value.stringValue)
            case "exercise", "exerciseLevel": log.exercise = choice(value.stringValue, ["hard": .intense])
            case "alcohol", "alcoholLevel": log.alcoholDrinks = ["none": 0, "1to2": 2, "3plus": 3][value.stringValue ?? ""]
            case "notes": log.notes = value.stringValue
            default: unmapped.append(name)
            }
        }
        return unmapped
    }

    // MARK: Writing

    mutating func write(_ date: String, into stored: [SessionKey: NightSession], _ records: any ImportTransaction) throws {
        guard let key = SessionKey(parsing: date), let night = nights[date] else { return }
        let items = night.events.sorted { $0.event.occurredAt < $1.event.occurredAt }
        let firstInstant =
            ([night.startedAt] + items.map { Optional($0.event.occurredAt) } + night.checkIns.map { Optional($0.at) }
            + night.preSleep.map { Optional($0.at) })
            .compactMap { $0 }.min()
        guard let firstInstant else { return }
        var session: NightSession
        var isNew = false
        if let existing = stored[key] {
            session = existing
        } else {
            let id = night.sessionID.flatMap { UUID(uuidString: $0) != nil ? $0.lowercased() : nil } ?? "legacy-\(date)"
            session = NightSession(id: SessionID(rawValue: id), date: key, startedAt: firstInstant)
            isNew = true
        }
        var accepted: [NightEvent] = []
        var joining = JoiningNight(session.facts, unstatedRegimen: .recordedBeforeRegimens(settings))
        let recorded = try records.recorded(among: items.map(\.event.id))
        for item in items {
            if recorded.contains(item.event.id) {
                countSkipped(item.table, row: item.row, because: "already imported (same id)")
                continue
            }
            switch joining.join(item.event) {
            case .success(let event): accepted.append(event)
            case .failure(let refusal): report.reject(item.table, row: item.row, refusal.reason)
            }
        }
        if isNew {
            let anyNew = !accepted.isEmpty || !night.checkIns.isEmpty || !night.preSleep.isEmpty
            guard anyNew else { return }
            try records.insertNight(session, timeZone: zone, closure: nil)
        }
        let sources = Dictionary(night.events.map { ($0.event.id, $0) }, uniquingKeysWith: { first, _ in first })
        for event in accepted {
            try records.insert(event, night: session.id, checkIn: nil)
            if let source = sources[event.id] { countImported(source.table, row: source.row) }
        }
        session.events = (session.events + accepted).sorted(by: NightSession.chronological)
        let closure = try writeCheckIns(night, date: date, session: &session, records)
        try writePreSleepLogs(night, date: date, session: session, records)
        if let closure {
            session.endedAt = closure.endedAt
            try records.saveNight(session, closure: closure)
            return
        }
        let update = SessionLifecycle.evaluate(session, now: clock.now, settings: settings, timeZone: zone, makeID: clock.makeID)
        if let expiry = update.expiry { try records.insert(expiry, night: session.id, checkIn: nil) }
        try records.saveNight(SessionLifecycle.apply(update, to: session), closure: update.closure)
    }

    /// Adds a night's check-in (one per night), and the closure it brings to a night still open.
    mutating func writeCheckIns(_ night: Night, date: String, session: inout NightSession, _ records: any ImportTransaction) throws -> SessionClosure?
    {
        var closure: SessionClosure?
        for (index, item) in night.checkIns.enumerated() {
            if try records.holdsRow(in: "morning_checkins", id: item.id) {
                report.skippedRow(item.table, because: "already imported (same id)")
                continue
            }
            if index > 0 || session.events.contains(where: { $0.kind == .checkIn }) {
                report.reject(item.table, row: item.row, "the night of \(date) already has a check-in (one per night)")
                continue
            }
            let event = NightEvent(
                id: EventID(rawValue: item.id), kind: .checkIn, occurredAt: item.at, recordedAt: clock.now, timeZone: zone, source: .imported)
            try records.insert(event, night: session.id, checkIn: item.answers)
            session = session.adding(event)
            if session.isOpen {
                closure = SessionClosure(endedAt: item.at, reason: .checkin, terminalState: session.facts.terminalState(at: item.at))
            }
            report.importedRow(item.table)
        }
        return closure
    }

    /// Adds a night's pre-sleep log (one per night).
    mutating func writePreSleepLogs(_ night: Night, date: String, session: NightSession, _ records: any ImportTransaction) throws {
        for (index, item) in night.preSleep.enumerated() {
            if try records.holdsRow(in: "pre_sleep_logs", id: item.id) {
                report.skippedRow(item.table, because: "already imported (same id)")
                continue
            }
            if try index > 0 || records.holdsRow(in: "pre_sleep_logs", ofNight: session.id) {
                report.reject(item.table, row: item.row, "the night of \(date) already has a pre-sleep log (one per night)")
                continue
            }
            let completion = item.completion.flatMap { PreSleepCompletion(rawValue: $0) } ?? item.log.completion
            try records.insertPreSleepLog(
                PreSleepEntry(
                    id: item.id, night: session.id, occurredAt: item.at, recordedAt: clock.now, timeZone: zone, note: nil, log: item.log,
                    source: .imported, completion: completion))
            report.importedRow(item.table)
        }
    }

    mutating func importMedications(_ records: any ImportTransaction) throws {
        for row in rows("medication_events") {
            let number = row.number
            let id: String = row["id"] ?? "legacy-medication-\(number)"
            if try records.holdsRow(in: "medication_events", id: id) {
                report.skippedRow("medication_events", because: "already imported (same id)")
                continue
            }
            guard let medication = try? MedicationCatalogue.medication(id: (row["medication_id"] as String?) ?? "") else {
                report.reject("medication_events", row: number, "medication '\(row["medication_id"] as String? ?? "")' is not in the catalogue")
                continue
            }
            let amount = Double(row["dose_mg"] as Int? ?? 0)
            guard let takenAt = Self.instant(row["taken_at_utc"]),
                let milligrams = try? MedicationCatalogue.validatedMilligrams(amount, unit: .mg, for: medication)
            else {
                report.reject("medication_events", row: number, "the time or the dose is not valid")
                continue
            }
            let offset: Int = row["local_offset_minutes"] ?? 0
            guard let entryZone = Self.fixedZone(offsetMinutes: offset) else {
                report.reject("medication_events", row: number, "local_offset_minutes \(offset) is not a UTC offset (−1080 to 1080)")
                continue
            }
            let key = SessionKey(for: takenAt, in: entryZone)
            let sessionID = try records.nightIDs(dated: [key])[key]
            let record = MedicationRecord(
                id: id, medication: medication, doseMg: milligrams, amount: amount, unit: .mg, takenAt: takenAt, recordedAt: clock.now,
                timeZoneID: zone.identifier, utcOffsetMinutes: offset, sessionDate: key, sessionID: sessionID,
                note: (row["notes"] as String?).flatMap { try? TextLimits.validated($0, field: "notes", limit: TextLimits.note) },
                confirmedDuplicate: (row["confirmed_duplicate"] as Int? ?? 0) != 0, batchID: "legacy-\(id)")
            try records.insertMedications([record])
            report.importedRow("medication_events")
        }
    }
}
