public import DoseCore
public import Foundation
import GRDB

/// A saved pre-sleep log and the night it belongs to.
public struct SavedPreSleepLog: Sendable {
    public var id: String
    public var sessionID: SessionID
    public var sessionDate: SessionKey
    public var log: PreSleepLog
    public var completion: PreSleepCompletion
    /// True when saving it started tonight's session.
    public var startedSession: Bool
    /// True when it replaced an earlier log of the same night.
    public var replaced: Bool
}

extension NightJournal {
    /// Saves tonight's pre-sleep log (D11): it joins the open night or starts one; saving again replaces it.
    ///
    /// `placing` settles the night and finds the one the log joins (nil: it starts one).
    public func savePreSleep(
        _ log: PreSleepLog, at occurredAt: Date?, note: String?, clock: StoreClock, placing: NightSettling
    ) throws -> SavedPreSleepLog {
        let log = try log.validated()
        let note = try TextLimits.validated(note, field: "note", limit: TextLimits.note)
        return try database.write { db in
            let settings = try SettingsStore.load(db, machineTimeZoneID: clock.machineTimeZoneID)
            let zone = clock.zone(settings)
            let at = occurredAt ?? clock.now
            try NightRules.refuseFuture(at, now: clock.now)
            var session = try placing(SQLiteNightTransaction(db: db, cache: nil))
            let started = session == nil
            if session == nil {
                let new = NightSession(id: SessionID(rawValue: clock.makeID()), date: SessionKey(for: at, in: zone), startedAt: at)
                try NightRecords.insertSession(new, timeZone: zone, db)
                session = new
            }
            guard let session else { throw DoseError.notFound(what: "A night") }
            let previous = try Row.fetchOne(db, sql: "SELECT * FROM pre_sleep_logs WHERE session_id = ?", arguments: [session.id.rawValue])
            if let previous {
                try db.execute(sql: "DELETE FROM pre_sleep_logs WHERE id = ?", arguments: [previous["id"] as String])
                try NightRecords.audit(
                    .replacePreSleep, id: clock.makeID(), at: clock.now, session: session.id, entity: previous["id"],
                    details: ["answers_json": previous["answers_json"], "completion_state": previous["completion_state"]], db)
            }
            let id = clock.makeID()
            let json = String(decoding: try NightRecords.metadataEncoder.encode(log), as: UTF8.self)
            try db.execute(
                literal: """
                    INSERT INTO pre_sleep_logs (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source, note,
                        completion_state, answers_json)
                    VALUES (\(id), \(session.id.rawValue), \(ISO8601.string(at)), \(ISO8601.string(clock.now)),
                    \(LocalClock.offsetMinutes(zone, at: at)),
                        \(zone.identifier), 'user', \(note), \(log.completion.rawValue), \(json))
                    """)
            return SavedPreSleepLog(
                id: id, sessionID: session.id, sessionDate: session.date, log: log, completion: log.completion,
                startedSession: started, replaced: previous != nil)
        }
    }
}
