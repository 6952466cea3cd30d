import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import DoseStore

/// One scripted stretch of nights, run through DoseApp's ledger on a store, written down step by step: every
/// refusal's code and message, every outcome and status. Two stores that keep the same rules write the same transcript.
enum NightScript {
    static let dose1 = StoreFixture.dose1

    /// Runs the script on `ledger` and returns its transcript.
    static func transcript(_ ledger: NightLedger, settings book: SettingsBook) -> [String] {
        let clock = TestClock(dose1.addingTimeInterval(-3600))
        var lines: [String] = []
        func at(_ minutes: Double) -> Date { StoreFixture.minutes(minutes) }
        /// Writes down what `body` says at `minutes`, or how it was refused.
        func note(_ label: String, at minutes: Double, _ body: () throws -> String) {
            clock.set(at(minutes))
            do {
                lines.append("\(label): " + (try body()))
            } catch let error as DoseError {
                lines.append("\(label): refused \(error.code.wire) \(error.message) \(error.details.sorted { $0.key < $1.key })")
            } catch let answered as AlreadyAnswered {
                lines.append("\(label): already answered \(answered.response)")
            } catch {
                lines.append("\(label): failed \(error)")
            }
        }
        @discardableResult
        func step(_ label: String, _ minutes: Double, _ kind: NightAction.Kind, confirm: Set<ConfirmKind> = [], key: String? = nil) -> ActionOutcome?
        {
            let idempotency = key.map { key in
                IdempotentRequest(device: "phone", key: key, requestHash: "hash-\(label)") { outcome in
                    (200, "\(outcome.decision.recorded.map(\.kind))")
                }
            }
            var result: ActionOutcome?
            note(label, at: minutes) {
                let outcome = try ledger.perform(
                    NightAction(kind, confirmations: confirm), clock: clock.store, idempotency: idempotency, surface: .cli)
                result = outcome
                return "recorded \(outcome.decision.recorded.map { "\($0.kind) \($0.id)" }) removed \(outcome.decision.removed.map(\.id))"
                    + " closure \(String(describing: outcome.decision.closure)) closedBefore \(outcome.closedBefore) status \(outcome.status)"
            }
            return result
        }
        func correct(_ label: String, _ minutes: Double, _ body: @escaping (StoreClock) throws -> EventEdit) {
            note(label, at: minutes) {
                let edit = try body(clock.store)
                return "before \(edit.before) after \(String(describing: edit.after)) reflagged \(edit.reflagged) night \(edit.session)"
            }
        }
        func status(_ label: String, _ minutes: Double) {
            note(label, at: minutes) {
                let snapshot = try ledger.status(clock: clock.store)
                return "status \(snapshot.status) session \(String(describing: snapshot.session))"
            }
        }
        func reminders(_ label: String, _ minutes: Double) {
            note(label, at: minutes) {
                let peek = try ledger.peekDueReminders(clock: clock.store)
                let due = try ledger.takeDueReminders(clock: clock.store)
                return "peek \(peek.due.fire.map(\.logKey)) settles \(peek.settles) take \(due.fire.map(\.logKey)) missed \(due.missed.map(\.logKey))"
            }
        }
        func setting(_ label: String, _ changes: [(key: String, value: String)], reason: String? = nil) {
            note(label, at: -60) {
                let updated = try book.update(changes, reason: reason, clock: clock.store)
                return "settings \(updated) read back \(try book.current(machineTimeZoneID: clock.zone))"
            }
        }
        setting("cooldown by label", [("cooldown.Brief Wake", "30"), ("undo_window_seconds", "10")], reason: "test")
        setting("a bad value among good ones", [("max_snoozes", "1"), ("target_interval", "200")])
        setting("a key that does not exist", [("no_such_key", "1")])
        setting("the snooze limit", [("max_snoozes", "2")])
        status("before Dose 1", -30)
        step("Dose 2 first", -10, .dose2)
        step("Dose 1", 0, .dose1, key: "k1")
        step("Dose 1 again, same key", 1, .dose1, key: "k1")
        step("Dose 1 again", 5, .dose1)
        let bathroom = step("bathroom", 30, .log(event: "bathroom"))?.decision.event?.id ?? EventID(rawValue: "none")
        step("bathroom double tap", 30.5, .log(event: "Bathroom"))
        step("snooze before the window", 100, .snooze)
        step("Dose 2 at 149", 149, .dose2)
        status("at 149.5", 149.5)
        reminders("reminders at 150", 150)
        reminders("reminders again at 150", 150)
        step("snooze at 150", 150, .snooze)
        step("undo the snooze", 150.05, .undo)
        let dose2 = step("Dose 2 at 160", 160, .dose2)?.decision.event?.id ?? EventID(rawValue: "none")
        step("Dose 2 again", 161, .dose2)
        step("check-in same as usual, none before", 200, .checkIn(sameAsUsualCheckIn))
        step("wake", 200, .wake)
        var answers = MorningCheckIn()
        answers.environment = SleepEnvironment()
        answers.environment?.sleepAids = [.eyeMask]
        step("check-in", 201, .checkIn(answers))
        status("after the check-in", 210)
        correct("move the bathroom trip, with a note", 220) {
            try ledger.editEvent(bathroom, occurredAt: at(40), note: .some("back to sleep"), clock: $0)
        }
        correct("move Dose 2 before the window", 221) { try ledger.editEvent(dose2, occurredAt: at(140), note: nil, clock: $0) }
        correct("move Dose 2 within the window", 222) { try ledger.editEvent(dose2, occurredAt: at(170), note: nil, clock: $0) }
        correct("delete the bathroom trip", 223) { try ledger.deleteEvent(bathroom, clock: $0) }
        correct("delete it again", 224) { try ledger.deleteEvent(bathroom, clock: $0) }
        correct("an edit that changes nothing", 225) { try ledger.editEvent(dose2, occurredAt: nil, note: nil, clock: $0) }
        step("Dose 1 less than 8 hours after", 400, .dose1)
        step("Dose 1 the next night", 24 * 60, .dose1)
        step("skip", 24 * 60 + 200, .skip(reason: "slept through"))
        step("check-in same as usual", 24 * 60 + 210, .checkIn(sameAsUsualCheckIn))
        step("Dose 1 on the third night", 48 * 60, .dose1)
        status("past the third night's cutoff", 48 * 60 + 14 * 60)
        step("a check-in for the expired night", 48 * 60 + 14 * 60 + 1, .checkIn(MorningCheckIn()))
        return lines
    }

