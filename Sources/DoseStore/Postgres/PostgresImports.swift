import DoseCore
public import Foundation
import PostgresNIO

/// A night of the person changed while an import worked: it runs again on what is stored now.
struct ImportOvertaken: Error {}

extension PostgresStore {
    /// How many times an import runs again after the person's own writes overtook it.
    static let importAttempts = 3

    /// Imports a file into `person`'s records (`RecordImporter`), in PostgreSQL's own statements and one transaction.
    public func importFile(
        of person: String, at path: String, clock: StoreClock, settling: @escaping NightSettling, scratchFolder: URL
    ) throws -> ImportReport {
        try importing(for: person) { records, stop in
            try RecordImporter(records: records, clock: clock, settling: settling, scratchFolder: scratchFolder, stop: stop).importFile(at: path)
        }
    }

    /// Runs an import's `work` on `person`'s records in one transaction that never takes the person's lock, so their own
    /// dose, alarm or "I'm up" never waits for it.
    ///
    /// The import reads at READ COMMITTED and writes as it goes; a reader sees none of it until it commits. Its writes
    /// leave the person's `night_version` alone (`dosetap.importing`, migration v16), so they never hold the person's
    /// row. If it wrote a night, it moves the version once, at the end, and only from the value it started at: a night
    /// the person changed meanwhile means what the import read may be stale, so it is rolled back and runs again from
    /// the start, and after `importAttempts` it refuses as busy, keeping nothing. A key another write took meanwhile (a
    /// night, a check-in) does the same. So what the person did is never overwritten, and the import is all or nothing.
    func importing<T>(for person: String, _ work: (PostgresNightTransaction, ImportStops.Flag) throws -> T) throws -> T {
        for _ in 1...Self.importAttempts {
            let flag = imports.begin()
            defer { imports.end(flag) }
            do {
                return try transaction(seeing: .person(person), readCommitted: true) { session in
                    session.send("SELECT set_config('dosetap.importing', 'on', true)")
                    let writing = NightWriting()
                    let records = PostgresNightTransaction(session: session, person: person, openNights: OpenNights(), writing: writing)
                    guard let started = try records.nightVersion(lockingRow: false) else {
                        throw DoseError.notFound(what: "the person \(person)")
                    }
                    writing.version = started
                    let result = try work(records, flag)
                    guard !flag.isStopped else { throw DoseError.importStopped }
                    if writing.planMayChange {
                        // The person's row is taken only here, for as long as the commit: the next instance to look plans
                        // their reminders again from the new version.
                        let moved = try session.rows(
                            """
                            UPDATE people SET night_version = nextval('dosetap_night_versions')
                            WHERE id = \(person) AND night_version = \(started) RETURNING id
                            """)
                        if moved.isEmpty { throw ImportOvertaken() }
                    }
                    return result
                }
            } catch is ImportOvertaken {
                continue
            }
        }
        throw DoseError.storageBusy
    }
}

