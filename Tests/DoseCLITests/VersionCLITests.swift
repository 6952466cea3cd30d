import Foundation
import GRDB
import Testing

/// `dosetap --version` (issue 56): the release and the schema versions this build writes, read back from the stores the
/// built binary makes.
@Suite("dosetap --version")
struct VersionCLITests {
    @Test("prints the release and the schema versions that a new SQLite file and a new PostgreSQL store then carry", .readsSQLiteFile)
    func versionNamesTheSchemas() throws {
        let printed = try CLI.execute(["--version"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let line = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let pattern = #/^dosetap (\d+)\.(\d+)\.(\d+) \(schemas: SQLite (\d+), PostgreSQL (\d+)\)$/#
        let match = try #require(line.wholeMatch(of: pattern), "\(line)")
        let cli = try CLI()
        try cli.run(["status"])
        let fileVersion = try DatabaseQueue(path: cli.database).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(fileVersion == Int(match.output.4), "the file made by this binary is at the printed version")
        if PostgresCLITests.url != nil {
            let (store, base, schema) = try PSQL.freshStore()
            _ = try PeopleCLITests.run(["person", "list"], store)
            let applied = try PSQL.query("SELECT count(*) FROM dosetap_migrations", base: base, schema: schema)
            #expect(applied == [String(match.output.5)], "the store made by this binary has the printed number of migrations")
        }
    }
}
