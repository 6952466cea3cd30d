import DoseCore
public import DoseStore
public import Foundation

/// `dosetap store copy`: every record of one store into another that holds none, verified before it says "copied".
///
/// The move from a home SQLite file to a hosted PostgreSQL (SPEC §5.6), and back. The source is only read. The target
/// is filled in one transaction, read back, and compared table by table (rows and a SHA-256 of every value with its
/// type) with the source; on any failure it is left empty, and a SQLite file this made is removed.
public enum StoreCopy {
    /// A store named on the command line: a PostgreSQL URL or a SQLite file's path.
    public enum Address: Sendable, CustomStringConvertible {
        case sqlite(path: String)
        case postgres(PostgresLocation)

        /// Reads `text` as a `postgres://` URL, else as a file path.
        public init(_ text: String, field: String) throws {
            guard !text.isEmpty else {
                throw DoseError.invalidInput(field: field, problem: "it is empty", allowed: "a SQLite file's path or a postgres:// URL")
            }
            self = PostgresLocation.isPostgres(text) ? .postgres(try PostgresLocation(url: text)) : .sqlite(path: text)
        }

        /// The store, for messages: a path, or the URL without its password.
        public var description: String {
            switch self {
            case .sqlite(let path): path
            case .postgres(let location): location.redacted
            }
        }
    }

    /// What was copied: every table's rows and digest, the same on both sides, and how many people.
    public struct Report: Sendable {
        public var source: String
        public var target: String
        public var tables: [String: StoreContents.TableDigest]
        /// The people a copy between PostgreSQL stores took; nil for one person's records.
        public var people: Int?
        /// The person a copy into a shared store filled, as a message names them.
        public var person: String?
        public var rows: Int { tables.values.reduce(0) { $0 + $1.rows } }
    }

