import DoseApp
import Foundation
import Testing

/// Reads a PostgreSQL schema with `psql` (Debian's client, not DoseTap's code): what a removal left behind.
enum PSQL {
    /// The base URL and schema of a fresh store of a test's own.
    static func freshStore() throws -> (url: String, base: String, schema: String) {
        let base = try #require(PostgresCLITests.url)
        let schema = "people_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return (base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)", base, schema)
    }

    /// A fresh store as a hosted one is set up: its owner applies the migrations and grants the serving role, and
    /// `url` is the role's, under row-level security; `base` is the superuser's, for psql.
    static func grantedStore() throws -> (url: String, base: String, schema: String) {
        let (owner, base, schema) = try freshStore()
        let granted = try CLI.inProcess(["store", "grant", servingRole, "--database", owner, "--json"])
        guard granted.status == 0 else { throw CLIHarnessFailure("store grant: \(granted.stdout) \(granted.stderr)") }
        return (served(owner), base, schema)
    }

    /// The role hosted stores are served as (`.ci/run` creates it).
    static let servingRole = ProcessInfo.processInfo.environment["DOSETAP_TEST_POSTGRES_ROLE"] ?? "dosetap_app"

    /// `url` with the serving role as its user.
    static func served(_ url: String) -> String {
        var components = URLComponents(string: url)
        components?.user = servingRole
        components?.password = nil
        return components?.string ?? url
    }

    /// Runs one query in `schema` and returns its rows, `|`-separated.
    static func query(_ sql: String, base: String, schema: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", base, "-c", "SET search_path TO \(schema); \(sql)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIHarnessFailure("psql exited \(process.terminationStatus) for: \(sql)") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty && $0 != "SET" }
    }

    /// Each table of the schema with the rows whose JSON form contains any of `needles`, or whose `person_id` is `person`.
    static func rowsMentioning(_ needles: [String], person: String, base: String, schema: String) throws -> [String: Int] {
        let condition = (needles.map { "to_jsonb(t)::text LIKE '%\($0)%'" } + ["to_jsonb(t)->>'person_id' = '\(person)'"]).joined(separator: " OR ")
        let rows = try query(
            """
            SELECT c.relname, (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I t WHERE \(condition.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "%", with: "%%"))', c.relname), false, true, '')))[1]::text
            FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY 1
            """, base: base, schema: schema)
        var found: [String: Int] = [:]
        for row in rows {
            let parts = row.split(separator: "|")
            if parts.count == 2, let count = Int(parts[1]), count > 0 { found[String(parts[0])] = count }
        }
        return found
    }
}

struct CLIHarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("People of a shared PostgreSQL store: added, chosen with --person, removed with every row", .serialized)
struct PeopleCLITests {
    static let enabled = ConditionTrait.enabled(if: PostgresCLITests.url != nil, Comment(rawValue: PostgresCLITests.skipped))

    static func run(_ arguments: [String], _ store: String, now: String? = nil) throws -> Run {
        try CLI.inProcess(
            arguments + ["--json", "--database", store, "--tz", "America/New_York"]
                + (now.map { ["--now", CLI.instant($0, zone: "America/New_York")] } ?? []))
    }

    /// A full night and its records for `person`, every note carrying `canary`.
    static func night(_ person: String, canary: String, _ store: String) throws {
        let steps: [([String], String)] = [
            (
                [
                    "setup", "--bedtime", "22:30", "--wake-time", "07:00", "--product", "xywav", "--dose1", "2.25", "--dose2", "2.25",
                    "--accept-disclaimer",
                ], "2026-11-20 12:00"
            ),
            (["settings", "set", "escalation_contact", "https://ntfy.example.org/\(canary)-topic"], "2026-11-21 12:00"),
            (["dose1", "--note", "\(canary)-dose1"], "2026-11-21 22:30"),
            (["med", "log", "modafinil:200mg", "--note", "\(canary)-med"], "2026-11-21 22:31"),
            (["log", "bathroom", "--note", "\(canary)-event"], "2026-11-21 23:00"),
            (["dose2", "--note", "\(canary)-dose2"], "2026-11-22 01:35"),
            (["checkin", "--notes", "\(canary)-checkin"], "2026-11-22 07:00"),
            (["supply", "log", "--bottles", "1", "--reason", "\(canary)-pharmacy"], "2026-11-22 08:00"),
            (["device", "add", "\(canary)-phone"], "2026-11-22 08:00"),
        ]
        for (arguments, now) in steps {
            let result = try run(arguments + ["--person", person], store, now: now)
            #expect(result.status == 0, "\(arguments): \(result.stdout) \(result.stderr)")
        }
    }