    static var sameAsUsualCheckIn: MorningCheckIn {
        var answers = MorningCheckIn()
        answers.environment = SleepEnvironment()
        answers.environment?.sameAsUsual = true
        return answers
    }
}

@Suite("The night on both stores: one script, the same transcript")
struct NightRepositoryTests {
    /// The script's facts on SQLite, checked one by one, so the comparison below compares against something right.
    @Test("on SQLite the script keeps the rules: the boundaries, the refusals, one answer per key, the reminders once")
    func sqliteTranscript() throws {
        let database = try AppDatabase.inMemory()
        let lines = NightScript.transcript(database.ledger, settings: database.settingsBook)
        func line(_ label: String) -> String { lines.first { $0.hasPrefix(label + ":") } ?? "missing \(label)" }
        #expect(line("cooldown by label").contains("cooldownOverrides: [\"wake_temp\": 30]"), "\(line("cooldown by label"))")
        #expect(line("a bad value among good ones").contains("refused 400_INVALID_INPUT"))
        #expect(line("a key that does not exist").contains("refused 400_INVALID_INPUT"))
        #expect(line("Dose 2 first").contains("refused 422_DOSE1_REQUIRED"))
        #expect(line("Dose 1").contains("recorded [\"dose1"))
        #expect(line("Dose 1 again, same key").contains("already answered"))
        #expect(line("Dose 1 again").contains("refused 409_ALREADY_TAKEN"))
        #expect(line("bathroom double tap").contains("refused 429_RATE_LIMIT"))
        #expect(line("snooze before the window").contains("refused 422_SNOOZE_UNAVAILABLE"))
        #expect(line("Dose 2 at 149").contains("refused 422_WINDOW_NOT_OPEN"))
        #expect(line("reminders at 150").contains("take [\"window_open@"))
        #expect(line("reminders again at 150").contains("take [] missed []"))
        #expect(line("snooze at 150").contains("recorded [\"snooze"))
        #expect(line("undo the snooze").contains("removed [00000000"), "\(line("undo the snooze"))")
        #expect(line("Dose 2 at 160").contains("recorded [\"dose2"))
        #expect(line("Dose 2 again").contains("refused 409_ALREADY_TAKEN"))
        #expect(line("check-in same as usual, none before").contains("refused 400_INVALID_INPUT"))
        #expect(line("check-in").contains("recorded [\"checkIn"))
        #expect(line("move the bathroom trip, with a note").contains("back to sleep"))
        #expect(line("delete the bathroom trip").contains("after nil"))
        #expect(line("delete it again").contains("refused 404_NOT_FOUND"))
        #expect(line("an edit that changes nothing").contains("refused 400_INVALID_INPUT"))
        #expect(line("Dose 1 less than 8 hours after").contains("refused 409_RECENT_DOSE"))
        #expect(line("Dose 1 the next night").contains("recorded [\"dose1"))
        #expect(line("check-in same as usual").contains("recorded [\"checkIn"))
        #expect(line("past the third night's cutoff").contains("session nil"))
        #expect(!lines.contains { $0.contains("failed") }, "\(lines.filter { $0.contains("failed") })")
    }

