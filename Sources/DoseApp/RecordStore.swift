public import DoseCore
public import DoseStore
import Foundation

/// Where the program keeps its records: the embedded SQLite file (the default), or a PostgreSQL server (SPEC §5.6).
///
/// On PostgreSQL, what runs on repositories works today: tonight's actions and status, due reminders, settings, and
/// corrections of recorded events. Everything else still needs the SQLite store and says so (`sqlite`).
public enum RecordStore: Sendable {
    case sqlite(AppDatabase)
    /// A PostgreSQL store and the person whose records these are.
    case postgres(PostgresStore, person: String)

    /// Tonight: actions, status, settling, due reminders and corrections.
    public var ledger: NightLedger {
        switch self {
        case .sqlite(let database): database.ledger
        case .postgres(let store, let person): NightLedger(repository: PostgresNightRepository(store: store, person: person))
        }
    }

    /// The settings.
    public var settingsBook: SettingsBook {
        switch self {
        case .sqlite(let database): database.settingsBook
        case .postgres(let store, let person): SettingsBook(repository: PostgresSettingsRepository(store: store, person: person))
        }
    }

    /// The SQLite database, for what has not moved onto repositories yet; on PostgreSQL, a refusal that says so.
    public var sqlite: AppDatabase {
        get throws {
            guard case .sqlite(let database) = self else { throw Self.refusalOffSQLite() }
            return database
        }
    }

    /// What a command that needs the SQLite file answers on PostgreSQL.
    public static func refusalOffSQLite() -> DoseError {
        .invalidInput(
            field: "database", problem: "this command does not run on PostgreSQL yet",
            allowed: "on PostgreSQL: tonight's actions and status, log, undo, check-in, settings, and event edit/delete; "
                + "everything else on a SQLite database (--db)")
    }

    /// Opens the PostgreSQL store at `location` for the one person it holds (made on first use, with `newID`; `isNew`
    /// says so): PostgreSQL's migrations run first.
    public static func postgres(_ location: PostgresLocation, newID: String) throws -> (store: RecordStore, isNew: Bool) {
        let store = try PostgresStore.open(location)
        let person = try store.soloPerson(newID: newID)
        return (.postgres(store, person: person.id), person.created)
    }
}
