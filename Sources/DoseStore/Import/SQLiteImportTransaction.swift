import DoseCore
import Foundation
import GRDB

extension SQLiteNightTransaction: ImportTransaction {
    func latestNights(on dates: Set<SessionKey>) throws -> [SessionKey: NightSession] {
        var nights: [SessionKey: NightSession] = [:]
        for date in dates { nights[date] = try NightRecords.latestSession(on: date, db) }
        return nights
    }

    func insertNight(_ night: NightSession, timeZone: TimeZone, closure: SessionClosure?) throws {
        try NightRecords.insertSession(night, timeZone: timeZone, closure: closure, db)
    }

    func night(id: SessionID) throws -> NightSession? { try NightRecords.session(id: id, db) }

    func recorded(among ids: [EventID]) throws -> Set<EventID> { Set(try ids.filter { try isRecorded($0) }) }

    func holdsRow(in table: String, id: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table.sqlIdentifier) WHERE id = ?)", arguments: [id]) == true
    }

    func holdsRow(in table: String, ofNight night: SessionID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table.sqlIdentifier) WHERE session_id = ?)", arguments: [night.rawValue]) == true
    }

    func bundleColumnTypes(of table: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try db.columns(in: table).map { ($0.name, $0.type.uppercased()) })
    }

    func insertBundleRow(_ record: [String: String?], into table: String) throws {
        let columns = record.keys.sorted()
        do {
            try db.execute(
                sql:
                    "INSERT INTO \(table.sqlIdentifier) (\(columns.map(\.sqlIdentifier).joined(separator: ", "))) VALUES "
                    + "(\(databaseQuestionMarks(count: columns.count)))",
                arguments: StatementArguments(columns.map { record[$0] ?? nil }))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw ImportRowRefused(reason: error.message ?? "constraint failed")
        }
    }

    func hasStoredSettings() throws -> Bool { try SettingRecord.fetchCount(db) > 0 }

    func insertImportedSettings(_ settings: [(key: String, value: String)]) throws {
        for (key, value) in settings { try SettingRecord(key: key, value: value, updatedAt: Date(timeIntervalSince1970: 0)).insert(db) }
    }

    func wearableSummary(id: String) throws -> SleepSummary? { try WearableSummaryRow.fetch(id: id, db) }

    func saveWearableSummary(_ summary: SleepSummary, id: String, importedAt: String, replacing: Bool) throws {
        try WearableSummaryRow.write(summary, id: id, importedAt: importedAt, replacing: replacing, db)
    }

    func healthRecords(importedAt: String) throws -> any HealthRecordWriter { try SQLiteHealthRecords(db, importedAt: importedAt) }
}

/// The Health app's records into SQLite. Vitals wait in a temporary table as read (milliseconds, no id, no index),
/// because whether one belongs to a night is known only once every sleep record is in: most are daytime samples that
/// are never kept, and an id or an index entry for each of them was most of the import's writing time. The table goes
/// with the transaction whichever way it ends.
final class SQLiteHealthRecords: HealthRecordWriter {
    private let db: Database
    private let importedAt: String
    private let sleep: Statement
    private let vital: Statement
    private var counts = HealthRecordCounts()

    init(_ db: Database, importedAt: String) throws {
        self.db = db
        self.importedAt = importedAt
        sleep = try db.makeStatement(
            sql: """
                INSERT OR IGNORE INTO wearable_sleep (id, provider, source, stage, start_at, end_at, start_offset_minutes,
                end_offset_minutes, imported_at)
                VALUES (?, 'apple_health', ?, ?, ?, ?, ?, ?, ?)
                """)
        try db.execute(
            sql:
                "CREATE TEMP TABLE health_vitals_read (source TEXT NOT NULL, kind TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER "
                + "NOT NULL, value REAL NOT NULL)"
        )
        vital = try db.makeStatement(sql: "INSERT INTO temp.health_vitals_read VALUES (?, ?, ?, ?, ?)")
    }

    func add(_ sample: SleepSample, id: String) throws {
        try sleep.execute(arguments: [
            id, sample.source, sample.stage.rawValue, ISO8601.string(sample.start), ISO8601.string(sample.end), sample.startOffsetMinutes,
            sample.endOffsetMinutes, importedAt,
        ])
        if db.changesCount > 0 { counts.sleepAdded += 1 } else { counts.sleepStored += 1 }
    }

    func add(_ sample: VitalSample) throws {
        try vital.execute(arguments: [
            sample.source, sample.kind.rawValue, RecordImporter.milliseconds(sample.start), RecordImporter.milliseconds(sample.end), sample.value,
        ])
        counts.vitalsRead += 1
    }

    func finish() throws -> HealthRecordCounts {
        let instant = DatabaseFunction("dosetap_instant", argumentCount: 1, pure: true) { values in
            Int64.fromDatabaseValue(values[0]).map(RecordImporter.instantText)
        }
        let id = DatabaseFunction("dosetap_vital_id", argumentCount: 5, pure: true) { values in
            guard let source = String.fromDatabaseValue(values[0]), let kind = String.fromDatabaseValue(values[1]),
                let start = Int64.fromDatabaseValue(values[2]), let end = Int64.fromDatabaseValue(values[3]),
                let value = Double.fromDatabaseValue(values[4])
            else { return nil }
            return RecordImporter.vitalID(source: source, kind: kind, startMilliseconds: start, endMilliseconds: end, value: value)
        }
        db.add(function: instant)
        db.add(function: id)
        defer {
            db.remove(function: instant)
            db.remove(function: id)
        }
        // A sleep record's bounds in milliseconds, exactly: unixepoch() drops the fraction, which the text holds at 21–23.
        let milliseconds = { (column: String) in "(unixepoch(\(column)) * 1000 + CAST(substr(\(column), 21, 3) AS INTEGER))" }
        try db.execute(
            sql: """
                CREATE INDEX temp.health_vitals_read_by_start ON health_vitals_read(start_ms);
                CREATE TEMP TABLE health_vitals_kept AS
                    SELECT DISTINCT v.rowid AS id FROM wearable_sleep s JOIN temp.health_vitals_read v
                    ON v.start_ms BETWEEN \(milliseconds("s.start_at")) - 3600000 AND \(milliseconds("s.end_at")) + 3600000;
                """)
        counts.vitalsOfNights = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM temp.health_vitals_kept") ?? 0
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO wearable_vitals (id, provider, source, kind, start_at, end_at, value, imported_at)
                SELECT dosetap_vital_id(v.source, v.kind, v.start_ms, v.end_ms, v.value), 'apple_health', v.source, v.kind,
                       dosetap_instant(v.start_ms), dosetap_instant(v.end_ms), v.value, ?
                FROM temp.health_vitals_kept k JOIN temp.health_vitals_read v ON v.rowid = k.id ORDER BY k.id
                """, arguments: [importedAt])
        counts.vitalsAdded = db.changesCount
        try db.execute(sql: "DROP TABLE temp.health_vitals_kept; DROP TABLE temp.health_vitals_read")
        return counts
    }
}
