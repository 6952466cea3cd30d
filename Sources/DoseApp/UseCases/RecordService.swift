public import DoseCore
public import DoseStore
public import Foundation

/// The record of past nights: history, one date's nights, corrections, check-in edits and pre-sleep logs.
public struct RecordService: Sendable {
    let database: AppDatabase
    /// The instant, zone, ids and randomness of this call.
    public let clock: StoreClock

    /// The records at one instant.
    public init(_ database: AppDatabase, clock: StoreClock) {
        self.database = database
        self.clock = clock
    }

    /// One page of history.
    public func history(_ query: HistoryQuery) throws -> HistoryPage {
        try HistoryStore(database).page(query, clock: clock)
    }

    /// The nights of one date (usually one; several after a nap or an early close).
    public func nights(on date: SessionKey) throws -> [NightRecord] {
        try HistoryStore(database).nights(on: date, clock: clock)
    }

    /// Deletes the nights of one date, audited; returns what was deleted.
    public func deleteNights(on date: SessionKey) throws -> [NightRecord] {
        try HistoryStore(database).deleteNights(on: date, clock: clock)
    }

    /// Moves a recorded event or changes its note; the night's rules are checked again.
    public func editEvent(_ id: EventID, occurredAt: Date?, note: String??) throws -> EventEdit {
        try NightJournal(database).editEvent(id, occurredAt: occurredAt, note: note, clock: clock)
    }

    /// Deletes a recorded event, audited.
    public func deleteEvent(_ id: EventID) throws -> EventEdit {
        try NightJournal(database).deleteEvent(id, clock: clock)
    }

    /// Replaces the check-in of a date's night.
    public func editCheckIn(on date: SessionKey, answers: MorningCheckIn) throws -> MorningCheckIn {
        try NightJournal(database).editCheckIn(on: date, answers: answers, clock: clock)
    }

    /// Saves a pre-sleep log (now, or at `occurredAt`).
    public func savePreSleep(_ log: PreSleepLog, at occurredAt: Date?, note: String?) throws -> SavedPreSleepLog {
        try NightJournal(database).savePreSleep(log, at: occurredAt, note: note, clock: clock)
    }

    /// Whether a check-in may answer "same as usual" for the sleep environment.
    public func hasUsualSleepEnvironment() throws -> Bool {
        try NightJournal(database).hasUsualSleepEnvironment()
    }

    /// A recorded event and its night, by id (a replayed API request finds what it recorded).
    public func recordedEvent(_ id: EventID) throws -> (event: NightEvent, session: NightSession)? {
        try NightJournal(database).recordedEvent(id)
    }
}
