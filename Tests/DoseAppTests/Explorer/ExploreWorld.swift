import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import GRDBSQLite

@testable import DoseStore

/// One store in one state of the search: an in-memory SQLite database and the clock, driven through DoseApp's use cases
/// as each surface drives them.
final class ExploreWorld: @unchecked Sendable {
    let database: AppDatabase
    let time: TestClock
    /// The night's start: the instants count from it until a Dose 1 exists.
    let start: Date
    static let keys = Counter()
    /// Ids for rows, from one counter across every copy, so no two copies could ever draw the same.
    private static let ids = Counter()

    init(database: AppDatabase, time: TestClock, start: Date) {
        self.database = database
        self.time = time
        self.start = start
    }

    var app: UseCases {
        AppEnvironment(
            database: database, now: { [time] in time.now }, machineTimeZoneID: time.zone,
            makeID: { String(format: "00000000-0000-4000-8000-%012d", Self.ids.next()) }, random: .system
        ).useCases()
    }

    /// A copy to try a step on, at the same instant.
    func copy() throws -> ExploreWorld {
        ExploreWorld(database: try database.inMemoryCopy(), time: TestClock(time.now, zone: time.zone), start: start)
    }

    /// Each distinct instant of the boundary set from now on (minutes after the open night's Dose 1, or the start), with
    /// the first boundary that falls on it. Dose 1 is read straight from the rows, since a status read may apply what
    /// time made due.
    func instants() throws -> [(index: Int, at: Date)] {
        let dose1 = try database.writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT occurred_at FROM dose_events WHERE event_type = 'dose1'
                    AND session_id IN (SELECT id FROM sleep_sessions WHERE ended_at IS NULL) ORDER BY occurred_at DESC LIMIT 1
                    """)
        }
        let anchor = dose1.flatMap(ISO8601.parse) ?? start
        var seen: Set<Date> = []
        return ExploreStep.instants.indices.compactMap { index in
            let at = max(time.now, anchor.addingTimeInterval(ExploreStep.instants[index] * 60))
            return seen.insert(at).inserted ? (index, at) : nil
        }
    }

    /// What the step did.
    enum Result {
        case accepted(ActionOutcome)
        case refused(DoseError)
    }

    /// How a surface sends a step: the action as it arrives, from where, with its event id or idempotency key.
    struct Sending {
        var action: NightAction
        let surface: AlarmSurface
        /// An offline replay's event id: it is sent twice.
        let eventID: EventID?
        /// An API request's key: once accepted, it is sent again.
        let idempotency: IdempotentRequest?

        init(_ step: ExploreStep, at instant: Date) {
            var action = NightAction(step.action.kind, confirmations: step.confirmations)
            var eventID: EventID?
            var idempotency: IdempotentRequest?
            let surface: AlarmSurface
            switch step.surface {
            case .cli: surface = .cli
            case .api:
                surface = .api
                let key = "explore-\(ExploreWorld.keys.next())"
                idempotency = IdempotentRequest(device: "explorer", key: key, requestHash: key) { _ in (200, "{}") }
            case .page: surface = .page
            case .push, .link:
                surface = step.surface == .push ? .push : .link
                let link = ActionLink(action: step.action.linkAction ?? .take, sessionID: "", expiresAt: instant, nonce: "")
                action = link.nightAction
            case .caregiver:
                surface = .api
                action.actor = "bob@example.org"
            case .offline:
                surface = .page
                eventID = EventID(rawValue: "offline-\(ExploreWorld.keys.next())")
            }
            action.surface = surface
            self.action = action
            self.surface = surface
            self.eventID = eventID
            self.idempotency = idempotency
        }

        /// Sends the step once and answers what it did (`app` is taken at the step's instant).
        func first(to app: UseCases) throws -> Result {
            do {
                return .accepted(try app.night.perform(action, from: surface, eventID: eventID, idempotency: idempotency))
            } catch let error as DoseError {
                return .refused(error)
            }
        }

        /// Sends it again as its surface would (the offline replay, the API's resend after an answer), and throws
        /// `ExploreViolation` if that acted.
        func again(to app: UseCases, after first: Result, step: ExploreStep) throws {
            if let eventID {
                do {
                    _ = try app.night.perform(action, from: surface, eventID: eventID)
                    throw ExploreViolation("the offline replay of \(step) with its event id acted twice")
                } catch is EventAlreadyRecorded {
                } catch is DoseError {}
            }
            if let idempotency, case .accepted = first {
                do {
                    _ = try app.night.perform(action, from: surface, idempotency: idempotency)
                    throw ExploreViolation("\(step) sent again with its idempotency key acted twice")
                } catch is AlreadyAnswered {}
            }
        }
    }

    /// Performs a step through its surface; the offline replay sends it twice and reports the first answer. Throws
    /// `ExploreViolation` when a surface's own promise breaks (a replay acting twice, or changing the store).
    func perform(_ step: ExploreStep, at instant: Date) throws -> Result {
        time.set(instant)
        let sending = Sending(step, at: instant)
        let first = try sending.first(to: app)
        if sending.eventID != nil || sending.idempotency != nil {
            try unchanged(by: "\(step) sent again") { try sending.again(to: app, after: first, step: step) }
        }
        return first
    }

    /// Runs `body`, which must leave the store as it was: proved by no row written, else by its image compared.
    private func unchanged(by what: String, _ body: () throws -> Void) throws {
        let changes = try changes()
        let before = try image()
        try body()
        guard try self.changes() != changes else { return }
        guard try image() == before else { throw ExploreViolation("\(what) changed the store") }
    }

    /// Rows changed on this connection so far, rolled back or not: equal counts prove nothing was written.
    func changes() throws -> Int { try database.writer.read { $0.totalChangesCount } }

    /// The database as SQLite would write it to a file, page by page: a rolled-back transaction restores every page, so
    /// equal images are the same store to the byte.
    func image() throws -> [UInt8] {
        try database.writer.writeWithoutTransaction { db in
            var size: sqlite3_int64 = 0
            guard let bytes = sqlite3_serialize(db.sqliteConnection, "main", &size, 0) else {
                throw ExploreViolation("SQLite could not serialise the explorer's database")
            }
            defer { sqlite3_free(bytes) }
            return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
        }
    }

    /// The night's record without ids and bookkeeping, with every instant counted from the start: two paths that leave
    /// the same facts give the same state, whatever ids they drew or how they got there.
    func canonicalRows(userEventsOnly: Bool = false) throws -> [String] {
        let origin = start
        return try database.writer.read { db in
            let sessions = try String.fetchAll(db, sql: "SELECT id FROM sleep_sessions ORDER BY started_at, id")
            func night(_ id: String?) -> String { id.flatMap { sessions.firstIndex(of: $0) }.map { "n\($0)" } ?? "-" }
            func offset(_ instant: String?) -> String {
                guard let instant, let date = ISO8601.parse(instant) else { return "-" }
                return NumberText.plain((date.timeIntervalSince(origin) * 100).rounded() / 100)
            }
            var rows: [String] = []
            let system = userEventsOnly ? " WHERE source <> 'system'" : ""
            for row in try Row.fetchAll(db, sql: "SELECT * FROM dose_events\(system) ORDER BY occurred_at, recorded_at") {
                rows.append(
                    "dose \(night(row["session_id"])) \(row["event_type"] as String) at \(offset(row["occurred_at"])) rec \(offset(row["recorded_at"])) "
                        + "\(row["source"] as String) \(row["metadata"] as String? ?? "")")
            }
            for row in try Row.fetchAll(db, sql: "SELECT * FROM sleep_events\(system) ORDER BY occurred_at, recorded_at") {
                rows.append(
                    "sleep \(night(row["session_id"])) \(row["event_type"] as String) at \(offset(row["occurred_at"])) rec \(offset(row["recorded_at"]))"
                )
            }
            for row in try Row.fetchAll(db, sql: "SELECT * FROM morning_checkins ORDER BY occurred_at") {
                rows.append("checkin \(night(row["session_id"])) at \(offset(row["occurred_at"]))")
            }
            guard !userEventsOnly else { return rows }
            for row in try Row.fetchAll(db, sql: "SELECT * FROM sleep_sessions ORDER BY started_at, id") {
                rows.append(
                    "night \(night(row["id"])) \(row["session_date"] as String) ended \(offset(row["ended_at"])) "
                        + "\(row["end_reason"] as String? ?? "-") \(row["terminal_state"] as String? ?? "-")")
            }
            return rows
        }
    }
}

/// A broken invariant, in words.
struct ExploreViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A thread-safe counter for unique keys across every copy.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