    @Test("person add --operator and person operator mark who opens /operator; person list shows them; an unknown person is named", enabled)
    func operators() throws {
        let store = try PSQL.grantedStore().url
        let added = try Self.run(["person", "add", "op@example.org", "--operator"], store)
        #expect(added.status == 0 && added.json["email"] as? String == "op@example.org", "\(added.stdout)")
        _ = try Self.run(["person", "add", "pat@example.org"], store)
        func operators() throws -> [String] {
            let listed = try CLI.inProcess(["person", "list", "--json", "--database", store])
            let people = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            return people.filter { $0["operator"] as? Bool == true }.compactMap { $0["email"] as? String }
        }
        #expect(try operators() == ["op@example.org"])
        #expect(try Self.run(["person", "operator", "pat@example.org"], store).json["operator"] as? Bool == true)
        #expect(try operators() == ["op@example.org", "pat@example.org"])
        let off = try Self.run(["person", "operator", "op@example.org", "--off"], store)
        #expect(off.status == 0 && off.json["operator"] as? Bool == false)
        #expect(try operators() == ["pat@example.org"])
        let words = try CLI.inProcess(["person", "list", "--database", store])
        #expect(
            words.stdout.contains("pat@example.org") && words.stdout.split(separator: "\n").filter { $0.hasSuffix("operator") }.count == 1,
            "\(words.stdout)")
        let unknown = try Self.run(["person", "operator", "nobody@example.org"], store)
        #expect(unknown.status == 64 && unknown.stdout.contains("nobody@example.org"), "\(unknown.stdout)")
    }

    @Test("two people, each night their own; without --person a store of several is refused by name; removal takes every row and no other's", enabled)
    func twoPeople() throws {
        // Set up as a hosted store is: its owner brings the schema up and grants the serving role, and every command
        // after runs as that role, under row-level security; psql, as the superuser, sees every row to check.
        let (ownerURL, base, schema) = try PSQL.freshStore()
        let granted = try Self.run(["store", "grant", PSQL.servingRole], ownerURL)
        #expect(granted.status == 0 && granted.json["granted"] as? Bool == true, "\(granted.stdout) \(granted.stderr)")
        let superuser = try #require(URLComponents(string: base)?.user)
        let refused = try Self.run(["store", "grant", superuser], ownerURL)
        #expect(refused.status == 64 && refused.stdout.contains("superuser"), "\(refused.stdout)")
        let store = PSQL.served(ownerURL)
        let alice = try Self.run(["person", "add", "Alice@Example.ORG", "--name", "Alice", "--time-zone", "America/Chicago"], store)
        #expect(
            alice.status == 0 && alice.json["email"] as? String == "alice@example.org" && alice.json["name"] as? String == "Alice", "\(alice.stdout)")
        let bob = try Self.run(["person", "add", "bob@example.org"], store)
        let aliceID = try #require(alice.json["id"] as? String)
        #expect(bob.status == 0 && bob.json["id"] as? String != aliceID)

        try Self.night("ALICE@example.org", canary: "canary-alice", store)
        try Self.night("bob@example.org", canary: "canary-bob", store)

        // Each person's night is theirs; the address is matched in any case; Alice's zone is her own.
        let aliceNight = try Self.run(["session", "show", "2026-11-21", "--person", "alice@example.org"], store, now: "2026-11-22 09:00")
        #expect(aliceNight.stdout.contains("canary-alice-dose1") && !aliceNight.stdout.contains("canary-bob"), "\(aliceNight.stdout)")
        let settings = try Self.run(["settings", "list", "--person", "alice@example.org"], store)
        #expect(settings.stdout.contains("America/Chicago"), "\(settings.stdout)")

        let unnamed = try Self.run(["status"], store)
        #expect(unnamed.status == 64 && unnamed.errorCode == "400_INVALID_INPUT")
        #expect(((unnamed.json["error"] as? [String: Any])?["message"] as? String)?.contains("--person EMAIL") == true, "\(unnamed.stdout)")
        let stranger = try Self.run(["status", "--person", "carol@example.org"], store)
        #expect(stranger.status == 64 && stranger.stdout.contains("has no person 'carol@example.org'"), "\(stranger.stdout)")

        let people = try Self.run(["person", "list"], store)
        let listed = (try JSONSerialization.jsonObject(with: Data(people.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["email"] as? String }
        #expect(listed == ["alice@example.org", "bob@example.org"])

        // Her night's id too: the tables of a night (summaries, reminder log, acknowledgements) carry it, not her id.
        let aliceNights = try Self.run(["session", "show", "2026-11-21", "--person", "alice@example.org"], store, now: "2026-11-22 09:00").stdout
        let aliceSession = try #require(
            (try JSONSerialization.jsonObject(with: Data(aliceNights.utf8)) as? [[String: Any]])?.first?["session_id"] as? String)
        let aliceNeedles = ["canary-alice", "alice@example.org", aliceSession]
        let before = try PSQL.rowsMentioning(aliceNeedles, person: aliceID, base: base, schema: schema)
        #expect(before.count >= 10, "Alice's rows are spread over many tables before: \(before)")
        let bobBefore = try PSQL.rowsMentioning(["canary-bob"], person: "none", base: base, schema: schema)

        // A wrong or missing phrase removes nothing.
        for confirm in [[], ["--confirm", "yes"], ["--confirm", "Delete bob@example.org and all their data"]] {
            let refused = try Self.run(["person", "remove", "alice@example.org"] + confirm, store)
            #expect(refused.status == 64 && refused.errorCode == "400_INVALID_INPUT", "\(refused.stdout)")
        }
        #expect(try PSQL.rowsMentioning(aliceNeedles, person: aliceID, base: base, schema: schema) == before)

        let removed = try Self.run(["person", "remove", "alice@example.org", "--confirm", "Delete alice@example.org and all their data"], store)
        #expect(removed.status == 0 && removed.json["removed"] as? Bool == true && removed.json["remaining_rows"] as? Int == 0, "\(removed.stdout)")
        // Every row the scan found, but the person's own row in `people`, which the count of theirs does not include.
        // The operators' audit names her too; it is not hers, and keeps the entries, with her address taken out of them.
        let hers = before.filter { $0.key != "operator_audit" }
        #expect(before["operator_audit"] ?? 0 > 0, "her addition and sign-in link are audited: \(before)")
        #expect(removed.json["deleted_rows"] as? Int == hers.values.reduce(0, +) - 1, "\(removed.stdout) \(before)")
        let after = try PSQL.rowsMentioning(aliceNeedles, person: aliceID, base: base, schema: schema)
        #expect(after.isEmpty, "rows of Alice's remain: \(after)")
        #expect(try PSQL.rowsMentioning(["canary-bob"], person: "none", base: base, schema: schema) == bobBefore, "Bob's rows are untouched")

        // With one person left, commands need no --person again; Alice is no one now.
        let bobStatus = try Self.run(["session", "show", "2026-11-21"], store, now: "2026-11-22 09:00")
        #expect(bobStatus.status == 0 && bobStatus.stdout.contains("canary-bob-dose1"), "\(bobStatus.stdout)")
        #expect(try Self.run(["status", "--person", "alice@example.org"], store).status == 64)
    }

    @Test(
        "serve refuses a superuser and the tables' owner, naming store grant and --allow-owner-role; with the flag it serves and warns; the granted role serves",
        enabled)
    func servingRole() async throws {
        // The test server's superuser, and a role that owns the schema and so the tables its migrations make.
        let (superuserStore, base, _) = try PSQL.freshStore()
        let owner = "owner_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let ownedSchema = "owned_" + owner
        let database = "EXECUTE format('%s ON DATABASE %I %s \(owner)', $1, current_database(), $2)"
        _ = try PSQL.query(
            """
            CREATE ROLE \(owner) LOGIN; CREATE SCHEMA \(ownedSchema) AUTHORIZATION \(owner);
            DO $$ BEGIN \(database.replacingOccurrences(of: "$1", with: "'GRANT CREATE'").replacingOccurrences(of: "$2", with: "'TO'")); END $$
            """, base: base, schema: "public")
        defer {
            _ = try? PSQL.query(
                """
                DROP SCHEMA \(ownedSchema) CASCADE;
                DO $$ BEGIN \(database.replacingOccurrences(of: "$1", with: "'REVOKE CREATE'").replacingOccurrences(of: "$2", with: "'FROM'")); END $$;
                DROP ROLE \(owner)
                """, base: base, schema: "public")
        }
        var ownerURL = try #require(URLComponents(string: superuserStore))
        ownerURL.user = owner
        ownerURL.queryItems = [URLQueryItem(name: "search_path", value: ownedSchema)]
        let ownerStore = try #require(ownerURL.string)
        for (store, what) in [(superuserStore, "is a superuser or has BYPASSRLS"), (ownerStore, "owns the store's tables")] {
            _ = try Self.run(["person", "add", "alice@example.org"], store)
            let refused = try CLI.inProcess(["serve", "--port", "0", "--json", "--database", store])
            #expect(refused.status == 64 && refused.errorCode == "400_INVALID_INPUT", "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.contains(what) && refused.stdout.contains("store grant") && refused.stdout.contains("--allow-owner-role"))
        }
        let anyway = try Server(
            try CLI(), now: "2026-11-21 21:00", arguments: ["--allow-owner-role"], variables: ["DOSETAP_DATABASE_URL": ownerStore])
        #expect(anyway.port > 0)
        #expect(try await anyway.terminate(within: .seconds(20)) == 0)
        let warned = String(decoding: anyway.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(warned.contains("warning: PostgreSQL role \(owner) owns the store's tables; serving as it anyway"), "\(warned)")

        let granted = try Self.run(["store", "grant", PSQL.servingRole], ownerStore)
        #expect(granted.status == 0, "\(granted.stdout)")
        let served = try Server(try CLI(), now: "2026-11-21 21:00", variables: ["DOSETAP_DATABASE_URL": PSQL.served(ownerStore)])
        #expect(served.port > 0)
        #expect(try await served.terminate(within: .seconds(20)) == 0)
        let quiet = String(decoding: served.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!quiet.contains("warning: PostgreSQL role"), "\(quiet)")
    }

    @Test("bad addresses, a taken address in another case, a bad zone or name add no one; --person on SQLite and on `person` is refused", enabled)
    func refusals() throws {
        let (store, _, _) = try PSQL.freshStore()
        for (arguments, field) in [
            (["person", "add", "not-an-address"], "email"), (["person", "add", "a@b"], "email"), (["person", "add", "a b@example.org"], "email"),
            (["person", "add", "x@example.org", "--time-zone", "Mars/Olympus"], "time-zone"),
            (["person", "add", "x@example.org", "--name", ""], "name"),
        ] {
            let refused = try Self.run(arguments, store)
            #expect(refused.status == 64 && refused.errorCode == "400_INVALID_INPUT", "\(arguments): \(refused.stdout)")
            #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["field"] as? String == field, "\(refused.stdout)")
        }
        let listed = try Self.run(["person", "list"], store)
        #expect(listed.stdout == "[]\n", "nothing was added: \(listed.stdout)")
        #expect(try Self.run(["person", "add", "dana@example.org"], store).status == 0)
        // UTC is a zone people type: added as UTC (Foundation calls it GMT, which the setting would refuse).
        let utc = try Self.run(["person", "add", "utc@example.org", "--time-zone", "UTC"], store)
        #expect(utc.status == 0, "\(utc.stdout)")
        #expect(try Self.run(["settings", "get", "time_zone", "--person", "utc@example.org"], store).stdout.contains("UTC"))
        let again = try Self.run(["person", "add", "DANA@Example.org"], store)
        #expect(again.status == 64 && again.stdout.contains("already has a person"), "\(again.stdout)")
        let onPerson = try Self.run(["person", "list", "--person", "dana@example.org"], store)
        #expect(onPerson.status == 64, "\(onPerson.stdout)")

        // The suite's PostgreSQL pass runs --db commands on PostgreSQL; a SQLite file is only there on the SQLite pass.
        guard ProcessInfo.processInfo.environment["DOSETAP_CLI_SUITE_POSTGRES_URL"] == nil else { return }
        let cli = try CLI()
        let sqlite = try cli.run(["person", "add", "erin@example.org"])
        #expect(sqlite.status == 64 && sqlite.stdout.contains("a SQLite file holds one person"), "\(sqlite.stdout)")
        let choosing = try cli.run(["status", "--person", "erin@example.org"])
        #expect(choosing.status == 64 && choosing.stdout.contains("a SQLite file holds one person"), "\(choosing.stdout)")
    }
}