    @Test(
        "on PostgreSQL every refusal, outcome, status and reminder is the same as on SQLite, and the store holds the same nights",
        .needsPostgres)
    func postgresTranscriptMatches() throws {
        let database = try AppDatabase.inMemory()
        let sqlite = NightScript.transcript(database.ledger, settings: database.settingsBook)
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let postgres = NightScript.transcript(
            NightLedger(repository: PostgresNightRepository(store: store, person: "local")),
            settings: SettingsBook(repository: PostgresSettingsRepository(store: store, person: "local")))
        #expect(postgres.count == sqlite.count)
        for (index, (expected, actual)) in zip(sqlite, postgres).enumerated() {
            #expect(actual == expected, "step \(index + 1)")
        }
    }

    @Test(
        "on PostgreSQL a refusal changes nothing, and 8 Dose 2 taps at once, each on its own connection, record one",
        .needsPostgres)
    func postgresRacesAndRefusals() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let ledger = NightLedger(repository: PostgresNightRepository(store: store, person: "local"))
        let clock = TestClock(StoreFixture.dose1)
        _ = try ledger.perform(NightAction(.dose1), clock: clock.store)
        let before = try PostgresTestDatabase.snapshot(store)
        clock.set(StoreFixture.minutes(149))
        #expect(StoreFixture.refusal { _ = try ledger.perform(NightAction(.dose2), clock: clock.store) }?.code == .windowNotOpen)
        #expect(try PostgresTestDatabase.snapshot(store) == before, "a refusal wrote nothing")

