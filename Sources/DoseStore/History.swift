public import DoseCore
public import Foundation
import GRDB

/// Orders of the history list (seed 003 "History View").
public enum HistorySort: String, Sendable, CaseIterable {
    /// Most recent night first, events newest first (the default).
    case newest
    /// Chronological.
    case oldest
    /// Nights newest first; events alphabetical by name.
    case az
    /// Nights newest first; events reverse alphabetical.
    case za
}

/// How nights are grouped.
public enum HistoryGrouping: String, Sendable, CaseIterable {
    case none, day, week, month
}

/// A category a history filter may name: the doses, the check-in, or a sleep-event category.
public enum HistoryCategory: String, Sendable, CaseIterable {
    case dose, checkin
    case physical
    case sleepCycle = "sleep_cycle"
    case mental, environment, custom

    /// A category by name, case-insensitive; anything else is refused with the names allowed.
    public static func named(_ name: String) throws(DoseError) -> HistoryCategory {
        guard let category = HistoryCategory(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw .invalidInput(field: "category", problem: "'\(name)' is not a category", allowed: allCases.map(\.rawValue).joined(separator: ", "))
        }
        return category
    }

    /// The category an event is filed under.
    init(of event: NightEvent) {
        switch event.kind {
        case .sleep(let type): self = HistoryCategory(rawValue: SleepEventCatalogue.standard.definition(of: type)?.category.rawValue ?? "") ?? .custom
        case .checkIn: self = .checkin
        default: self = .dose
        }
    }
}

/// Which nights and events the history shows.
public struct HistoryQuery: Sendable {
    /// First session date included.
    public var from: SessionKey?
    /// Last session date included.
    public var to: SessionKey?
    /// Event wire names to show (`dose1`, `bathroom`, `checkin`, …); empty: all.
    public var types: Set<String> = []
    /// Categories to show; empty: all.
    public var categories: Set<HistoryCategory> = []
    /// Order.
    public var sort = HistorySort.newest
    /// Grouping.
    public var grouping = HistoryGrouping.day
    /// Nights per page (1–366).
    public var limit = 30
    /// Page number from 1.
    public var page = 1

    /// The highest page number asked for: a thousand years of nights, one a page; it keeps the offset far from overflow.
    public static let maximumPage = 400_000

    /// A query; the default shows the latest 30 nights grouped by day.
    public init() {}

    /// Checks ranges and names, so a typo is an error rather than an empty history.
    public func validated() throws(DoseError) -> HistoryQuery {
        guard (1...366).contains(limit) else { throw .invalidInput(field: "limit", problem: "\(limit)", allowed: "1–366 nights") }
        guard (1...Self.maximumPage).contains(page) else { throw .invalidInput(field: "page", problem: "\(page)", allowed: "1–\(Self.maximumPage)") }
        if let from, let to, from > to {
            throw .invalidInput(field: "from", problem: "\(from) is after \(to)", allowed: "a start date on or before the end date")
        }
        var copy = self
        copy.types = []
        let doseNames = ["dose1", "dose2", "extra_dose", "dose2_skipped", "snooze", "checkin"]
        for type in types {
            if doseNames.contains(type.lowercased()) {
                copy.types.insert(type.lowercased())
                continue
            }
            copy.types.insert(try SleepEventCatalogue.standard.resolve(type).type.rawValue)
        }
        return copy
    }
}

/// A nap as an interval: a start and its end (nil while open) (D7).
public struct NapInterval: Sendable, Hashable {
    public var start: Date
    public var end: Date?
}

/// One night as history shows it.
public struct NightRecord: Sendable {
    /// The night with all its events.
    public var session: NightSession
    /// Its outcome once closed (D12).
    public var terminalState: TerminalState?
    /// The morning check-in's answers.
    public var checkIn: MorningCheckIn?
    /// The events shown (after filters), in the requested order.
    public var shownEvents: [NightEvent]
    /// Naps paired start to end.
    public var naps: [NapInterval]
    /// Minutes from Dose 1 to Dose 2.
    public var intervalMinutes: Int?
    /// The pre-sleep log.
    public var preSleep: PreSleepLog?
    /// Medications of that night.
    public var medications: [MedicationSummary] = []
    /// Wearable sleep attached to the night: its stages and figures (with its vitals for one date's nights).
    public var sleep: NightSleep?
}

