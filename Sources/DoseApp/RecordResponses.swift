public import DoseCore
public import DoseStore
import Foundation

// The answers of the record-keeping, transfer and reading routes, shared by the API and the CLI's `--json`.

/// A logged medication entry. Amounts are text (`%g`), as the person typed them.
public struct MedicationResponse: Encodable, Sendable {
    var id, medicationID, name, doseMg, doseAmount, doseUnit: String
    var takenAt: Date
    var sessionDate: String
    var sessionID, notes: String?
    var confirmedDuplicate: Bool
    var batchID: String

    enum CodingKeys: String, CodingKey {
        case id, medicationID = "medication_id", name, doseMg = "dose_mg", doseAmount = "dose_amount", doseUnit = "dose_unit"
        case takenAt = "taken_at", sessionDate = "session_date", sessionID = "session_id", notes
        case confirmedDuplicate = "confirmed_duplicate", batchID = "batch_id"
    }

    /// The response for a stored entry.
    public init(_ record: MedicationRecord) {
        (id, medicationID, name) = (record.id, record.medication.id, record.medication.name)
        (doseMg, doseAmount, doseUnit) = (String(format: "%g", record.doseMg), String(format: "%g", record.amount), record.unit.rawValue)
        (takenAt, sessionDate, sessionID) = (record.takenAt, record.sessionDate.description, record.sessionID?.rawValue)
        (notes, confirmedDuplicate, batchID) = (record.note, record.confirmedDuplicate, record.batchID)
    }
}

/// What an import took, skipped (with why) and refused, by file.
public struct ImportResponse: Encodable, Sendable {
    var imported, skipped: [String: Int]
    var skipReasons: [String: String]
    var rejected: [Rejected]
    var notes: [String]

    struct Rejected: Encodable, Sendable {
        var file: String
        var row: Int
        var reason: String
    }

    enum CodingKeys: String, CodingKey {
        case imported, skipped, skipReasons = "skip_reasons", rejected, notes
    }

    /// The response for an import's report.
    public init(_ report: ImportReport) {
        (imported, skipped, skipReasons, notes) = (report.imported, report.skipped, report.skipReasons, report.notes)
        rejected = report.rejected.map { Rejected(file: $0.file, row: $0.row, reason: $0.reason) }
    }
}

/// Clear All Data: rows deleted, and rows left (zero when it worked).
public struct ClearAllResponse: Encodable, Sendable {
    var deletedRows, remainingRows: Int

    enum CodingKeys: String, CodingKey { case deletedRows = "deleted_rows", remainingRows = "remaining_rows" }

    /// The response for a Clear All report.
    public init(_ report: ClearReport) {
        deletedRows = report.deleted.values.reduce(0, +)
        remainingRows = report.remaining.values.reduce(0, +)
    }
}

/// The nights of a date deleted, with their events.
public struct DeletedNightsResponse: Encodable, Sendable {
    var deletedSessions, deletedEvents: Int
    /// The date asked for when one was (`DELETE /v1/sessions/{date}`, one date on the command line); else nil.
    var sessionDate: String?
    var firstDate, lastDate: String?
    var dates: [String]

    enum CodingKeys: String, CodingKey {
        case deletedSessions = "deleted_sessions", deletedEvents = "deleted_events", sessionDate = "session_date", firstDate = "first_date"
        case lastDate = "last_date", dates
    }

    /// The response for a deletion.
    public init(_ deleted: NightDeletionSummary, asked date: SessionKey? = nil) {
        deletedSessions = deleted.nights
        deletedEvents = deleted.events
        sessionDate = date?.description
        (firstDate, lastDate) = (deleted.first?.description, deleted.last?.description)
        dates = deleted.dates.map(\.description)
    }
}

/// A saved pre-sleep log: the night it belongs to, how complete it is, and whether it replaced an earlier one.
public struct PreSleepResponse: Encodable, Sendable {
    var id, sessionID, sessionDate, completionState: String
    var replaced: Bool

    enum CodingKeys: String, CodingKey {
        case id, sessionID = "session_id", sessionDate = "session_date", completionState = "completion_state", replaced
    }

    /// The response for a saved log.
    public init(_ saved: SavedPreSleepLog) {
        (id, sessionID, sessionDate) = (saved.id, saved.sessionID.rawValue, saved.sessionDate.description)
        (completionState, replaced) = (saved.completion.rawValue, saved.replaced)
    }
}

/// Tonight's reminder plan, the next reminder, and the outages during the night when none could fire.
public struct RemindersResponse: Encodable, Sendable {
    var reminders: [ReminderResponse]
    var next: ReminderResponse?
    var serverOutages: [Outage]

    struct Outage: Encodable, Sendable {
        var from, until: Date
        var stoppedCleanly: Bool

        enum CodingKeys: String, CodingKey { case from, until, stoppedCleanly = "stopped_cleanly" }
    }

    enum CodingKeys: String, CodingKey { case reminders, next, serverOutages = "server_outages" }

    /// The response for a night's plan.
    public init(plan: [Reminder], next: Reminder?, outages: [ServerOutage]) {
        reminders = plan.map(ReminderResponse.init)
        self.next = next.map(ReminderResponse.init)
        serverOutages = outages.map { Outage(from: $0.from, until: $0.until, stoppedCleanly: $0.stoppedCleanly) }
    }
}

/// `GET /health`: the server answers, and whether its database does.
public struct HealthResponse: Encodable, Sendable {
    var ok = true
    /// `reachable` or `unreachable`.
    var database: String
    /// What the database said, when it did not answer (never a password); null when it did.
    var problem: String?

    /// The server's answer to a health check.
    public init(databaseProblem: String?) {
        database = databaseProblem == nil ? "reachable" : "unreachable"
        problem = databaseProblem
    }
}

/// `GET /ready`: whether this instance should be sent work. It is when its database answers and, on a shared store, it
/// is claiming reminder jobs.
public struct ReadinessResponse: Encodable, Sendable {
    var ready: Bool
    var database: String
    /// Whether this instance is claiming reminder jobs (a shared store); null on a SQLite file, whose one engine
    /// fires them.
    var claiming: Bool?
    var problem: String?

    /// The answer, from what the checks found.
    public init(databaseProblem: String?, claiming: Bool?) {
        database = databaseProblem == nil ? "reachable" : "unreachable"
        self.claiming = claiming
        ready = databaseProblem == nil && claiming != false
        problem = databaseProblem ?? (claiming == false ? "this instance has not claimed reminder jobs for a few seconds" : nil)
    }

    /// Whether it is ready.
    public var isReady: Bool { ready }
}

/// The settings as a flat object of strings, one key per setting (SPEC §5.3's `GET /v1/settings`).
public struct SettingsResponse: Encodable, Sendable {
    let values: [String: String]

    /// The response for the settings in force.
    public init(_ settings: DoseSettings) {
        values = Dictionary(settings.listing().map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    public func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }
}
