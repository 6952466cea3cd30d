import Foundation
import Testing

/// `dosetap store copy` of a shared store (SPEC §5.6): everyone between PostgreSQL stores, one person home to a file and
/// a file in as a person, each checked by psql (Debian's client, not DoseTap's code) and by the records' own commands.
@Suite("store copy of a shared store: everyone between PostgreSQL stores, one person to a file and back in", .serialized)
struct StoreCopyCLITests {
    static let enabled = PeopleCLITests.enabled

    /// A granted store of three people, as a hosted one is served: Alice and Bob with a night each, Carol with none;
    /// Alice shares with Bob (an accepted invitation, a rung of her alarm ladder, his view in her access audit).
    static func threePeople() throws -> (served: String, base: String, schema: String) {
        let (ownerURL, base, schema) = try PSQL.freshStore()
        #expect(try PeopleCLITests.run(["store", "grant", PSQL.servingRole], ownerURL).status == 0)
        let store = PSQL.served(ownerURL)
        for email in ["alice@example.org", "bob@example.org", "carol@example.org"] {
            #expect(try PeopleCLITests.run(["person", "add", email], store, now: "2026-11-20 10:00").status == 0)
        }
        try PeopleCLITests.night("alice@example.org", canary: "canary-alice", store)
        try PeopleCLITests.night("bob@example.org", canary: "canary-bob", store)
        let alice = "(SELECT id FROM people WHERE email = 'alice@example.org')"
        let bob = "(SELECT id FROM people WHERE email = 'bob@example.org')"
        _ = try PSQL.query(
            """
            INSERT INTO share_invitations (id, person_id, email, grants, token_hash, created_at, expires_at, state, answered_at, grantee_id)
                VALUES ('inv-1', \(alice), 'bob@example.org', '{view,alarms}', repeat('a', 64), '2026-11-20T10:00Z', '2026-11-27T10:00Z',
                    'accepted', '2026-11-20T11:00Z', \(bob));
            INSERT INTO shares (person_id, grantee_id, invitation_id, grants, created_at, ladder_rank, ladder_minutes)
                VALUES (\(alice), \(bob), 'inv-1', '{view,alarms}', '2026-11-20T11:00Z', 1, 200);
            INSERT INTO access_audit (person_id, actor_id, at, action, detail) VALUES (\(alice), \(bob), '2026-11-22T08:00Z', 'viewed', 'history');
            """, base: base, schema: schema)
        return (store, base, schema)
    }

    /// Every table's rows and text, and every sequence, as psql reads them (as the superuser: every person's rows).
    static func everything(base: String, schema: String) throws -> [String] {
        try PSQL.query(
            """
            SELECT c.relname, (xpath('/row/d/text()', query_to_xml(format(
                'SELECT count(*) || '':'' || coalesce(md5(string_agg(t::text, ''|'' ORDER BY t::text COLLATE "C")), '''') AS d FROM %I t',
                c.relname), false, true, '')))[1]::text
            FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> 'dosetap_migrations'
            UNION ALL
            SELECT s.relname, (xpath('/row/v/text()', query_to_xml(format('SELECT last_value || '':'' || is_called AS v FROM %I', s.relname),
                false, true, '')))[1]::text
            FROM pg_class s WHERE s.relnamespace = current_schema()::regnamespace AND s.relkind = 'S'
            ORDER BY 1
            """, base: base, schema: schema)
    }

    static func copy(_ arguments: [String]) throws -> Run { try CLI.inProcess(["store", "copy", "--json"] + arguments) }

