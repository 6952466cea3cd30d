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

/// `dosetap store copy --from SOURCE --to TARGET [--person PERSON]`: every record, verified, into an empty store.
struct StoreCopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every record from one store to an empty one, and verify it.",
        discussion: """
            SOURCE and TARGET are each a SQLite file's path or a postgres:// URL. The source is only read. The copy is \
            written in one transaction, read back and compared table by table (rows and a SHA-256 digest) before it is \
            reported; on any failure the target is left as it was.

            Between PostgreSQL stores, every person goes, with their shares, invitations and sign-in state; the target \
            must hold no one. A SQLite file is one person's records: from a store of several, --person names whose \
            (the way home); into a store that serves others, --person names who they become there (the way in): a person \
            with no records yet, or a new person with an address no one has. `dosetap person address` gives a person \
            copied in without one an address.
            """)
    @Option(help: "The store to copy from: a SQLite file's path or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.") var from: String
    @Option(help: "The store to copy to: a SQLite file's path (made if missing) or a postgres:// URL; it must hold no records (of that person).")
    var to: String
    @Option(help: "The person of a PostgreSQL store whose records go to or come from a SQLite file: an e-mail address or id.")
    var person: String?
    @Flag(help: "Print machine-readable JSON on stdout.") var json = false

    func run() throws {
        try Output.run(json: json) {
            let source = try StoreCopy.Address(from, field: "--from")
            let target = try StoreCopy.Address(to, field: "--to")
            let report = try StoreCopy.copy(from: source, to: target, person: person, newID: UUID().uuidString.lowercased(), now: Date())
            if json {
                let tables = report.tables.keys.sorted().map { name -> JSONValue in
                    let digest = report.tables[name]!
                    return JSONValue(dictionaryLiteral: ("table", .string(name)), ("rows", .int(digest.rows)), ("sha256", .string(digest.sha256)))
                }
                var fields: [(String, JSONValue)] = [
                    ("copied", .bool(true)), ("from", .string(report.source)), ("to", .string(report.target)), ("rows", .int(report.rows)),
                    ("tables", .array(tables)),
                ]
                if let people = report.people { fields.append(("people", .int(people))) }
                if let person = report.person { fields.append(("person", .string(person))) }
                Output.line(JSONValue.object(Dictionary(uniqueKeysWithValues: fields)).rendered())
            } else {
                let filled = report.tables.filter { $0.value.rows > 0 }.keys.sorted()
                let whose = report.people.map { " of \($0) \($0 == 1 ? "person" : "people")" } ?? report.person.map { " as \($0)" } ?? ""
                Output.line("Copied \(report.rows) rows\(whose) from \(report.source) to \(report.target).")
                for name in filled { Output.line("  \(name): \(report.tables[name]!.rows)") }
                Output.line("Verified: every table's row count and SHA-256 digest match the source.")
            }
        }
    }
}