/// Requests made with curl (an independent client): the status, the headers and the body.
enum Curl {
    static func call(
        _ url: String, post form: String? = nil, origin: String? = nil, cookie: String? = nil, bearer: String? = nil, method: String? = nil
    ) throws -> (status: Int, headers: String, body: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["-s", "-D", folder.appendingPathComponent("h").path, "-o", folder.appendingPathComponent("b").path, "-w", "%{http_code}"]
        if let form { arguments += ["-X", "POST", "--data-raw", form] }
        if let method { arguments += ["-X", method] }
        if let origin { arguments += ["-H", "Origin: \(origin)"] }
        if let cookie { arguments += ["-H", "Cookie: \(cookie)"] }
        if let bearer { arguments += ["-H", "Authorization: Bearer \(bearer)", "-H", "Content-Type: application/json"] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let code = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let headers = (try? String(contentsOf: folder.appendingPathComponent("h"), encoding: .utf8)) ?? ""
        let body = (try? String(contentsOf: folder.appendingPathComponent("b"), encoding: .utf8)) ?? ""
        return (Int(code) ?? 0, headers, body)
    }
}

@Suite("Sign-in links: made by the operator, used once from a browser, limited per address", .serialized)
struct SignInLinkTests {
    static func token(_ run: Run, base: String = "https://dosetap.example.org") throws -> String {
        let link = try #require(run.json["link"] as? String, "\(run.stdout)")
        #expect(link.hasPrefix(base + "/signin?token=dts_"))
        return String(link.split(separator: "=").last ?? "")
    }

