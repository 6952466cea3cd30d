import DoseCore
import Foundation
import PostgresNIO

/// Past nights as history shows them, read in PostgreSQL's own statements: the nights, their events and answers sent
/// together in one snapshot, and a wearable's sleep read only for a person who keeps one. Decoded and assembled by the
/// code the SQLite store uses (`HistoryStore.record`, `NightAnswers`, `WearableSleepReader.attach`), so both stores
/// show a night alike.
extension PostgresStore {
    /// The nights `ids` of `person` as history shows them, in the order of `ids`; `vitals` adds a wearable's vitals
    /// (a night's own page). Runs in the caller's snapshot.
    static func nightRecords(
        _ ids: [String], of person: String, query: HistoryQuery, vitals: Bool, _ session: PostgresSession
    ) throws -> [NightRecord] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(person)
        binds.append(ids)
        let nightRows = session.send(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(PostgresNightTransaction.nightColumns), terminal_state, interval_minutes FROM sleep_sessions
                    WHERE person_id = $1 AND id = ANY($2)
                    """, binds: binds))
        let events = PostgresNightRows.sendEvents(where: "person_id = $1 AND session_id = ANY($2)", binds: binds, session)
        let answers = PostgresAnswers(nights: "SELECT unnest($2::text[])", binds: binds, session)
        let wearable = sendKeepsWearable(person, session)
        let headRows = try session.rows(of: nightRows)
        var heads: [(head: PostgresNightRows.Head, terminal: String?, interval: Int?)] = []
        for row in headRows {
            let cells = row.makeRandomAccess()
            heads.append((try PostgresNightRows.head(row), try cells[5].decode(String?.self), try cells[6].decode(Int?.self)))
        }
        let position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        heads.sort { position[$0.head.id] ?? 0 < position[$1.head.id] ?? 0 }
        let nights = PostgresNightRows.nights(heads.map(\.head), events: try PostgresNightRows.events(from: try session.rows(of: events)))
        let answered = try answers.read(session)
        let sleep =
            try keepsWearable(wearable, session)
            ? try wearableSleep(nights.map(WearableSleepReader.Window.init), of: person, vitals: vitals, session) : [:]
        return zip(heads, nights).map { head, night in
            HistoryStore.record(
                night, terminalState: head.terminal, intervalMinutes: head.interval, answers: answered, sleep: sleep[night.id.rawValue],
                query: query)
        }
    }

    /// Sends whether `person` keeps any wearable sleep (stages or a source's totals).
    static func sendKeepsWearable(_ person: String, _ session: PostgresSession) -> PendingRows {
        session.send(
            """
            SELECT EXISTS (SELECT 1 FROM wearable_sleep WHERE person_id = \(person))
                OR EXISTS (SELECT 1 FROM wearable_summaries WHERE person_id = \(person))
            """)
    }

    /// The answer to `sendKeepsWearable`.
    static func keepsWearable(_ pending: PendingRows, _ session: PostgresSession) throws -> Bool {
        try session.rows(of: pending).first?.decode(Bool.self) ?? false
    }

    /// The columns of a `wearable_summaries` row that `wearableSummary` reads, instants as the file keeps them.
    static let wearableSummaryColumns =
        "source, dosetap_instant(start_at) AS start_at, dosetap_instant(end_at) AS end_at, offset_minutes, nap, "
        + WearableSummaryRow.figureColumns.joined(separator: ", ")

    /// A stored summary from a row of `wearableSummaryColumns`.
    static func wearableSummary(_ row: PostgresRow) throws -> SleepSummary? {
        let cells = row.makeRandomAccess()
        return try WearableSummaryRow.summary(
            text: { try cells[$0].decode(String?.self) }, int: { try cells[$0].decode(Int?.self) },
            number: { try cells[$0].decode(Double?.self) }, flag: { try cells[$0].decode(Bool.self) })
    }

    /// The wearable sleep of each window that has one, by night id, as `WearableSleepReader.read` finds it on SQLite.
    static func wearableSleep(
        _ windows: [WearableSleepReader.Window], of person: String, vitals: Bool, _ session: PostgresSession
    ) throws -> [String: NightSleep] {
        guard let (from, to) = WearableSleepReader.searched(windows) else { return [:] }
        var binds = PostgresBindings()
        binds.append(person)
        binds.append(ISO8601.string(to))
        binds.append(ISO8601.string(from))
        let overlapping = "person_id = $1 AND start_at < $2::timestamptz AND end_at > $3::timestamptz ORDER BY start_at, id COLLATE \"C\""
        let summaries = session.send(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(wearableSummaryColumns) FROM wearable_summaries WHERE \(overlapping)
                    """, binds: binds))
        let samples = session.send(
            PostgresQuery(
                unsafeSQL: """
                    SELECT source, stage, dosetap_instant(start_at), dosetap_instant(end_at) FROM wearable_sleep WHERE \(overlapping)
                    """, binds: binds))
        let settings = PostgresSettingsTransaction(session: session, person: person)
        let priority = try SettingsStore.settings(from: try settings.storedSettings(), machineTimeZoneID: "UTC").sleepSourcePriority
        let stored = try session.rows(of: summaries).compactMap(wearableSummary)
        let sleep = try session.rows(of: samples).compactMap { row -> SleepSample? in
            let (source, stage, start, end) = try row.decode((String, String, String, String).self)
            return WearableSleepReader.sample(source: source, stage: stage, start: start, end: end)
        }
        guard !sleep.isEmpty || !stored.isEmpty else { return [:] }
        return try WearableSleepReader.attach(windows, samples: sleep, summaries: stored, priority: priority) { night in
            guard vitals else { return }
            var bounds = PostgresBindings()
            bounds.append(person)
            bounds.append(ISO8601.string(night.figures.periodStart))
            bounds.append(ISO8601.string(night.figures.periodEnd))
            let within = "person_id = $1 AND start_at BETWEEN $2::timestamptz AND $3::timestamptz"
            let heartRate = session.send(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT dosetap_instant(start_at), value FROM wearable_vitals WHERE kind = 'heart_rate' AND \(within)
                        ORDER BY start_at
                        """, binds: bounds))
            let means = session.send(
                PostgresQuery(
                    unsafeSQL: "SELECT kind, avg(value) FROM wearable_vitals WHERE kind != 'heart_rate' AND \(within) GROUP BY kind",
                    binds: bounds))
            WearableSleepReader.addVitals(
                heartRate: try session.rows(of: heartRate).map { try $0.decode((String, Double).self) },
                means: try session.rows(of: means).map { try $0.decode((String, Double).self) }, to: &night)
        }
    }
}

/// The answers about a set of nights besides their events (the check-in, the pre-sleep log, the medications taken),
/// sent together and read into the `NightAnswers` the SQLite store fills.
struct PostgresAnswers {
    private let checkIns: PendingRows
    private let preSleeps: PendingRows
    private let medications: PendingRows

    /// Sends the reads for the nights whose ids `nights` selects, with `binds` (`$1` is the person).
    init(nights: String, binds: PostgresBindings, _ session: PostgresSession) {
        let answerColumns = NightRecords.answerColumns.replacingOccurrences(of: "\n", with: " ")
        checkIns = session.send(
            PostgresQuery(
                unsafeSQL: "SELECT session_id, \(answerColumns) FROM morning_checkins WHERE person_id = $1 AND session_id IN (\(nights))",
                binds: binds))
        preSleeps = session.send(
            PostgresQuery(
                unsafeSQL: "SELECT session_id, answers_json FROM pre_sleep_logs WHERE person_id = $1 AND session_id IN (\(nights))", binds: binds))
        medications = session.send(
            PostgresQuery(
                unsafeSQL: """
                    SELECT session_id, medication_id, dose_mg, id, dosetap_instant(taken_at), notes FROM medication_events
                    WHERE person_id = $1 AND session_id IN (\(nights)) ORDER BY taken_at
                    """, binds: binds))
    }

    /// The answers, once their reads have run; room is made for `expecting` check-ins up front.
    func read(_ session: PostgresSession, expecting count: Int = 0) throws -> NightAnswers {
        var answers = NightAnswers()
        answers.checkIns.reserveCapacity(count)
        for row in try session.rows(of: checkIns) {
            let cells = row.makeRandomAccess()
            answers.checkIns[try cells[0].decode(String.self)] = try NightRecords.answers(
                NightRecords.AnswerCells(
                    int: { try cells[1 + $0].decode(Int.self) }, text: { try cells[1 + $0].decode(String?.self) },
                    flag: { try cells[1 + $0].decode(Bool.self) }))
        }
        for row in try session.rows(of: preSleeps) {
            let (night, json) = try row.decode((String, String).self)
            try answers.addPreSleep(night: night, json: json)
        }
        for row in try session.rows(of: medications) {
            let (night, medication, dose, id, takenAt, note) = try row.decode((String, String, Double, String, String, String?).self)
            answers.addMedication(night: night, medicationID: medication, doseMg: dose, id: id, takenAt: takenAt, note: note)
        }
        return answers
    }
}