extension PostgresNightTransaction: ImportTransaction {
    func latestNights(on dates: Set<SessionKey>) throws -> [SessionKey: NightSession] {
        guard !dates.isEmpty else { return [:] }
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT DISTINCT ON (session_date) \(Self.nightColumns) FROM sleep_sessions
                    WHERE person_id = $1 AND session_date = ANY($2::text[]::date[]) ORDER BY session_date, started_at DESC
                    """, binds: personAnd(dates.map(\.description))))
        return Dictionary(try nights(from: rows).map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func insertNight(_ night: NightSession, timeZone: TimeZone, closure: SessionClosure?) throws {
        guard let closure else { return try insertNight(night, timeZone: timeZone) }
        write(
            """
            INSERT INTO sleep_sessions (id, person_id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state)
            VALUES (\(night.id.rawValue), \(person), \(night.date.description)::date, \(text(night.startedAt))::timestamptz, \(timeZone.identifier),
                \(text(closure.endedAt))::timestamptz, \(closure.reason.rawValue), \(closure.terminalState.rawValue))
            """)
    }

    func night(id: SessionID) throws -> NightSession? {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.nightColumns) FROM sleep_sessions WHERE person_id = $1 AND id = $2", binds: binds(person, id.rawValue)))
        return try nights(from: rows).first
    }

    func recorded(among ids: [EventID]) throws -> Set<EventID> {
        guard !ids.isEmpty else { return [] }
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT id FROM dose_events WHERE person_id = $1 AND id = ANY($2)
                    UNION SELECT id FROM sleep_events WHERE person_id = $1 AND id = ANY($2)
                    UNION SELECT id FROM morning_checkins WHERE person_id = $1 AND id = ANY($2)
                    """, binds: personAnd(ids.map(\.rawValue))))
        return Set(try rows.map { EventID(rawValue: try $0.decode(String.self)) })
    }

    /// The person as `$1` and `values` as one array, `$2`: a question about many rows in one statement.
    private func personAnd(_ values: [String]) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(person)
        binds.append(values)
        return binds
    }

    func holdsRow(in table: String, id: String) throws -> Bool {
        try exists("SELECT 1 FROM \(table.sqlIdentifier) WHERE person_id = $1 AND id = $2", id)
    }

    func holdsRow(in table: String, ofNight night: SessionID) throws -> Bool {
        try exists("SELECT 1 FROM \(table.sqlIdentifier) WHERE person_id = $1 AND session_id = $2", night.rawValue)
    }

    private func exists(_ query: String, _ value: String) throws -> Bool {
        try session.rows(PostgresQuery(unsafeSQL: "SELECT EXISTS (\(query))", binds: binds(person, value))).first?.decode(Bool.self) ?? false
    }

    /// PostgreSQL's types read as the SQLite store declares them: whole numbers and flags are INTEGER, other numbers REAL.
    func bundleColumnTypes(of table: String) throws -> [String: String] {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT attname::text, format_type(atttypid, NULL) FROM pg_attribute
                    WHERE attrelid = $1::text::regclass AND attnum > 0 AND NOT attisdropped
                    """, binds: binds(table)))
        var types: [String: String] = [:]
        for row in rows {
            let (column, type) = try row.decode((String, String).self)
            types[column] =
                switch type {
                case "integer", "bigint", "smallint", "boolean": "INTEGER"
                case "double precision", "real", "numeric": "REAL"
                default: "TEXT"
                }
        }
        return types
    }

    func insertBundleRow(_ record: [String: String?], into table: String) throws {
        if ["sleep_sessions", "dose_events", "sleep_events", "morning_checkins"].contains(table) { writing?.planMayChange = true }
        do {
            try session.execute(try Self.insertion(of: [record], into: table, person: person))
        } catch let error as PSQLError {
            // Class 22 (a value its type does not read) and 23 (a check, a key): the row's value, not the store.
            guard let state = error.serverInfo?[.sqlState], state.hasPrefix("22") || state.hasPrefix("23") else { throw error }
            throw ImportRowRefused(reason: error.serverInfo?[.message] ?? "error \(state)")
        }
    }

    /// Inserts rows given as the SQLite store's text (instants as UTC text, flags as 0 and 1), which PostgreSQL's input
    /// for each column's type reads, in one statement; `conflict` is what a stored key does.
    static func insertion(
        of rows: [[String: String?]], into table: String, person: String, conflict: String = "", returning: Bool = false
    ) throws -> PostgresQuery {
        let columns = Set(rows.flatMap(\.keys)).sorted().map(\.sqlIdentifier)
        var binds = PostgresBindings()
        binds.append(String(decoding: try JSONEncoder().encode(rows), as: UTF8.self))
        binds.append(person)
        let inserted = returning ? " RETURNING 1" : ""
        return PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(table.sqlIdentifier) (person_id, \(columns.joined(separator: ", ")))
                SELECT $2, \(columns.map { "r." + $0 }.joined(separator: ", ")) FROM json_populate_recordset(NULL::\(table.sqlIdentifier), $1::json) AS r
                \(conflict)\(inserted)
                """, binds: binds)
    }

    func hasStoredSettings() throws -> Bool {
        try session.rows("SELECT EXISTS (SELECT 1 FROM settings WHERE person_id = \(person))").first?.decode(Bool.self) ?? false
    }

    func insertImportedSettings(_ settings: [(key: String, value: String)]) throws {
        guard !settings.isEmpty else { return }
        // Settings can move a reminder: the import ends by moving the night's version, which plans them again.
        writing?.planMayChange = true
        let epoch = ISO8601.string(Date(timeIntervalSince1970: 0))
        try session.execute(
            try Self.insertion(of: settings.map { ["key": $0.key, "value": $0.value, "updated_at": epoch] }, into: "settings", person: person))
    }

    func wearableSummary(id: String) throws -> SleepSummary? {
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: "SELECT \(PostgresStore.wearableSummaryColumns) FROM wearable_summaries WHERE person_id = $1 AND id = $2",
                binds: binds(person, id)))
        return try rows.first.flatMap(PostgresStore.wearableSummary)
    }

    func saveWearableSummary(_ summary: SleepSummary, id: String, importedAt: String, replacing: Bool) throws {
        let r = summary.recovery
        let figures: [Double?] = [
            summary.inBedMinutes, summary.asleepMinutes, summary.lightMinutes, summary.deepMinutes, summary.remMinutes, summary.awakeMinutes,
            r.recoveryPercent, r.sleepPerformancePercent, r.sleepEfficiencyPercent, r.restingHeartRate, r.hrvMilliseconds, r.respiratoryRate,
            r.oxygenSaturationPercent, r.skinTemperatureCelsius,
        ]
        var row: [String: String?] = [
            "id": id, "provider": "whoop", "source": summary.source, "start_at": text(summary.start), "end_at": text(summary.end),
            "offset_minutes": summary.offsetMinutes.map(String.init), "nap": summary.isNap ? "true" : "false", "imported_at": importedAt,
        ]
        for (column, value) in zip(WearableSummaryRow.figureColumns, figures) { row[column] = value.map { "\($0)" } }
        let replace = WearableSummaryRow.columns.filter { $0 != "id" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try session.execute(
            try Self.insertion(
                of: [row], into: "wearable_summaries", person: person,
                conflict: replacing ? "ON CONFLICT (person_id, id) DO UPDATE SET \(replace)" : ""))
    }

    func healthRecords(importedAt: String) throws -> any HealthRecordWriter {
        try PostgresHealthRecords(session: session, person: person, importedAt: importedAt)
    }
}

