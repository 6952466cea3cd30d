public import DoseCore
public import Foundation

/// What happened to a recorded event: the audit entry it gets, which keeps the event as it was.
public enum EventChange: Sendable {
    /// The person undid it.
    case undo
    /// A later event of the same kind replaced it (Dose 2 confirmed after an early tap, a moved wake-up).
    case superseded
    /// Corrected in history: its new time and note.
    case edited(occurredAt: Date, note: String?)
    /// Deleted in history.
    case deleted
    /// Recorded as taken past the night's limits (D20): the night's total with it, and the most the night may hold.
    case takenAnyway(nightMilligrams: Int, maximumMilligrams: Int)
}

/// One transaction over the night tables: it loads what the rules ask for and saves what they decided, and knows no
/// rule itself. DoseApp's night service decides; a store of any kind (SQLite, PostgreSQL) implements this.
public protocol NightTransaction: JournalTransaction, AlarmRecordsTransaction, SupplyTransaction, SetupTransaction, DeviceTransaction,
    NightDeletionTransaction
{
    /// The settings, with the machine's zone as the default of `time_zone`.
    func settings(machineTimeZoneID: String) throws -> DoseSettings
    /// The open night with its events, if any.
    func openNight() throws -> NightSession?
    /// Oxybate doses of every night taken strictly inside `span`.
    func doses(within span: InstantSpan) throws -> [RecordedDose]
    /// Every oxybate dose of the nights with one taken after `start` and up to `end`, oldest first.
    func dosesOfNights(withDoseAfter start: Date, through end: Date) throws -> [RecordedDose]
    /// When taps of `type` were logged in any night less than `seconds` from `instant`, either side.
    func sleepEvents(_ type: SleepEventType, within seconds: TimeInterval, of instant: Date) throws -> [Date]
    /// The sleep environment of the latest check-in before `instant` that has one.
    func usualSleepEnvironment(before instant: Date) throws -> SleepEnvironment?
    /// The nights that ended at or after `instant`, latest first, and whether each has a check-in.
    func nightsEnded(since instant: Date) throws -> [(night: NightSession, checkedIn: Bool)]
    /// The latest night that ended after `instant`: its date and end.
    func latestNightEnded(after instant: Date) throws -> (date: SessionKey, endedAt: Date)?
    /// Whether an event with this id is recorded in any night.
    func isRecorded(_ id: EventID) throws -> Bool
    /// The night holding an event, with all its events.
    func night(holding id: EventID) throws -> NightSession?
    /// The answer stored under a device's idempotency key.
    func storedResponse(device: String, key: String) throws -> StoredResponse?
    /// When the night's alarms were answered.
    func alarmAnswers(night: SessionID) throws -> [Date]
    /// The night's reminder log and when its alarms were last answered (what `LoggedReminder.unanswered` decides on).
    func alarmLog(night: SessionID) throws -> (reminders: [LoggedReminder], lastAnswer: Date?)
    /// The reminder log's keys for the night (`Reminder.logKey`).
    func loggedReminders(night: SessionID) throws -> Set<String>

    /// Inserts the row of a newly started night.
    func insertNight(_ night: NightSession, timeZone: TimeZone) throws
    /// Inserts an event of a night (a check-in's answers with it).
    func insert(_ event: NightEvent, night: SessionID, checkIn: MorningCheckIn?) throws
    /// Deletes an event from the night.
    func delete(_ event: NightEvent) throws
    /// Rewrites a corrected event's time, offset, note and flags.
    func update(_ event: NightEvent) throws
    /// Keeps in the audit log, under `auditID`, what an event was before `change`.
    func audit(_ change: EventChange, of event: NightEvent, night: SessionID, auditID: String, at instant: Date) throws
    /// Writes the night's derived columns (and its end, when `closure` is given).
    func saveNight(_ night: NightSession, closure: SessionClosure?) throws
    /// Records that the night's alarms were answered from `surface` (by an action, or "I'm up").
    func insertAlarmAnswer(id: String, night: SessionID, at instant: Date, surface: AlarmSurface, eventID: EventID?) throws
    /// Stores a device's answer under its idempotency key.
    func storeResponse(_ response: StoredResponse, device: String, key: String, at instant: Date) throws
    /// Forgets the answers stored under idempotency keys before `instant`.
    func forgetStoredResponses(before instant: Date) throws
    /// Logs a reminder occurrence as `fired` or `missed`, once.
    func logReminder(_ reminder: Reminder, night: SessionID, missed: Bool, at instant: Date) throws
    /// The night that stays open once this transaction commits (nil: none), which a store may remember.
    func keepOpenNight(_ night: NightSession?)
    /// Runs `body` in a savepoint: if it throws, what it wrote is undone and the rest of the transaction stays.
    func savepoint<T>(_ body: () throws -> T) throws -> T
}

/// The night tables of one store: every read and write runs in one transaction.
public protocol NightRepository: Sendable {
    /// Runs `body` in one write transaction: all of it is kept, or none.
    func write<T>(_ body: (any NightTransaction) throws -> T) throws -> T
    /// Runs `body` in a write transaction shared with the writes that arrive while another commits (`GroupCommit`):
    /// each in a savepoint, one commit for all, each answered only after it.
    func writeTogether<T>(_ body: @escaping (any NightTransaction) throws -> T) throws -> T
    /// Runs `body` in one read transaction, which never waits for a writer.
    func read<T>(_ body: (any NightTransaction) throws -> T) throws -> T
}

/// Applies what time has made due to the open night inside a transaction a store runs for work of its own (a
/// medication, an import, a pre-sleep log), and returns the night still open. DoseApp's night service supplies it, so
/// the store runs the lifecycle without knowing its rules.
public typealias NightSettling = (any NightTransaction) throws -> NightSession?