        // Eight Dose 2 taps at the same instant, each in its own transaction on its own connection: SERIALIZABLE lets
        // exactly one act; the others see it and are refused as already taken (or run again after a conflict).
        clock.set(StoreFixture.minutes(160))
        let results = Results()
        Self.atOnce(8) {
            do {
                _ = try ledger.perform(NightAction(.dose2), clock: clock.store)
                results.add("recorded")
            } catch let error as DoseError { results.add(error.code.wire) } catch { results.add("\(error)") }
        }
        #expect(results.all.filter { $0 == "recorded" }.count == 1, "\(results.all)")
        #expect(results.all.filter { $0 == ErrorCode.alreadyTaken.wire }.count == 7, "\(results.all)")
        let night = try #require(try ledger.status(clock: clock.store).session)
        #expect(night.events.filter { $0.kind == .dose2 }.count == 1)
    }

    @Test(
        "PostgreSQL's migrations run once however often and however many open the store; instants keep their millisecond",
        .needsPostgres)
    func postgresMigrationsAndInstants() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        Self.atOnce(4) { _ = try? PostgresStore.open(store.location) }
        let applied = try store.transaction(readOnly: true) { session in
            try session.rows("SELECT name FROM dosetap_migrations ORDER BY name").map { try $0.decode(String.self) }
        }
        #expect(applied == PostgresSchema.migrations.map(\.name).sorted(), "each migration once (ordered by name: v10 before v2)")
        // Set in each connection's startup message, over whatever the server's defaults are.
        let settings = try store.transaction(readOnly: true) { session in
            try session.rows("SELECT current_setting('synchronous_commit'), current_setting('TimeZone'), current_schema()").map {
                try $0.decode((String, String, String).self)
            }
        }
        #expect(settings.first?.0 == "on" && settings.first?.1 == "UTC" && settings.first?.2 == store.location.schema, "\(settings)")
        let ledger = NightLedger(repository: PostgresNightRepository(store: store, person: "local"))
        let odd = StoreFixture.dose1.addingTimeInterval(0.999)
        let clock = TestClock(odd)
        let outcome = try ledger.perform(NightAction(.dose1), clock: clock.store)
        let stored = try #require(try ledger.status(clock: clock.store).session?.events.first)
        #expect(stored == outcome.decision.recorded.first, "the event reads back exactly as it was decided")
        #expect(stored.occurredAt == ISO8601.wholeMilliseconds(odd))
    }

    /// The PostgreSQL migrations are frozen like SQLite's: the fixture is the schema they build (tables, columns,
    /// constraints, indexes, functions, triggers, sequences), with the test's own schema name folded out.
    @Test(
        "a new PostgreSQL store has exactly the schema the shipped migrations made",
        .needsPostgres)
    func postgresFrozenSchema() throws {
        let store = try PostgresTestDatabase.freshStore()
        defer { store.close() }
        let schema = try #require(store.location.schema)
        let lines = try store.transaction(readOnly: true) { session in
            var lines: [String] = []
            let queries = [
                """
                SELECT format('column %s.%s %s%s%s', table_name, column_name, data_type, CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END,
                    COALESCE(' DEFAULT ' || column_default, '')) FROM information_schema.columns WHERE table_schema = current_schema()
                ORDER BY table_name, ordinal_position
                """,
                """
                SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
                WHERE connamespace = current_schema()::regnamespace ORDER BY conrelid::regclass::text, conname
                """,
                "SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname",
                """
                SELECT format('function %s', pg_get_functiondef(p.oid)) FROM pg_proc p WHERE pronamespace = current_schema()::regnamespace
                ORDER BY proname
                """,
                """
                SELECT format('trigger %s', pg_get_triggerdef(t.oid)) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal ORDER BY t.tgname
                """,
                """
                SELECT format('sequence %s', sequencename) FROM pg_sequences WHERE schemaname = current_schema() ORDER BY sequencename
                """,
                """
                SELECT format('row security %s enabled %s forced %s', relname, relrowsecurity, relforcerowsecurity) FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' ORDER BY relname
                """,
                """
                SELECT format('policy %s %s %s %s using %s check %s', tablename, policyname, permissive, cmd, qual, with_check) FROM pg_policies
                WHERE schemaname = current_schema() ORDER BY tablename, policyname
                """,
            ]
            for query in queries {
                for row in try session.rows(PostgresQuery(unsafeSQL: query)) {
                    lines.append(try row.decode(String.self).split(whereSeparator: \.isWhitespace).joined(separator: " "))
                }
            }
            return lines
        }
        let text = lines.joined(separator: "\n").replacingOccurrences(of: schema + ".", with: "") + "\n"
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/postgres-schema-v\(PostgresSchema.migrations.count).txt")
        // A new migration changes the schema on purpose: DOSETAP_RECORD_SCHEMA=1 writes the fixture, to be read in review.
        if ProcessInfo.processInfo.environment["DOSETAP_RECORD_SCHEMA"] == "1" { try text.write(to: fixture, atomically: true, encoding: .utf8) }
        let expected = (try? String(contentsOf: fixture, encoding: .utf8)) ?? ""
        #expect(text == expected, "\(text)")
    }

    /// Runs `body` on `count` threads of their own, released together (a thread pool on two cores would run two).
    static func atOnce(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread {
                ready.signal()
                go.wait()
                body()
                done.leave()
            }.start()
        }
        for _ in 0..<count { ready.wait() }
        for _ in 0..<count { go.signal() }
        done.wait()
    }

    @Test("a PostgreSQL URL is read strictly, and a refusal names what is wrong without the password")
    func locations() throws {
        let good = try PostgresLocation(url: "postgres://dose%40tap:s3cret@db.example:6543/nights?sslmode=require")
        #expect(good.username == "dose@tap" && good.password == "s3cret" && good.host == "db.example" && good.port == 6543)
        #expect(good.database == "nights" && good.tls == .require && good.redacted == "postgres://dose@tap:***@db.example:6543/nights")
        #expect(try PostgresLocation(url: "postgresql://me@localhost/x").tls == .disable, "loopback needs no TLS")
        for bad in [
            "mysql://me@host/db", "postgres://host/db", "postgres://me@/db", "postgres://me@host", "postgres://me@host/",
            "postgres://me:pw@host:70000/db", "postgres://me@host/db?sslmode=maybe", "postgres://me@host/db?search_path=Bad-Name",
            "postgres://me:pw@host/db?password=x",
        ] {
            let error = StoreFixture.refusal { _ = try PostgresLocation(url: bad) }
            #expect(error?.code == .invalidInput, "\(bad)")
            #expect(error.map { !$0.message.contains("pw") } ?? false, "\(bad): \(error?.message ?? "")")
        }
    }

    @Test(
        "a server that is not there, or refuses the login, is 503 storage unavailable with a retry hint and no password",
        .needsPostgres)
    func unreachable() throws {
        var nobody = try PostgresLocation(url: "postgres://dosetap:hunter2@127.0.0.1:1/nights")
        nobody.tls = .disable
        let down = StoreFixture.refusal { _ = try PostgresStore.open(nobody) }
        #expect(down?.code == .storageBusy && down?.retryAfterSeconds == 5, "\(String(describing: down))")
        #expect(down.map { $0.message.contains("127.0.0.1:1") && !$0.message.contains("hunter2") } ?? false, "\(down?.message ?? "")")
        var wrongDatabase = try PostgresLocation(url: try #require(PostgresTestDatabase.url))
        wrongDatabase.database = "no_such_database_\(UUID().uuidString.prefix(8).lowercased())"
        let missing = StoreFixture.refusal { _ = try PostgresStore.open(wrongDatabase) }
        #expect(missing?.code == .storageBusy, "\(String(describing: missing))")
        #expect(missing.map { $0.message.contains("does not exist") } ?? false, "\(missing?.message ?? "")")
    }

    @Test("in CI the PostgreSQL suites run: .ci/run sets DOSETAP_TEST_POSTGRES_URL")
    func ciRunsPostgres() {
        if ProcessInfo.processInfo.environment["CI"] != nil { #expect(PostgresTestDatabase.isAvailable, "\(PostgresTestDatabase.skipped)") }
    }
}

/// What concurrent attempts ended with.
final class Results: Sendable {
    private let state = Mutex<[String]>([])
    func add(_ result: String) { state.withLock { $0.append(result) } }
    var all: [String] { state.withLock { $0 } }
}
