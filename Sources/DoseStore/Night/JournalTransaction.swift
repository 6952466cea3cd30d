public import DoseCore
public import Foundation

/// Values kept in an audit entry's details, as the store writes every JSON it keeps (keys sorted, slashes as they are).
public enum AuditDetails {
    /// `value` as the JSON text an audit entry keeps.
    public static func json(_ value: some Encodable) throws -> String {
        String(decoding: try NightRecords.metadataEncoder.encode(value), as: UTF8.self)
    }
}

/// A pre-sleep log as stored: what replacing it keeps in the audit log.
public struct StoredPreSleepLog: Sendable {
    public var id: String
    public var answersJSON: String
    public var completion: String
}

/// A pre-sleep log to store in a night.
public struct PreSleepEntry: Sendable {
    public var id: String
    public var night: SessionID
    public var occurredAt: Date
    public var recordedAt: Date
    public var timeZone: TimeZone
    public var note: String?
    public var log: PreSleepLog
    /// Who wrote it: the person, or an import.
    public var source: EventSource
    /// How complete it is: the log's own, unless a source (the original app) said otherwise.
    public var completion: PreSleepCompletion

    /// An entry from every field.
    public init(
        id: String, night: SessionID, occurredAt: Date, recordedAt: Date, timeZone: TimeZone, note: String?, log: PreSleepLog,
        source: EventSource = .user, completion: PreSleepCompletion? = nil
    ) {
        self.id = id
        self.night = night
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.timeZone = timeZone
        self.note = note
        self.log = log
        self.source = source
        self.completion = completion ?? log.completion
    }
}

/// A morning check-in as stored, with its night and its answers.
public struct StoredCheckIn: Sendable {
    public var id: EventID
    public var night: SessionID
    public var occurredAt: Date
    public var answers: MorningCheckIn
}

/// The journal beside a night's events, in the same transaction as the night tables: other medications, pre-sleep logs,
/// corrections of check-ins and the audit entries they leave. It loads and saves; DoseApp decides, through DoseCore.
public protocol JournalTransaction {
    /// The times of stored entries of `medicationIDs` taken strictly between `after` and `before`, by medication id,
    /// leaving out the entry `excluding` names.
    func medicationTimes(of medicationIDs: Set<String>, after: Date, before: Date, excluding: String?) throws -> [String: [Date]]
    /// The latest night started on each of `dates` that has one.
    func nightIDs(dated dates: Set<SessionKey>) throws -> [SessionKey: SessionID]
    /// One medication entry by id.
    func medication(id: String) throws -> MedicationRecord?
    /// Medication entries, newest first, of one night's date or all, at most `limit`.
    func medications(on date: SessionKey?, limit: Int) throws -> [MedicationRecord]
    /// Stores new medication entries.
    func insertMedications(_ entries: [MedicationRecord]) throws
    /// Removes a medication entry.
    func deleteMedication(id: String) throws
    /// The night's pre-sleep log, if it has one.
    func preSleepLog(night: SessionID) throws -> StoredPreSleepLog?
    /// Removes a pre-sleep log.
    func deletePreSleepLog(id: String) throws
    /// Stores a pre-sleep log.
    func insertPreSleepLog(_ entry: PreSleepEntry) throws
    /// The latest check-in of the nights dated `date`.
    func latestCheckIn(ofNightDated date: SessionKey) throws -> StoredCheckIn?
    /// Rewrites a check-in's answers.
    func rewriteCheckIn(_ id: EventID, answers: MorningCheckIn) throws
    /// Whether any check-in records a sleep environment ("same as usual" can copy one).
    func hasSleepEnvironment() throws -> Bool
    /// Keeps an entry in the audit log: `details` as a JSON object of strings.
    func audit(_ action: AuditAction, id: String, at instant: Date, night: SessionID?, entity: String?, details: [String: String]) throws
}