/// The Health app's records into PostgreSQL, a thousand to a statement. Vitals wait in a temporary table as read, as
/// they do in SQLite: whether one belongs to a night is known only once every sleep record is in.
final class PostgresHealthRecords: HealthRecordWriter {
    private let session: PostgresSession
    private let person: String
    private let importedAt: String
    private var sleep: [[String: String?]] = []
    private var vitals: [[String: String?]] = []
    private var counts = HealthRecordCounts()
    static let batch = 1_000

    init(session: PostgresSession, person: String, importedAt: String) throws {
        self.session = session
        self.person = person
        self.importedAt = importedAt
        try session.execute(
            """
            CREATE TEMP TABLE health_vitals_read (n bigserial PRIMARY KEY, source text NOT NULL, kind text NOT NULL, start_ms bigint NOT NULL,
                end_ms bigint NOT NULL, value double precision NOT NULL) ON COMMIT DROP
            """)
    }

    func add(_ sample: SleepSample, id: String) throws {
        sleep.append([
            "id": id, "provider": "apple_health", "source": sample.source, "stage": sample.stage.rawValue, "start_at": ISO8601.string(sample.start),
            "end_at": ISO8601.string(sample.end), "start_offset_minutes": sample.startOffsetMinutes.map(String.init),
            "end_offset_minutes": sample.endOffsetMinutes.map(String.init), "imported_at": importedAt,
        ])
        if sleep.count >= Self.batch { try writeSleep() }
    }