    static func people(_ store: String) throws -> [[String: Any]] {
        let listed = try PeopleCLITests.run(["person", "list"], store)
        return try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    /// A person's nights as `history` prints them.
    static func history(_ person: [String], _ store: [String]) throws -> String {
        let run = try CLI.inProcess(
            ["history", "--tz", "America/New_York", "--now", CLI.instant("2026-11-23 09:00", zone: "America/New_York")] + person + store)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        return run.stdout
    }

    @Test(
        "every person, share, invitation, audit entry and counter goes PostgreSQL to PostgreSQL, as psql reads both; the same bundle from each",
        enabled)
    func everyone() throws {
        let (source, base, sourceSchema) = try Self.threePeople()
        let before = try Self.everything(base: base, schema: sourceSchema)
        let (targetOwner, _, targetSchema) = try PSQL.freshStore()
        #expect(try PeopleCLITests.run(["store", "grant", PSQL.servingRole], targetOwner).status == 0)
        let target = PSQL.served(targetOwner)

        let named = try Self.copy(["--from", source, "--to", target, "--person", "bob@example.org"])
        #expect(named.status == 64 && named.stdout.contains("takes every person"), "\(named.stdout)")

        let copied = try Self.copy(["--from", source, "--to", target])
        #expect(copied.status == 0 && copied.json["people"] as? Int == 3, "\(copied.stdout) \(copied.stderr)")
        let tables = try #require(copied.json["tables"] as? [[String: Any]])
        let rows = Dictionary(
            uniqueKeysWithValues: tables.compactMap { table in (table["table"] as? String).map { ($0, table["rows"] as? Int ?? -1) } })
        #expect(rows["shares"] == 1 && rows["share_invitations"] == 1 && rows["access_audit"] == 1 && rows["people"] == 3, "\(rows)")

        // Independently of DoseTap: every table's rows and every sequence the same in both, and the source unchanged.
        let after = try Self.everything(base: base, schema: targetSchema)
        #expect(after == before, "\(zip(before, after).filter { $0 != $1 })")
        #expect(try Self.everything(base: base, schema: sourceSchema) == before)
        #expect(after.contains { $0.hasPrefix("dose_events|") && !$0.hasPrefix("dose_events|0:") })

        // Each person's records read the same through DoseTap, and Alice's bundle is the same byte for byte.
        for person in ["alice@example.org", "bob@example.org"] {
            let there = try Self.history(["--person", person], ["--database", source])
            #expect(try Self.history(["--person", person], ["--database", target]) == there)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var bundles: [Data] = []
        for (index, store) in [source, target].enumerated() {
            let out = directory.appendingPathComponent("bundle-\(index).zip").path
            let run = try CLI.inProcess(
                [
                    "export", "--format", "bundle", "--out", out, "--person", "alice@example.org", "--database", store, "--tz", "America/New_York",
                    "--now",
                    CLI.instant("2026-11-23 09:00", zone: "America/New_York"),
                ])
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            bundles.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(bundles.count == 2 && bundles[0] == bundles[1])

        // A target that holds anyone is refused, and left as it was.
        let again = try Self.copy(["--from", source, "--to", target])
        #expect(again.status == 64 && again.stdout.contains("already holds records"), "\(again.stdout)")
        #expect(try Self.everything(base: base, schema: targetSchema) == before)
    }

    @Test(
        "one person home to a file by address or id, and a file in as a new person by address, or as no one until `person address` gives one",
        enabled, .readsSQLiteFile)
    func homeAndBack() throws {
        let (source, base, sourceSchema) = try Self.threePeople()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bob.sqlite").path

        // The way home: a store of several needs the person named; a file needs no --person of its own.
        let unnamed = try Self.copy(["--from", source, "--to", file])
        #expect(unnamed.status == 64 && unnamed.stdout.contains("--person EMAIL or --person ID"), "\(unnamed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let stranger = try Self.copy(["--from", source, "--to", file, "--person", "dave@example.org"])
        #expect(stranger.status == 64 && stranger.stdout.contains("has no person 'dave@example.org'"), "\(stranger.stdout)")
        let bobID = try #require(try Self.people(source).first { $0["email"] as? String == "bob@example.org" }?["id"] as? String)
        let home = try Self.copy(["--from", source, "--to", file, "--person", bobID])
        #expect(home.status == 0 && home.json["copied"] as? Bool == true, "\(home.stdout) \(home.stderr)")
        let bobsNights = try Self.history([], ["--db", file])
        let bobsNightsThere = try Self.history(["--person", "bob@example.org"], ["--database", source])
        #expect(bobsNights.contains("2026-11-21") && bobsNights == bobsNightsThere)
        let fileOnly = try Self.copy(["--from", file, "--to", directory.appendingPathComponent("x.sqlite").path, "--person", "bob@example.org"])
        #expect(fileOnly.status == 64 && fileOnly.stdout.contains("both stores are SQLite files"), "\(fileOnly.stdout)")

        // The way in, to a store that serves someone else: by a new address, as a new person; the store keeps its keys.
        let (otherOwner, _, otherSchema) = try PSQL.freshStore()
        #expect(try PeopleCLITests.run(["store", "grant", PSQL.servingRole], otherOwner).status == 0)
        let other = PSQL.served(otherOwner)
        #expect(try PeopleCLITests.run(["person", "add", "erin@example.org"], other).status == 0)
        try PeopleCLITests.night("erin@example.org", canary: "canary-erin", other)
        let keys = try PSQL.query("SELECT purpose || secret FROM server_keys ORDER BY 1", base: base, schema: otherSchema)
        let noSuchID = try Self.copy(["--from", file, "--to", other, "--person", "no-such-id"])
        #expect(noSuchID.status == 64 && noSuchID.stdout.contains("no person with the id 'no-such-id'"), "\(noSuchID.stdout)")
        let arrived = try Self.copy(["--from", file, "--to", other, "--person", "Dave@Example.org"])
        #expect(arrived.status == 0 && arrived.json["person"] as? String == "dave@example.org", "\(arrived.stdout) \(arrived.stderr)")
        #expect(try Self.people(other).compactMap { $0["email"] as? String } == ["erin@example.org", "dave@example.org"])
        #expect(try Self.history(["--person", "dave@example.org"], ["--database", other]) == bobsNights)
        #expect(try PSQL.query("SELECT purpose || secret FROM server_keys ORDER BY 1", base: base, schema: otherSchema) == keys)
        // Dave now holds records; the same records as someone new cannot come in a second time, and make no one.
        let twice = try Self.copy(["--from", file, "--to", other, "--person", "dave@example.org"])
        #expect(twice.status == 64 && twice.stdout.contains("already holds records"), "\(twice.stdout)")
        let copiedAgain = try Self.copy(["--from", file, "--to", other, "--person", "frank@example.org"])
        #expect(copiedAgain.status == 64 && copiedAgain.stdout.contains("under another person"), "\(copiedAgain.stdout)")
        #expect(try Self.people(other).count == 2)

        // Into a new store, the file's records are its one person, who has no address until the operator gives one.
        let (emptyOwner, _, _) = try PSQL.freshStore()
        #expect(try PeopleCLITests.run(["store", "grant", PSQL.servingRole], emptyOwner).status == 0)
        let empty = PSQL.served(emptyOwner)
        #expect(try Self.copy(["--from", file, "--to", empty]).status == 0)
        #expect(try PeopleCLITests.run(["person", "add", "grace@example.org"], empty).status == 0)
        let first = try #require(try Self.people(empty).first { $0["email"] is NSNull }?["id"] as? String)
        let taken = try PeopleCLITests.run(["person", "address", first, "grace@example.org"], empty)
        #expect(taken.status == 64 && taken.stdout.contains("already has a person"), "\(taken.stdout)")
        let given = try PeopleCLITests.run(["person", "address", first, "Bob@Example.org"], empty)
        #expect(given.status == 0 && given.json["email"] as? String == "bob@example.org" && given.json["id"] as? String == first, "\(given.stdout)")
        #expect(try Self.history(["--person", "bob@example.org"], ["--database", empty]) == bobsNights)
        let badAddress = try PeopleCLITests.run(["person", "address", first, "not-an-address"], empty)
        #expect(badAddress.status == 64 && badAddress.errorCode == "400_INVALID_INPUT", "\(badAddress.stdout)")
        #expect(try Self.everything(base: base, schema: sourceSchema).contains { $0.hasPrefix("people|3:") })
    }
}
