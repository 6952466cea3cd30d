import DoseCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO
public import Synchronization

/// A DoseTap store on PostgreSQL: a few connections kept open, every unit of work one transaction, the schema brought
/// up to date by `PostgresSchema` when it opens.
///
/// The store's API is synchronous like the SQLite store's: each call waits for its query on one of NIO's event loops,
/// so it must run off them (the CLI's thread, a blocking-work thread of the server).
public final class PostgresStore: Sendable {
    /// Where it lives.
    public let location: PostgresLocation
    private let configuration: PostgresConnection.Configuration
    private let idle = NIOLockedValueBox<[PostgresConnection]>([])
    private let nextID = NIOLockedValueBox(0)
    private let logger: Logger
    /// The tables a copy into SQLite holds, read from both schemas on first use (`storedTables`).
    let tables = NIOLockedValueBox<[StoredTable]?>(nil)
    /// The open night of each person as this process last committed it.
    let openNights = OpenNights()
    /// Each person's night actions that arrive while another commits go in one transaction with it.
    private let nightWrites = NIOLockedValueBox<[String: GroupCommit]>([:])
    /// Imports under way on this store's workspaces, so shutdown can stop them before they write anything back.
    public let imports = ImportStops()
    /// The store's first two people, as read with the migrations when it opened (nil: not read, or used already).
    let peopleAtOpening = NIOLockedValueBox<[String]?>(nil)
    /// How many times this store's rows were copied into an in-memory SQLite workspace (`PostgresSQLiteCopy`).
    let sqliteCopies = NIOLockedValueBox(0)

    /// How many times work on this store has copied rows into an in-memory SQLite database since it opened: what a
    /// path that speaks PostgreSQL itself must leave unchanged.
    public var sqliteCopiesMade: Int { sqliteCopies.withLockedValue { $0 } }

    /// The first key of every person's write lock (`pg_advisory_xact_lock(class, hashtext(person))`): "DOSE".
    static let personLockClass: Int32 = 0x444F_5345

    /// Connections kept open for reuse; more are opened when all are busy, and closed when returned past this count.
    static let keptConnections = 16
    /// How many times a transaction PostgreSQL aborted for a conflict with another is run again before answering busy.
    static let attempts = 8