    @Test(
        "GET shows a button and uses nothing; POST from this site signs in once; another's, an old or an expired link is refused alike",
        PeopleCLITests.enabled)
    func signIn() async throws {
        let (store, base, schema) = try PSQL.grantedStore()
        let link = ["--link-base", "https://dosetap.example.org"]
        let alice = try PeopleCLITests.run(["person", "add", "alice@example.org"] + link, store, now: "2026-11-21 11:00")
        let bob = try PeopleCLITests.run(["person", "add", "bob@example.org"] + link, store, now: "2026-11-21 11:00")
        #expect(alice.json["link_expires_at"] as? String == "2026-11-22T16:00:00.000Z", "a day: \(alice.stdout)")
        let replaced = try Self.token(alice)
        let aliceToken = try Self.token(try PeopleCLITests.run(["person", "link", "alice@example.org"] + link, store, now: "2026-11-21 11:01"))
        let bobToken = try Self.token(bob)
        let expired = try Self.token(try PeopleCLITests.run(["person", "link", "bob@example.org"] + link, store, now: "2026-11-20 09:00"))
        let stored = try PSQL.query("SELECT count(*) FROM sign_in_links WHERE token_hash LIKE 'dts_%'", base: base, schema: schema)
        #expect(stored == ["0"], "only hashes are kept")

        let cli = try CLI()
        let server = try Server(
            cli, now: "2026-11-21 12:00", arguments: ["--person", "alice@example.org"], variables: ["DOSETAP_DATABASE_URL": store])
        let here = server.base
        let page = try Curl.call(here + "/signin?token=" + aliceToken)
        #expect(page.status == 200 && page.body.contains("Sign in on this browser") && page.body.contains("value=\"\(aliceToken)\""))
        #expect(try Curl.call(here + "/signin?token=" + aliceToken).status == 200, "opening it again still shows it: GET uses nothing")

        var failures = 0
        let crossSite = try Curl.call(here + "/signin", post: "token=\(aliceToken)", origin: "https://evil.example")
        #expect(crossSite.status == 403, "another site cannot sign this browser in")
        let signedIn = try Curl.call(here + "/signin", post: "token=\(aliceToken)", origin: here)
        #expect(signedIn.status == 303 && signedIn.headers.contains("Location: /"), "\(signedIn.headers)")
        let cookie = try #require(signedIn.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: dosetap_device=dtp_") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let device = String(cookie.dropFirst("Set-Cookie: ".count).split(separator: ";")[0])
        let tonight = try Curl.call(here + "/", cookie: device)
        #expect(tonight.status == 200 || tonight.status == 303, "\(tonight.status)")
        #expect(try Curl.call(here + "/v1/status", cookie: device).status == 200, "the browser is Alice's device now")
        let devices = try PeopleCLITests.run(["device", "list", "--person", "alice@example.org"], store)
        #expect(devices.stdout.contains("\"revoked_at\":null"), "\(devices.stdout)")

        for (name, token) in [("used", aliceToken), ("replaced", replaced), ("Bob's", bobToken), ("expired", expired), ("malformed", "dts_zz")] {
            let refused = try Curl.call(here + "/signin", post: "token=\(token)", origin: here)
            failures += 1
            #expect(refused.status == 400 && refused.body.contains("it was used, it expired, or it was made for another DoseTap"), "\(name)")
        }
        let bobsLink = try PSQL.query(
            "SELECT count(*) FROM sign_in_links WHERE used_at IS NULL AND person_id = (SELECT id FROM people WHERE email = 'bob@example.org')",
            base: base, schema: schema)
        #expect(bobsLink == ["1"], "Bob's link was not used up by the attempt on Alice's DoseTap")

        // Ten failures from one address in 15 minutes: the next attempt waits, even with a good link, on any instance.
        while failures < SignInLinks.failuresAllowed {
            #expect(try Curl.call(here + "/signin", post: "token=dts_\(String(repeating: "0", count: 64))", origin: here).status == 400)
            failures += 1
        }
        let fresh = try Self.token(try PeopleCLITests.run(["person", "link", "alice@example.org"] + link, store, now: "2026-11-21 11:30"))
        let limited = try Curl.call(here + "/signin", post: "token=\(fresh)", origin: here)
        #expect(limited.status == 429 && limited.headers.contains("Retry-After: 900"), "\(limited.status) \(limited.headers)")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }
}

@Suite("serve without --person: everyone of a shared store, each signed in on their own", .serialized)
struct ServeEveryoneTests {
    /// Signs a browser in with `person`'s new link and returns its cookie (`dosetap_device=…`).
    static func signIn(_ person: String, _ store: String, server: Server) throws -> String {
        let link = try PeopleCLITests.run(["person", "link", person, "--link-base", server.base], store, now: "2026-11-21 21:00")
        let token = try SignInLinkTests.token(link, base: server.base)
        let signedIn = try Curl.call(server.base + "/signin", post: "token=\(token)", origin: server.base)
        #expect(signedIn.status == 303, "\(person): \(signedIn.status) \(signedIn.body.prefix(300))")
        let cookie = try #require(signedIn.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: dosetap_device=dtp_") })
        return String(cookie.dropFirst("Set-Cookie: ".count).split(separator: ";")[0])
    }