/// A medication entry as history lists it.
public struct MedicationSummary: Sendable, Hashable {
    public var id: String
    public var medicationID: String
    public var name: String
    /// Milligrams, as text (`4500`, `2.5`).
    public var doseMg: String
    public var takenAt: Date
    public var note: String?
}

/// A labelled group of nights.
public struct HistoryGroup: Sendable {
    /// `2026-11-21`, `2026-W47` or `2026-11`; empty when not grouped.
    public var label: String
    public var nights: [NightRecord]
}

/// Which nights make one page of history, in its order, and how many nights the query matches in all.
public struct HistoryPageNights: Sendable {
    public var total: Int
    public var ids: [String]

    /// The nights of a page.
    public init(total: Int, ids: [String]) {
        self.total = total
        self.ids = ids
    }
}

/// One page of history.
public struct HistoryPage: Sendable {
    public var groups: [HistoryGroup]
    /// Nights matching the filters, all pages.
    public var totalNights: Int
    public var page: Int
    public var pageCount: Int
}

/// The nights as history: a filtered, grouped page, the record of one date, and deleting a date's nights.
public struct HistoryStore: Sendable {
    let database: AppDatabase

    /// A page of past and current nights, filtered, ordered and grouped.
    public func page(_ query: HistoryQuery) throws -> HistoryPage {
        let query = try query.validated()
        return try database.read { db in
            let matching = Self.matching(query)
            let arguments = StatementArguments(matching.arguments)
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions s WHERE \(matching.sql)", arguments: arguments) ?? 0
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM sleep_sessions s WHERE \(matching.sql) ORDER BY \(Self.order(query)) LIMIT ? OFFSET ?",
                arguments: arguments + [query.limit, (query.page - 1) * query.limit])
            return try Self.page(query, of: HistoryPageNights(total: total, ids: ids), db)
        }
    }

    /// A page of the nights another store chose for it (`HistoryStore.matching`, `order`), from a copy holding those.
    public func page(_ query: HistoryQuery, of nights: HistoryPageNights) throws -> HistoryPage {
        try database.read { db in try Self.page(query, of: nights, db) }
    }

    private static func page(_ query: HistoryQuery, of nights: HistoryPageNights, _ db: Database) throws -> HistoryPage {
        var rows: [Row] = []
        let sessions = { (marks: String) in "SELECT * FROM sleep_sessions WHERE id IN (\(marks))" }
        try NightRecords.forEachRow(of: nights.ids, sql: sessions, db) { rows.append($0.copy()) }
        let position = Dictionary(uniqueKeysWithValues: nights.ids.enumerated().map { ($1, $0) })
        rows.sort { position[$0["id"] as String] ?? 0 < position[$1["id"] as String] ?? 0 }
        return page(query, of: nights, records: try Self.records(from: rows, query: query, db))
    }

    /// A page of the nights a store chose and read, in the page's order.
    static func page(_ query: HistoryQuery, of nights: HistoryPageNights, records: [NightRecord]) -> HistoryPage {
        HistoryPage(
            groups: Self.group(records, by: query.grouping), totalNights: nights.total, page: query.page,
            pageCount: max(1, (nights.total + query.limit - 1) / query.limit))
    }

    /// The condition on `sleep_sessions AS s` that picks the nights a query matches, with `?` for each argument in order
    /// (`date` for one that is a date): SQL both stores speak, so PostgreSQL counts and chooses a page as the file does.
    public static func matching(_ query: HistoryQuery, date: String = "?") -> (sql: String, arguments: [String]) {
        var conditions: [String] = []
        var arguments: [String] = []
        if let from = query.from {
            conditions.append("s.session_date >= \(date)")
            arguments.append(from.description)
        }
        if let to = query.to {
            conditions.append("s.session_date <= \(date)")
            arguments.append(to.description)
        }
        if let filter = eventFilterSQL(query) {
            conditions.append(filter.sql)
            arguments += filter.arguments
        }
        return (conditions.isEmpty ? "TRUE" : conditions.joined(separator: " AND "), arguments)
    }

    /// The order of a page's nights: by date, then start, then id (so two nights that tie in both still have one order);
    /// `id` is how a store compares ids byte by byte, as SQLite's `BINARY` does.
    public static func order(_ query: HistoryQuery, id: String = "s.id") -> String {
        let order = query.sort == .oldest ? "ASC" : "DESC"
        return "s.session_date \(order), s.started_at \(order), \(id) \(order)"
    }

    /// The rows of every night with that session date, oldest first.
    static func sessionRows(on date: SessionKey, _ db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT * FROM sleep_sessions WHERE session_date = ? ORDER BY started_at", arguments: [date.description])
    }

    /// Every night with that session date (usually one), with all events.
    public func nights(on date: SessionKey) throws -> [NightRecord] {
        return try database.read { db in
            let rows = try Self.sessionRows(on: date, db)
            return try Self.records(from: rows, query: HistoryQuery(), vitals: true, db)
        }
    }

    /// One night by its id, with all events, or nil (D18: every night is reachable by its own id, even when two share a date).
    public func night(id: SessionID) throws -> NightRecord? {
        return try database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM sleep_sessions WHERE id = ?", arguments: [id.rawValue])
            return try Self.records(from: rows, query: HistoryQuery(), vitals: true, db).first
        }
    }

    /// Every night dated `from` through `to`, oldest first, with all events.
    public func nights(from: SessionKey, to: SessionKey) throws -> [NightRecord] {
        var records: [NightRecord] = []
        try forEachNight(from: from, to: to) { records.append($0) }
        return records
    }

    /// Calls `body` with every night dated `from` through `to`, oldest first, with all events, reading a few hundred
    /// nights at a time inside one read, so ten years of events never sit in memory at once (the report's table).
    public func forEachNight(from: SessionKey, to: SessionKey, _ body: (NightRecord) throws -> Void) throws {
        try database.read { db in
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM sleep_sessions WHERE session_date BETWEEN ? AND ? ORDER BY session_date, started_at, id",
                arguments: [from.description, to.description])
            var query = HistoryQuery()
            query.sort = .oldest
            for start in stride(from: 0, to: ids.count, by: NightRecords.sessionsPerQuery) {
                let chunk = Array(ids[start..<min(ids.count, start + NightRecords.sessionsPerQuery)])
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT * FROM sleep_sessions WHERE id IN (\(databaseQuestionMarks(count: chunk.count))) ORDER BY session_date, "
                        + "started_at, id",
                    arguments: StatementArguments(chunk))
                for record in try Self.records(from: rows, query: query, db) { try body(record) }
            }
        }
    }

    private static func eventFilterSQL(_ query: HistoryQuery) -> (sql: String, arguments: [String])? {
        guard !query.types.isEmpty || !query.categories.isEmpty else { return nil }
        let doseTypes = query.types.filter { ["dose1", "dose2", "extra_dose", "dose2_skipped", "snooze"].contains($0) }.sorted()
        let sleepTypes = query.types.filter { !["dose1", "dose2", "extra_dose", "dose2_skipped", "snooze", "checkin"].contains($0) }.sorted()
        let sleepCategories = query.categories.subtracting([.dose, .checkin]).map(\.rawValue).sorted()
        var clauses: [String] = []
        var arguments: [String] = []
        if query.categories.contains(.dose) {
            clauses.append("EXISTS (SELECT 1 FROM dose_events d WHERE d.session_id = s.id)")
        } else if !doseTypes.isEmpty {
            clauses.append(
                "EXISTS (SELECT 1 FROM dose_events d WHERE d.session_id = s.id AND d.event_type IN "
                    + "(\(databaseQuestionMarks(count: doseTypes.count))))"
            )
            arguments += doseTypes
        }
        if !sleepTypes.isEmpty || !sleepCategories.isEmpty {
            clauses.append(
                """
                EXISTS (SELECT 1 FROM sleep_events e WHERE e.session_id = s.id AND (e.event_type IN
                (\(databaseQuestionMarks(count: max(1, sleepTypes.count))))
                OR e.category IN (\(databaseQuestionMarks(count: max(1, sleepCategories.count))))))
                """)
            arguments += sleepTypes.isEmpty ? [""] : sleepTypes
            arguments += sleepCategories.isEmpty ? [""] : sleepCategories
        }
        if query.types.contains("checkin") || query.categories.contains(.checkin) {
            clauses.append("EXISTS (SELECT 1 FROM morning_checkins c WHERE c.session_id = s.id)")
        }
        return ("(" + clauses.joined(separator: " OR ") + ")", arguments)
    }

    /// The nights of `rows` with their events, answers and wearable sleep (with its vitals when `vitals`).
    static func records(from rows: [Row], query: HistoryQuery, vitals: Bool = false, _ db: Database) throws -> [NightRecord] {
        let sessions = try NightRecords.sessions(from: rows, db)
        let answers = try NightAnswers(of: .ids(sessions.map(\.id.rawValue)), db)
        let sleep = try WearableSleepReader.read(sessions.map(WearableSleepReader.Window.init), vitals: vitals, db)
        return zip(rows, sessions).map { row, session in
            record(
                session, terminalState: row["terminal_state"], intervalMinutes: row["interval_minutes"], answers: answers,
                sleep: sleep[session.id.rawValue], query: query)
        }
    }

    /// One night as history shows it, from what either store read of it: its events filtered and ordered as `query` asks.
    static func record(
        _ session: NightSession, terminalState: String?, intervalMinutes: Int?, answers: NightAnswers, sleep: NightSleep?, query: HistoryQuery
    ) -> NightRecord {
        let filtered = session.events.filter { event in
            if query.types.isEmpty && query.categories.isEmpty { return true }
            return query.types.contains(event.kind.wireName) || query.categories.contains(HistoryCategory(of: event))
        }
        // Newest/oldest order the nights; inside a night the events read as the night went, by time.
        let shown: [NightEvent] =
            switch query.sort {
            case .newest, .oldest: filtered.sorted { ($0.occurredAt, $0.recordedAt) < ($1.occurredAt, $1.recordedAt) }
            case .az: filtered.sorted { ($0.kind.label.lowercased(), $0.occurredAt) < ($1.kind.label.lowercased(), $1.occurredAt) }
            case .za: filtered.sorted { ($0.kind.label.lowercased(), $1.occurredAt) > ($1.kind.label.lowercased(), $0.occurredAt) }
            }
        return NightRecord(
            session: session, terminalState: terminalState.flatMap(TerminalState.init(rawValue:)), checkIn: answers.checkIns[session.id.rawValue],
            shownEvents: shown, naps: naps(in: session.events), intervalMinutes: intervalMinutes,
            preSleep: answers.preSleeps[session.id.rawValue], medications: answers.medications[session.id.rawValue] ?? [], sleep: sleep)
    }

    /// Every night dated `from` through `to` as insights read it: its summary and what was answered about it, oldest
    /// first. One row a night from each table, not every event: ten years of nights in milliseconds.
    public func insightNights(from: SessionKey, to: SessionKey) throws -> [InsightNight] {
        return try database.read { db in
            let summaries = try NightSummaries.read(from: from, to: to, db)
            let answers = try NightAnswers(of: .dated(from: from, to: to), expecting: summaries.count, db)
            let sleep = try Self.insightSleep(summaries, from: from, to: to, db)
            return summaries.map { id, summary in
                InsightNight(
                    summary: summary, checkIn: answers.checkIns[id], preSleep: answers.preSleeps[id],
                    medications: answers.medications[id]?.map(\.name) ?? [], sleep: sleep[id]?.figures)
            }
        }
    }

    /// The wearable sleep of summarised nights; nothing is read past one look when no wearable was ever imported.
    private static func insightSleep(_ summaries: [(id: String, summary: NightSummary)], from: SessionKey, to: SessionKey, _ db: Database) throws
        -> [String: NightSleep]
    {
        guard !summaries.isEmpty,
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM wearable_sleep) OR EXISTS (SELECT 1 FROM wearable_summaries)") == true
        else { return [:] }
        var ended: [String: Date] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, ended_at FROM sleep_sessions WHERE session_date BETWEEN ? AND ? AND ended_at IS NOT NULL",
            arguments: [from.description, to.description])
        {
            ended[row["id"]] = ISO8601.parse(row["ended_at"])
        }
        let windows = summaries.map { id, summary in
            WearableSleepReader.Window(id: id, startedAt: summary.startedAt, endedAt: ended[id], dose2: summary.dose2?.at)
        }
        return try WearableSleepReader.read(windows, vitals: false, db)
    }

    /// Pairs each nap start with the next nap end.
    public static func naps(in events: [NightEvent]) -> [NapInterval] {
        var naps: [NapInterval] = []
        for event in events {
            if event.kind == .sleep(.napStart) { naps.append(NapInterval(start: event.occurredAt, end: nil)) }
            if event.kind == .sleep(.napEnd), let last = naps.indices.last, naps[last].end == nil { naps[last].end = event.occurredAt }
        }
        return naps
    }

    static func group(_ records: [NightRecord], by grouping: HistoryGrouping) -> [HistoryGroup] {
        guard grouping != .none else { return records.isEmpty ? [] : [HistoryGroup(label: "", nights: records)] }
        var groups: [HistoryGroup] = []
        for record in records {
            let label = groupLabel(record.session.date, grouping)
            if groups.last?.label == label {
                groups[groups.count - 1].nights.append(record)
            } else {
                groups.append(HistoryGroup(label: label, nights: [record]))
            }
        }
        return groups
    }

    /// `2026-11-21` (day), `2026-W47` (ISO week), `2026-11` (month).
    static func groupLabel(_ date: SessionKey, _ grouping: HistoryGrouping) -> String {
        switch grouping {
        case .none: return ""
        case .day: return date.description
        case .month: return String(date.description.prefix(7))
        case .week:
            var calendar = Calendar(identifier: .iso8601)
            calendar.timeZone = TimeZone(secondsFromGMT: 0)!
            let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12))!
            let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: noon)
            return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? date.year, parts.weekOfYear ?? 1)
        }
    }
}