    private init(location: PostgresLocation) {
        self.location = location
        let tls: PostgresConnection.Configuration.TLS =
            switch location.tls {
            case .disable: .disable
            case .prefer: (try? .prefer(.init(configuration: .makeClientConfiguration()))) ?? .disable
            case .require: (try? .require(.init(configuration: .makeClientConfiguration()))) ?? .disable
            }
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
            tls: tls)
        // Set in the startup message, so a connection costs no round trip for them. Never asynchronous commit: an
        // acknowledged dose is on disk before its answer goes out.
        configuration.options.additionalStartupParameters =
            [("synchronous_commit", "on"), ("TimeZone", "UTC")] + (location.schema.map { [("search_path", $0)] } ?? [])
        self.configuration = configuration
        var logger = Logger(label: "dosetap.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Opens the store: connects, checks the server, and applies the migrations it lacks. A server that cannot be
    /// reached or refuses the login is `storageUnavailable`, naming the URL without its password.
    public static func open(_ location: PostgresLocation) throws -> PostgresStore {
        let store = PostgresStore(location: location)
        try PostgresSchema.migrate(store)
        return store
    }

    /// The group commit of a person's night actions.
    func nightWrites(of person: String) -> GroupCommit {
        nightWrites.withLockedValue { groups in
            if let group = groups[person] { return group }
            let group = GroupCommit()
            groups[person] = group
            return group
        }
    }

    /// Adds a person's row if it is missing.
    public func addPerson(_ id: String) throws {
        try transaction { session in try session.execute("INSERT INTO people (id) VALUES (\(id)) ON CONFLICT (id) DO NOTHING") }
    }

    /// The one person of a store of one: made on first use, as a SQLite database is one person's. A store shared by
    /// several people needs the person named (`--person`).
    /// `newID` is the id a person made now gets; `created` says it was made now.
    public func soloPerson(newID: String) throws -> (id: String, created: Bool) {
        // Almost always the person is there: read with the migrations when the store opened, or one read, no lock.
        // A person found at opening and removed since by another process fails the command at its first write (the
        // rows would name a person who is gone), never writes under someone else.
        if let opened = peopleAtOpening.withLockedValue({ list in
            defer { list = nil }
            return list
        }), opened.count == 1 {
            return (opened[0], false)
        }
        let known = try withConnection { session in try session.rows("SELECT id FROM people ORDER BY id LIMIT 2").map { try $0.decode(String.self) } }
        if known.count == 1 { return (known[0], false) }
        return try transaction { session in
            // Two commands on a new store at once must make one person, not two.
            try session.execute("LOCK TABLE people IN SHARE ROW EXCLUSIVE MODE")
            let people = try session.rows("SELECT id FROM people ORDER BY id LIMIT 2").map { try $0.decode(String.self) }
            switch people.count {
            case 0:
                try session.execute("INSERT INTO people (id) VALUES (\(newID))")
                return (newID, true)
            case 1:
                return (people[0], false)
            default:
                throw DoseError.invalidInput(
                    field: "person", problem: "\(location.redacted) holds several people, and no person was named",
                    allowed: "--person EMAIL or --person ID, one of the people `dosetap person list` shows")
            }
        }
    }

    /// Closes every kept connection, waiting until each is closed.
    public func close() {
        let connections = idle.withLockedValue { list in
            defer { list = [] }
            return list
        }
        for connection in connections { Self.close(connection) }
    }

    deinit { close() }

    /// Closes a connection and waits: postgres-nio requires a connection to be closed before it is released.
    private static func close(_ connection: PostgresConnection) {
        try? (connection.close() as EventLoopFuture<Void>).wait()
    }

    /// Runs `body` in one transaction. A read is one consistent snapshot.
    ///
    /// A write for a person (`writingFor`) is what SQLite's single writer was, per person: it takes the person's lock
    /// first, then reads and writes at READ COMMITTED, so every statement sees what the writers before it committed and
    /// the writes of one person run one after another, never aborted for each other (several people write at once). Any
    /// other write is SERIALIZABLE. Either way a conflict PostgreSQL still reports (a unique key two writers raced for,
    /// a serialization failure) rolls the transaction back and runs it again from the start, never half-kept.
    ///
    /// Row-level security sees to it that the body reads and writes only the rows of `scope` (by default the person
    /// written for, else no person's): a query that forgot its `person_id` condition still finds no one else's row.
    ///
    /// `readCommitted` runs a write of one statement that needs no snapshot of its own (a counter's upsert) at READ
    /// COMMITTED, so two of them at once wait for each other instead of failing and running again.
    public func transaction<T>(
        readOnly: Bool = false, writingFor person: String? = nil, seeing scope: RowScope? = nil, readCommitted: Bool = false,
        _ body: (PostgresSession) throws -> T
    ) throws -> T {
        let scope = scope ?? person.map(RowScope.person) ?? .nobody
        var attempt = 0
        while true {
            attempt += 1
            let connection = try take()
            let session = PostgresSession(connection: connection, logger: logger)
            do {
                if readOnly {
                    // Waited for with the body's first read: a read cannot half-write anything.
                    session.send("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                } else if let person {
                    // Confirmed with the body's first wait: a connection runs its statements in the order sent, so
                    // nothing the body sends can run before the lock is held.
                    session.send("BEGIN ISOLATION LEVEL READ COMMITTED")
                    session.send("SELECT pg_advisory_xact_lock(\(Self.personLockClass), hashtext(\(person)))")
                } else if scope.scheduler || readCommitted {
                    // Claims skip the rows another instance holds (`FOR UPDATE SKIP LOCKED`) instead of failing on them.
                    session.send("BEGIN ISOLATION LEVEL READ COMMITTED")
                } else {
                    try session.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                }
                // SET LOCAL, with its values bound: it ends with the transaction, so a kept connection carries no one's
                // scope to its next user, and it runs before anything the body sends.
                session.send(
                    """
                    SELECT set_config('dosetap.person', \(scope.person ?? ""), true), set_config('dosetap.token', \(scope.tokenHash ?? ""), true),
                        set_config('dosetap.night', \(scope.night ?? ""), true), set_config('dosetap.scheduler', \(scope.scheduler ? "on" : ""), true),
                        set_config('dosetap.operator', \(scope.operator ? "on" : ""), true), set_config('dosetap.grantee', \(scope.grantee ?? ""), true)
                    """)
                let result = try body(session)
                if readOnly {
                    // Nothing to confirm: a read's answer is already in hand, and its COMMIT runs before whatever the
                    // connection's next user sends.
                    session.send("COMMIT")
                } else {
                    try session.execute("COMMIT")
                }
                giveBack(connection)
                return result
            } catch {
                // A connection cut mid-transaction (the database restarting, a proxy dropping it) can leave a statement
                // sent after the cut unanswered for ever: the clean-up waits a bounded time, and a connection that does
                // not answer is closed, never given back, so nothing (a shutdown included) waits on it.
                if session.abandon(within: Self.cleanUpWait), session.rollBack(within: Self.cleanUpWait) {
                    giveBack(connection)
                } else {
                    _ = connection.close() as EventLoopFuture<Void>
                }
                if Self.isConflict(error) {
                    if attempt < Self.attempts { continue }
                    throw DoseError.storageBusy
                }
                throw mapped(error)
            }
        }
    }

    /// Runs `body` on a connection outside any transaction (the migrations take their own lock).
    func withConnection<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try take()
        defer { giveBack(connection) }
        do { return try body(PostgresSession(connection: connection, logger: logger)) } catch { throw mapped(error) }
    }

    /// Told how long each wait for a connection took, in nanoseconds (`serve --metrics-port` reports it).
    public static let connectionWaitObserver = Mutex<(@Sendable (UInt64) -> Void)?>(nil)

    private func take() throws -> PostgresConnection {
        let started = DispatchTime.now().uptimeNanoseconds
        defer {
            if let observe = Self.connectionWaitObserver.withLock({ $0 }) { observe(DispatchTime.now().uptimeNanoseconds - started) }
        }
        while let connection = idle.withLockedValue({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = nextID.withLockedValue { value in
            value += 1
            return value
        }
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
            ).wait()
        } catch {
            throw mapped(error)
        }
        return connection
    }

    /// How long the clean-up of a failed transaction waits for the connection before closing it.
    static let cleanUpWait = DispatchTimeInterval.seconds(5)

    private func giveBack(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLockedValue { list in
            guard list.count < Self.keptConnections else { return false }
            list.append(connection)
            return true
        }
        if !kept { Self.close(connection) }
    }

    /// SQLSTATE 40001 (serialization failure), 40P01 (deadlock) and 23505 (a unique key two writers raced for): run again.
    static func isConflict(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return ["40001", "40P01", "23505"].contains(state)
    }

    /// A refusal stays what it is; a server that cannot be reached, refuses the login or went away is
    /// `storageUnavailable` with what PostgreSQL said, never the password.
    func mapped(_ error: any Error) -> any Error {
        if error is DoseError { return error }
        guard let psql = error as? PSQLError else {
            if error is IOError || error is ChannelError || error is NIOConnectionError {
                return DoseError.storageUnavailable(problem: "\(location.redacted) does not answer")
            }
            return error
        }
        if let state = psql.serverInfo?[.sqlState] {
            let message = psql.serverInfo?[.message] ?? "error \(state)"
            // Class 08 (connection), 28 (authorisation), 3D000 (no such database), 57P (the server shutting down).
            if state.hasPrefix("08") || state.hasPrefix("28") || state == "3D000" || state.hasPrefix("57P") {
                return DoseError.storageUnavailable(problem: "\(location.redacted): \(message)")
            }
            return PostgresFailure(state: state, message: message, detail: psql.serverInfo?[.detail])
        }
        return DoseError.storageUnavailable(problem: "\(location.redacted) does not answer")
    }
}

/// Whose rows a transaction sees and changes under row-level security (`PostgresSchema.v9RowSecurity`).
public struct RowScope: Sendable, Equatable {
    /// The person whose rows are seen (nil: no one's).
    public var person: String?
    /// A token's hash: whoever holds a device token, sign-in link or invitation may read that one row to learn whose it is.
    public var tokenHash: String?
    /// A night's id: an action link claims one, and its row may be read to learn whose link to check.
    public var night: String?
    /// Every person's reminder jobs (`reminder_jobs`), to claim what is due; nothing else of anyone's.
    public var scheduler = false
    /// What the operator's page reads across people (`PostgresSchema.v18Operators`): pending invitations, reminder
    /// jobs, mail and the operators' audit; never anyone's records.
    public var `operator` = false
    /// A grantee reading, besides their own rows, the nights of the people who share `view` or `report` with them
    /// (`PostgresSchema.v20GranteeReads`); always the acting person, who is also `person`.
    public var grantee: String?