    static func phase(_ cookie: String, _ server: Server) throws -> String? {
        let status = try Curl.call(server.base + "/v1/status", cookie: cookie)
        return (try? JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])?["phase"] as? String
    }

    @Test(
        "a caregiver's live night stays open, and ends within a second with a sentence when the share is revoked on another instance, or their device from the CLI",
        PeopleCLITests.enabled)
    func caregiverStream() async throws {
        let (store, _, _) = try PSQL.grantedStore()
        for person in ["alice@example.org", "bob@example.org"] { _ = try PeopleCLITests.run(["person", "add", person], store) }
        func token(_ name: String, _ person: String) throws -> String {
            try #require(try PeopleCLITests.run(["device", "add", name, "--person", person], store).json["token"] as? String)
        }
        let (alice, phone, tablet) = (
            try token("phone", "alice@example.org"), try token("phone", "bob@example.org"), try token("tablet", "bob@example.org")
        )
        let one = try Server(try CLI(), now: "2026-11-21 21:00", variables: ["DOSETAP_DATABASE_URL": store])
        let two = try Server(try CLI(), now: "2026-11-21 21:00", variables: ["DOSETAP_DATABASE_URL": store])
        func share() throws -> String {
            let invited = try Curl.call(one.base + "/v1/shares", post: #"{"email":"bob@example.org","grants":["log"]}"#, bearer: alice)
            let link = try #require((try JSONSerialization.jsonObject(with: Data(invited.body.utf8)) as? [String: Any])?["invite_url"] as? String)
            let code = String(link.split(separator: "=").last ?? "")
            #expect(try Curl.call(one.base + "/v1/invitations/accept", post: #"{"token":"\#(code)"}"#, bearer: phone).status == 200)
            let people = try Curl.call(one.base + "/v1/people", bearer: phone)
            let list = (try JSONSerialization.jsonObject(with: Data(people.body.utf8)) as? [String: Any])?["people"] as? [[String: Any]]
            return try #require((list?.first?["person"] as? [String: Any])?["id"] as? String ?? list?.first?["id"] as? String, "\(people.body)")
        }
        func watch(_ token: String, _ owner: String) throws -> RawConnection {
            let connection = try RawConnection(port: one.port)
            try connection.send(
                "GET /v1/people/\(owner)/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            #expect(connection.read(until: ": connected", limit: 10))
            return connection
        }
        let owner = try share()
        let watched = try watch(phone, owner)
        // It stays open: until this fix it closed after 0.25 s, for every caregiver.
        let early = watched.received(until: "event: ended", limit: 1.2)
        #expect(!early.arrived, "the caregiver's stream ended on its own: \(early.text)")
        // Alice revokes the share through the other instance: this one's stream ends within a second, saying why.
        let shares = try Curl.call(two.base + "/v1/shares", bearer: alice)
        let id = try #require(
            ((try JSONSerialization.jsonObject(with: Data(shares.body.utf8)) as? [String: Any])?["shares"] as? [[String: Any]])?.first?["id"]
                as? String,
            "\(shares.body)")
        #expect(try Curl.call(two.base + "/v1/shares/\(id)", bearer: alice, method: "DELETE").status == 200)
        var revoked = ContinuousClock.now
        var ended = watched.received(until: "0\r\n\r\n", limit: 10)
        var after = ContinuousClock.now - revoked
        #expect(ended.arrived && ended.text.contains("event: ended") && ended.text.contains("no longer shares their night with you"), "\(ended.text)")
        #expect(after < .milliseconds(1_500), "the stream ended \(after) after the revocation")
        // Shared again, then Bob's tablet is unpaired from the command line: its stream ends, saying so.
        let again = try share()
        let watchedTablet = try watch(tablet, again)
        #expect(try PeopleCLITests.run(["device", "revoke", "tablet", "--person", "bob@example.org"], store).status == 0)
        revoked = ContinuousClock.now
        ended = watchedTablet.received(until: "0\r\n\r\n", limit: 10)
        after = ContinuousClock.now - revoked
        #expect(ended.arrived && ended.text.contains("This device was signed out"), "\(ended.text)")
        #expect(after < .milliseconds(1_500), "the stream ended \(after) after the device was unpaired")
        #expect(try await one.terminate(within: .seconds(20)) == 0)
        #expect(try await two.terminate(within: .seconds(20)) == 0)
    }

    @Test(
        "one server for all: each person signs in with their own link, sees only their night; added and removed people count at once",
        PeopleCLITests.enabled)
    func everyone() async throws {
        let (store, base, schema) = try PSQL.grantedStore()
        for person in ["alice@example.org", "bob@example.org"] { _ = try PeopleCLITests.run(["person", "add", person], store) }
        let server = try Server(try CLI(), now: "2026-11-21 21:00", variables: ["DOSETAP_DATABASE_URL": store])
        #expect(server.pairingURL.isEmpty, "no pairing link: whose device would it pair?")
        let alice = try Self.signIn("alice@example.org", store, server: server)
        let bob = try Self.signIn("bob@example.org", store, server: server)
        let tablet = try #require(
            try PeopleCLITests.run(["device", "add", "tablet", "--person", "alice@example.org"], store).json["token"] as? String)
        let taken = try Curl.call(server.base + "/v1/doses/take", post: #"{"type":"dose1"}"#, bearer: tablet)
        #expect(taken.status == 200, "\(taken.body)")
        #expect(try Self.phase(alice, server) == "before_window")
        #expect(try Self.phase(bob, server) == "no_dose1", "Bob's browser sees his own night, not Alice's")
        #expect(try Curl.call(server.base + "/v1/status").status == 401)

        // Carol, added while the server runs, signs in at once; Bob, removed, is signed out at his next request.
        _ = try PeopleCLITests.run(["person", "add", "carol@example.org"], store)
        let carol = try Self.signIn("carol@example.org", store, server: server)
        #expect(try Self.phase(carol, server) == "no_dose1")
        let removed = try PeopleCLITests.run(
            ["person", "remove", "bob@example.org", "--confirm", "Delete bob@example.org and all their data"], store)
        #expect(removed.status == 0, "\(removed.stdout)")
        #expect(try Curl.call(server.base + "/v1/status", cookie: bob).status == 401)
        let owners = try PSQL.query("SELECT count(DISTINCT person_id) FROM devices", base: base, schema: schema)
        #expect(owners == ["2"], "Alice's and Carol's devices remain: \(owners)")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }
}