    func add(_ sample: VitalSample) throws {
        vitals.append([
            "source": sample.source, "kind": sample.kind.rawValue, "start_ms": String(RecordImporter.milliseconds(sample.start)),
            "end_ms": String(RecordImporter.milliseconds(sample.end)), "value": "\(sample.value)",
        ])
        counts.vitalsRead += 1
        if vitals.count >= Self.batch { try writeVitalsRead() }
    }

    private func writeSleep() throws {
        guard !sleep.isEmpty else { return }
        let added = try session.rows(
            try PostgresNightTransaction.insertion(
                of: sleep, into: "wearable_sleep", person: person, conflict: "ON CONFLICT (person_id, id) DO NOTHING", returning: true)
        ).count
        counts.sleepAdded += added
        counts.sleepStored += sleep.count - added
        sleep.removeAll(keepingCapacity: true)
    }

    private func writeVitalsRead() throws {
        guard !vitals.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(String(decoding: try JSONEncoder().encode(vitals), as: UTF8.self))
        try session.execute(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO health_vitals_read (source, kind, start_ms, end_ms, value)
                    SELECT source, kind, start_ms, end_ms, value
                    FROM json_to_recordset($1::json) AS r(source text, kind text, start_ms bigint, end_ms bigint, value double precision)
                    """, binds: binds))
        vitals.removeAll(keepingCapacity: true)
    }

    func finish() throws -> HealthRecordCounts {
        try writeSleep()
        try writeVitalsRead()
        guard counts.vitalsRead > 0 else { return counts }
        let milliseconds = { (column: String) in "(extract(epoch FROM \(column)) * 1000)::bigint" }
        try session.execute("CREATE INDEX ON health_vitals_read (start_ms)")
        try session.execute("ANALYZE health_vitals_read")
        try session.execute(
            """
            CREATE TEMP TABLE health_vitals_kept ON COMMIT DROP AS
                SELECT DISTINCT v.n FROM wearable_sleep s JOIN health_vitals_read v
                ON v.start_ms BETWEEN \(unescaped: milliseconds("s.start_at")) - 3600000 AND \(unescaped: milliseconds("s.end_at")) + 3600000
                WHERE s.person_id = \(person)
            """)
        counts.vitalsOfNights = try session.rows("SELECT count(*)::int FROM health_vitals_kept").first?.decode(Int.self) ?? 0
        // Each kept vital gets its id here, a chunk at a time: the digest is DoseTap's own, the same on both stores.
        var after: Int64 = 0
        while true {
            let rows = try session.rows(
                """
                SELECT v.n, v.source, v.kind, v.start_ms, v.end_ms, v.value FROM health_vitals_kept k JOIN health_vitals_read v USING (n)
                WHERE k.n > \(after) ORDER BY k.n LIMIT 5000
                """)
            guard !rows.isEmpty else { break }
            var kept: [[String: String?]] = []
            for row in rows {
                let (n, source, kind, start, end, value) = try row.decode((Int64, String, String, Int64, Int64, Double).self)
                after = n
                kept.append([
                    "id": RecordImporter.vitalID(source: source, kind: kind, startMilliseconds: start, endMilliseconds: end, value: value),
                    "provider": "apple_health", "source": source, "kind": kind, "start_at": RecordImporter.instantText(start),
                    "end_at": RecordImporter.instantText(end), "value": "\(value)", "imported_at": importedAt,
                ])
            }
            counts.vitalsAdded += try session.rows(
                try PostgresNightTransaction.insertion(
                    of: kept, into: "wearable_vitals", person: person, conflict: "ON CONFLICT (person_id, id) DO NOTHING", returning: true)
            ).count
        }
        return counts
    }
}
