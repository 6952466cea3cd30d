import DoseCore
public import DoseStore
import Foundation

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

    /// What was copied: every table's rows and digest, the same on both sides.
    public struct Report: Sendable {
        public var source: String
        public var target: String
        public var tables: [String: StoreContents.TableDigest]
        public var rows: Int { tables.values.reduce(0) { $0 + $1.rows } }
    }

    /// Copies every record from `source` to `target`; `newID` names the person a new PostgreSQL store gets.
    public static func copy(from source: Address, to target: Address, newID: String) throws -> Report {
        if case .sqlite(let from) = source, case .sqlite(let to) = target,
            URL(fileURLWithPath: from).standardizedFileURL == URL(fileURLWithPath: to).standardizedFileURL
        {
            throw DoseError.invalidInput(field: "--to", problem: "it is the source itself", allowed: "another store")
        }
        if case .postgres(let from) = source, case .postgres(let to) = target, from.redacted == to.redacted {
            throw DoseError.invalidInput(field: "--to", problem: "it is the source itself", allowed: "another store")
        }
        let contents = try read(source)
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
        case .postgres(let location):
            let store = try PostgresStore.open(location)
            defer { store.close() }
            let person = try store.soloPerson(newID: newID).id
            try store.fill(person, with: contents)
            try verify(try store.contents(of: person), against: expected, target: target) { try store.removeAllRecords(of: person) }
        }
        return Report(source: source.description, target: target.description, tables: expected)
    }

    /// The source's records; a SQLite source must already exist (a mistyped path is not an empty store).
    private static func read(_ source: Address) throws -> StoreContents {
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
            return try store.contents(of: try store.soloPerson(newID: UUID().uuidString.lowercased()).id)
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