    /// One person's rows.
    public static func person(_ id: String) -> RowScope { RowScope(person: id) }
    /// No person's rows: the service's own tables and the directory of people only.
    public static let nobody = RowScope()
    /// The reminder jobs of everyone, for the instance that claims them.
    public static let scheduler = RowScope(scheduler: true)
    /// The operator's page.
    public static let operatorPage = RowScope(operator: true)
    /// `person`'s own rows, and the nights of those who share `view` or `report` with them.
    public static func grantee(_ person: String) -> RowScope { RowScope(person: person, grantee: person) }
}

/// One connection's queries. A statement can be sent without waiting for it (`send`): postgres-nio runs a
/// connection's statements in the order they were sent, so the next statement that is waited for (`rows`, `execute`)
/// also waits for those before it, and throws the first of their errors. A waiting thread is woken once for several
/// statements instead of once each, which is most of what a statement costs a server here.
public final class PostgresSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Statements sent and not yet waited for, oldest first.
    private var unconfirmed: [EventLoopFuture<PostgresQueryResult>] = []

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Sends a statement without waiting; its rows come with `rows(of:)`, and its error with the next wait.
    @discardableResult
    func send(_ query: PostgresQuery) -> PendingRows {
        let future = connection.query(query, logger: logger)
        unconfirmed.append(future)
        return PendingRows(future: future)
    }

