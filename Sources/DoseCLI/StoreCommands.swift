import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// `dosetap store`: the store itself, as a whole.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "The store as a whole: copy every record to another store (SQLite ⇄ PostgreSQL); let a role serve a PostgreSQL store.",
        subcommands: [StoreCopyCommand.self, StoreGrantCommand.self])
}

/// `dosetap store grant ROLE --database OWNER_URL`: the role the service connects as, given what serving needs.
struct StoreGrantCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Bring a PostgreSQL store's schema up to date and let ROLE serve it, with row-level security holding for it.",
        discussion: """
            Run it as the schema's owner (--database names the owner's URL): it applies the migrations this dosetap has and \
            the store lacks, then grants ROLE reading and writing rows, never changing the schema. ROLE must exist, own \
            nothing here, and be neither a superuser nor BYPASSRLS. Serve and run every other command with ROLE's URL; after \
            an upgrade, run this again before serving.
            """)
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The role the service connects as (CREATE ROLE dosetap LOGIN PASSWORD '…').") var role: String

    func run() throws {
        try Output.run(json: options.json) {
            guard let url = try CommandContext.postgresURL(options) else {
                throw DoseError.invalidInput(
                    field: "--database", problem: "`dosetap store grant` is for a PostgreSQL store, and none was named",
                    allowed: "--database postgres://OWNER@HOST/DATABASE (or DOSETAP_DATABASE_URL)")
            }
            let store = try PostgresStore.open(try PostgresLocation(url: url))
            defer { store.close() }
            try store.grant(to: role)
            Output.show(
                json: options.json, ["granted": .bool(true), "role": .string(role), "store": .string(store.location.redacted)] as JSONValue,
                "\(role) may now serve \(store.location.redacted), seeing one person's rows at a time.")
        }
    }
}

/// `dosetap store copy --from SOURCE --to TARGET`: every record, verified, into an empty store.
struct StoreCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every record from one store to an empty one, and verify it.",
        discussion: """
            SOURCE and TARGET are each a SQLite file's path or a postgres:// URL. The source is only read. A target that \
            already holds records is refused. The copy is written in one transaction, read back and compared table by \
            table (rows and a SHA-256 digest) before it is reported; on any failure the target is left empty.
            """)
    @Option(help: "The store to copy from: a SQLite file's path or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.") var from: String
    @Option(help: "The empty store to copy to: a SQLite file's path (made if missing) or a postgres:// URL.") var to: String
    @Flag(help: "Print machine-readable JSON on stdout.") var json = false

    func run() throws {
        try Output.run(json: json) {
            let source = try StoreCopy.Address(from, field: "--from")
            let target = try StoreCopy.Address(to, field: "--to")
            let report = try StoreCopy.copy(from: source, to: target, newID: UUID().uuidString.lowercased())
            if json {
                let tables = report.tables.keys.sorted().map { name -> JSONValue in
                    let digest = report.tables[name]!
                    return JSONValue(dictionaryLiteral: ("table", .string(name)), ("rows", .int(digest.rows)), ("sha256", .string(digest.sha256)))
                }
                Output.line(
                    JSONValue(
                        dictionaryLiteral: ("copied", .bool(true)), ("from", .string(report.source)), ("to", .string(report.target)),
                        ("rows", .int(report.rows)), ("tables", .array(tables))
                    ).rendered())
            } else {
                let filled = report.tables.filter { $0.value.rows > 0 }.keys.sorted()
                Output.line("Copied \(report.rows) rows from \(report.source) to \(report.target).")
                for name in filled { Output.line("  \(name): \(report.tables[name]!.rows)") }
                Output.line("Verified: every table's row count and SHA-256 digest match the source.")
            }
        }
    }
}