    /// Copies every record from `source` to `target`.
    ///
    /// - Between PostgreSQL stores, every person goes, with their shares; `person` is refused.
    /// - From PostgreSQL to a file, the one person, or `person` (an address or id) of several: the way home.
    /// - From a file to PostgreSQL, the store's one person (made with `newID` in a new store), or `person`: someone with
    ///   no records yet, or, for an address no one has, a new person with it made `now`. The way in.
    public static func copy(from source: Address, to target: Address, person: String? = nil, newID: String, now: Date) throws -> Report {
        if case .sqlite(let from) = source, case .sqlite(let to) = target,
            URL(fileURLWithPath: from).standardizedFileURL == URL(fileURLWithPath: to).standardizedFileURL
        {
            throw DoseError.invalidInput(field: "--to", problem: "it is the source itself", allowed: "another store")
        }
        switch (source, target) {
        case (.postgres(let from), .postgres(let to)):
            guard from.redacted != to.redacted else {
                throw DoseError.invalidInput(field: "--to", problem: "it is the source itself", allowed: "another store")
            }
            if let person {
                throw DoseError.invalidInput(
                    field: "--person", problem: "a copy between PostgreSQL stores takes every person, so none is named (not \(person.prefix(100)))",
                    allowed: "leave out --person; to take one person's records, copy them to a SQLite file")
            }
            return try copyEveryone(from: from, to: to)
        case (.sqlite, .sqlite):
            if person != nil {
                throw DoseError.invalidInput(
                    field: "--person", problem: "both stores are SQLite files, each one person's records, so there is no person to choose",
                    allowed: "leave out --person, or name a PostgreSQL store as --from or --to")
            }
        default: break
        }
        let contents = try read(source, person: person)
        let expected = try contents.digests()
        switch target {
        case .sqlite(let path):
            let created = !FileManager.default.fileExists(atPath: path)
            let database = try AppDatabase.open(path: path)
            do {
                try database.fill(with: contents)
                try verify(try database.contents(), against: expected, target: target) { try database.removeAllRecords() }
            } catch {
                if created { for suffix in ["", "-wal", "-shm", ".setup-lock"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
                throw error
            }
            return Report(source: source.description, target: target.description, tables: expected)
        case .postgres(let location):
            let store = try PostgresStore.open(location)
            defer { store.close() }
            let (arriving, made) = try arrivingPerson(person, in: store, newID: newID, now: now)
            // A store that serves others already has its link and push keys; a file's come along only into a store of one.
            let withService = try store.peopleCount() == 1
            let serviceTables = try store.serviceTableNames()
            let copied = withService ? expected : expected.filter { !serviceTables.contains($0.key) }
            do {
                try store.fill(arriving.id, with: contents, withService: withService)
                try verify(try store.contents(of: arriving.id), against: copied, target: target) {
                    try store.removeAllRecords(of: arriving.id, withService: withService)
                }
            } catch {
                if made, person != nil { _ = try? store.removePerson(arriving, at: now) }
                throw error
            }
            return Report(source: source.description, target: target.description, tables: copied, person: person.map { _ in arriving.shownName })
        }
    }

    /// Every person of one PostgreSQL store, with their shares and the service's rows, into another that holds none.
    private static func copyEveryone(from: PostgresLocation, to: PostgresLocation) throws -> Report {
        let source = try PostgresStore.open(from)
        defer { source.close() }
        let target = try PostgresStore.open(to)
        defer { target.close() }
        let tables = try source.copyEverything(to: target)
        return Report(source: from.redacted, target: to.redacted, tables: tables, people: tables["people"]?.rows ?? 0)
    }

    /// The person a file's records arrive as: the one a store of one holds (made now in a new store), or the one `named`,
    /// who must hold no records yet. An address no one here has makes a new person with it; `made` says one was made.
    private static func arrivingPerson(_ named: String?, in store: PostgresStore, newID: String, now: Date) throws -> (PersonRecord, made: Bool) {
        guard let named else {
            let (id, created) = try store.soloPerson(newID: newID)
            guard let person = try store.person(named: id) else { throw DoseError.storageBusy }
            return (person, created)
        }
        if let person = try store.person(named: named) { return (person, false) }
        guard named.contains("@") else {
            throw DoseError.invalidInput(
                field: "--person", problem: "\(store.location.redacted) has no person with the id '\(named.prefix(100))'",
                allowed: "the address or id of a person `dosetap person list` shows, or a new person's e-mail address")
        }
        let email = try EmailAddress(named, field: "--person")
        return (try store.addPerson(id: newID, email: email, name: nil, at: now), true)
    }

    /// The source's records: a SQLite file's (which must already exist: a mistyped path is not an empty store), or the
    /// records of one person of a PostgreSQL store, the one it holds or the one `person` names (for a file source,
    /// `person` names who the records become in the target). The source is only read.
    private static func read(_ source: Address, person: String?) throws -> StoreContents {
        switch source {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw DoseError.invalidInput(
                    field: "--from", problem: "there is no database at \(path)", allowed: "an existing DoseTap SQLite file or a postgres:// URL")
            }
            return try AppDatabase.open(path: path).contents()
        case .postgres(let location):
            let store = try PostgresStore.open(location)
            defer { store.close() }
            return try store.contents(of: try leavingPerson(person, of: store).id)
        }
    }

    /// The person whose records leave a PostgreSQL store for a file: the one `named`, or the store's only person.
    private static func leavingPerson(_ named: String?, of store: PostgresStore) throws -> PersonRecord {
        if let named {
            guard let person = try store.person(named: named) else {
                throw DoseError.invalidInput(
                    field: "--person", problem: "\(store.location.redacted) has no person '\(named.prefix(100))'",
                    allowed: "the address or id of a person `dosetap person list` shows")
            }
            return person
        }
        let people = try store.people()
        switch people.count {
        case 0:
            throw DoseError.invalidInput(
                field: "--from", problem: "\(store.location.redacted) holds no people, so there is nothing to copy", allowed: "a store with records")
        case 1:
            return people[0]
        default:
            throw DoseError.invalidInput(
                field: "--person", problem: "\(store.location.redacted) holds \(people.count) people, and a file holds one; no person was named",
                allowed: "--person EMAIL or --person ID (`dosetap person list` shows them), or a postgres:// URL as --to, which takes everyone")
        }
    }

    /// Compares what the target now holds with the source's digests; on a difference empties the target and says which
    /// tables differ.
    private static func verify(
        _ copied: StoreContents, against expected: [String: StoreContents.TableDigest], target: Address, emptyTarget: () throws -> Void
    ) throws {
        let found = try copied.digests()
        let differing = expected.keys.sorted().filter { found[$0] != expected[$0] }
        guard !differing.isEmpty else { return }
        try emptyTarget()
        throw DoseError.invalidFile(
            problem:
                "the copy in \(target) did not match the source (\(differing.joined(separator: ", "))), so it was emptied again; nothing was copied")
    }
}