    /// Runs a statement that returns no rows.
    func execute(_ query: PostgresQuery) throws {
        _ = try rows(query)
    }

    /// Runs a query and returns its rows.
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try rows(of: send(query))
    }

    /// The rows of a statement sent before, once it and every statement sent before it have run.
    func rows(of pending: PendingRows) throws -> [PostgresRow] {
        let result = Result { try wait(for: pending.future) }
        try confirm()
        return try result.get().rows
    }

    /// Waits for every statement sent, and throws the first error among them.
    func confirm() throws {
        let sent = unconfirmed
        unconfirmed = []
        var first: (any Error)?
        for future in sent {
            do { _ = try wait(for: future) } catch { if first == nil { first = error } }
        }
        if let first { throw first }
    }

    /// A statement's result, or the connection's end: a statement sent on a connection just cut can stay unanswered for
    /// ever (postgres-nio drops a write to a closed channel without failing its query), so waiting for it alone could
    /// hold a request, or the server's shutdown, without end.
    func wait(for future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let result = NIOLockedValueBox<Result<PostgresQueryResult, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { outcome in
            result.withLockedValue { $0 = outcome }
            done.signal()
        }
        connection.closeFuture.whenComplete { _ in done.signal() }
        done.wait()
        // Closed first: a statement failing with the connection says so within moments; one left hanging is given up.
        if result.withLockedValue({ $0 }) == nil { _ = done.wait(timeout: .now() + .seconds(1)) }
        guard let outcome = result.withLockedValue({ $0 }) else { throw ChannelError.ioOnClosedChannel }
        return try outcome.get()
    }

    /// Forgets the statements sent (a rollback follows, which answers for all of them); false when one of them was not
    /// answered within `limit` (the connection is then of no further use).
    func abandon(within limit: DispatchTimeInterval) -> Bool {
        let sent = unconfirmed
        unconfirmed = []
        return sent.allSatisfy { Self.answered($0, within: limit) }
    }

    /// Rolls the transaction back; false when the connection did not answer within `limit`.
    func rollBack(within limit: DispatchTimeInterval) -> Bool {
        Self.answered(connection.query("ROLLBACK", logger: logger), within: limit)
    }

    /// Whether `future` completed (either way) within `limit`, waiting on this thread.
    static func answered<T>(_ future: EventLoopFuture<T>, within limit: DispatchTimeInterval) -> Bool {
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { _ in done.signal() }
        return done.wait(timeout: .now() + limit) == .success
    }
}

/// A statement sent and not yet waited for.
struct PendingRows {
    let future: EventLoopFuture<PostgresQueryResult>
}

/// An error PostgreSQL answered a statement with that no refusal explains (a broken constraint, a bug): its SQLSTATE and
/// message, never the statement's values.
public struct PostgresFailure: Error, CustomStringConvertible {
    public var state: String
    public var message: String
    public var detail: String?

    public var description: String { "PostgreSQL error \(state): \(message)" + (detail.map { " (\($0))" } ?? "") }
}