/// What was answered about each night besides its events: the check-in, the pre-sleep log and other medications, each
/// loaded in one query for a whole range (a query per night was most of the cost of ten years of insights).
struct NightAnswers {
    /// By night id.
    var checkIns: [String: MorningCheckIn] = [:]
    /// By night id.
    var preSleeps: [String: PreSleepLog] = [:]
    /// By night id, in the order taken.
    var medications: [String: [MedicationSummary]] = [:]

    /// Which nights: by id (a page of history), or every night dated in a range (insights).
    enum Nights {
        case ids([String])
        case dated(from: SessionKey, to: SessionKey)
    }

    /// No answers yet: another store's reader fills them (`PostgresAnswers`).
    init() {}

    /// The answers about those nights.
    init(of nights: Nights, expecting count: Int = 0, _ db: Database) throws {
        // Room for a check-in a night up front: growing a dictionary of check-ins moves every one of them again.
        checkIns.reserveCapacity(count)
        try Self.forEachRow("session_id, \(NightRecords.answerColumns)", in: "morning_checkins", of: nights, db) { row in
            checkIns[row[0]] = try NightRecords.answers(from: row, at: 1)
        }
        try Self.forEachRow("session_id, answers_json", in: "pre_sleep_logs", of: nights, db) { row in
            try addPreSleep(night: row[0], json: row[1])
        }
        try Self.forEachRow("session_id, \(Self.medicationColumns)", in: "medication_events", of: nights, order: "taken_at", db) { row in
            addMedication(night: row[0], medicationID: row[1], doseMg: row[2], id: row[3], takenAt: row[4], note: row[5])
        }
    }

