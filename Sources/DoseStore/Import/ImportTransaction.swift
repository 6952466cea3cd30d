public import DoseCore
public import Foundation

/// What an import reads and writes beyond a night's own operations. Both stores answer it in their own statements, so
/// an import's rules (`RecordImporter`) are written once: the SQLite store on its private copy (`StagedImport`),
/// PostgreSQL in one transaction of its own (`PostgresStore.importing`).
public protocol ImportTransaction: NightTransaction {
    /// For each of `dates` that has a night, the one that started last, with its events: one question for a whole file.
    func latestNights(on dates: Set<SessionKey>) throws -> [SessionKey: NightSession]
    /// Adds a night; one added with its `closure` is closed from its first row, so a past night can come in while
    /// another night is open.
    func insertNight(_ night: NightSession, timeZone: TimeZone, closure: SessionClosure?) throws
    /// The night `id`, with its events.
    func night(id: SessionID) throws -> NightSession?
    /// Which of `ids` name an event or check-in the person already holds: one question for a whole file.
    func recorded(among ids: [EventID]) throws -> Set<EventID>
    /// Whether the person's `table` holds a row `id`.
    func holdsRow(in table: String, id: String) throws -> Bool
    /// Whether the person's `table` holds a row of the night `night`.
    func holdsRow(in table: String, ofNight night: SessionID) throws -> Bool
    /// The SQLite type each column of a bundle's table is checked against (`INTEGER`, `REAL`, `TEXT`).
    func bundleColumnTypes(of table: String) throws -> [String: String]
    /// Adds one bundle row, each value as the bundle's text; throws `ImportRowRefused` when the store's own checks
    /// refuse a value.
    func insertBundleRow(_ record: [String: String?], into table: String) throws
    /// Whether the person has any setting stored.
    func hasStoredSettings() throws -> Bool
    /// Stores a bundle's settings, dated at the epoch: the bundle does not say when each was chosen.
    func insertImportedSettings(_ settings: [(key: String, value: String)]) throws
    /// A stored wearable sleep summary.
    func wearableSummary(id: String) throws -> SleepSummary?
    /// Stores a wearable sleep summary, or replaces the one stored under `id`.
    func saveWearableSummary(_ summary: SleepSummary, id: String, importedAt: String, replacing: Bool) throws
    /// Where the Health app's records are written as they are read.
    func healthRecords(importedAt: String) throws -> any HealthRecordWriter
}

/// The Health app's records written as they are read, a file of gigabytes a record at a time.
public protocol HealthRecordWriter {
    /// Adds a sleep record unless it is stored already.
    func add(_ sleep: SleepSample, id: String) throws
    /// Holds a vital until every sleep record is in: only those of a night are kept.
    func add(_ vital: VitalSample) throws
    /// Keeps the vitals within an hour of some sleep record (this import's or an earlier one's), each once; returns what
    /// was written.
    func finish() throws -> HealthRecordCounts
}

/// What a Health import wrote.
public struct HealthRecordCounts: Sendable, Equatable {
    /// Sleep records added, and those already stored.
    public var sleepAdded = 0
    public var sleepStored = 0
    /// Vitals read, those of a night, and those of them added (the rest were stored already).
    public var vitalsRead = 0
    public var vitalsOfNights = 0
    public var vitalsAdded = 0
}

/// A value a store's own checks refused in an imported row: the import names the file and row.
struct ImportRowRefused: Error {
    let reason: String
}