    /// The columns of a medication taken, after the night's id, in `addMedication`'s order (`taken_at` as UTC text).
    static let medicationColumns = "medication_id, dose_mg, id, taken_at, notes"

    private static let decoder = JSONDecoder()

    /// Adds a night's pre-sleep log from its stored JSON.
    mutating func addPreSleep(night: String, json: String) throws {
        preSleeps[night] = try Self.decoder.decode(PreSleepLog.self, from: Data(json.utf8))
    }

    /// Adds a medication taken that night, after those read before it.
    mutating func addMedication(night: String, medicationID: String, doseMg: Double, id: String, takenAt: String, note: String?) {
        medications[night, default: []].append(
            MedicationSummary(
                id: id, medicationID: medicationID, name: (try? MedicationCatalogue.medication(id: medicationID))?.name ?? medicationID,
                doseMg: NumberText.plain(doseMg), takenAt: NightRecords.instant(takenAt), note: note))
    }

    /// Calls `body` with each row of `table` that belongs to one of the nights, in `order` if given.
    private static func forEachRow(
        _ columns: String, in table: String, of nights: Nights, order: String? = nil, _ db: Database, _ body: (Row) throws -> Void
    ) throws {
        let orderBy = order.map { " ORDER BY \($0)" } ?? ""
        switch nights {
        case .ids(let ids):
            try NightRecords.forEachRow(of: ids, sql: { "SELECT \(columns) FROM \(table) WHERE session_id IN (\($0))\(orderBy)" }, db, body)
        case .dated(let from, let to):
            // One statement for the range: compiling a statement per few hundred ids was a tenth of ten years of insights.
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT \(columns) FROM \(table) WHERE session_id IN (SELECT id FROM sleep_sessions WHERE session_date BETWEEN ? AND "
                    + "?)\(orderBy)",
                arguments: [from.description, to.description])
            while let row = try rows.next() { try body(row) }
        }
    }
}
