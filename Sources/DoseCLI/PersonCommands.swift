import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// `dosetap person`: the people of a shared PostgreSQL store (SPEC §5.6).
struct PersonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "person", abstract: "Add, list, address and remove the people of a shared PostgreSQL store.",
        subcommands: [Add.self, Link.self, List.self, Address.self, Operator.self, Remove.self])

    /// Where sign-in links point: `--link-base`, else `DOSETAP_PUBLIC_URL`, else this machine's default `serve`.
    static func linkBase(_ option: String?) -> String {
        option ?? Terminal.current.environment["DOSETAP_PUBLIC_URL"] ?? "http://localhost:8080"
    }

    /// A sign-in link in JSON and in words.
    static func linkJSON(_ person: PersonRecord, _ url: String, _ expiresAt: Date) -> JSONValue {
        guard case .object(var object) = json(person) else { return .null }
        object["link"] = .string(url)
        object["link_expires_at"] = .string(ISO8601.string(expiresAt))
        return .object(object)
    }

    static func linkWords(_ person: PersonRecord, _ url: String, _ expiresAt: Date) -> String {
        "Sign-in link for \(person.shownName) (works once, until \(ISO8601.string(expiresAt))):\n  \(url)\n"
            + "Opened on their phone or computer and confirmed there, it signs that browser in as them."
    }

    static func mailedJSON(_ person: PersonRecord, _ expiresAt: Date) -> JSONValue {
        guard case .object(var object) = json(person) else { return .null }
        object["link"] = .null
        object["mailed"] = .bool(true)
        object["link_expires_at"] = .string(ISO8601.string(expiresAt))
        return .object(object)
    }

    static func mailedWords(_ person: PersonRecord, _ expiresAt: Date) -> String {
        "A sign-in link for \(person.shownName) (works once, until \(ISO8601.string(expiresAt))) is queued to be mailed to them; "
            + "a `dosetap serve --smtp` of this store sends it. `dosetap mail list` shows how it went."
    }

    /// The people of the store the options name; a SQLite file, or `--person` (the person is the argument), is refused.
    static func people(_ options: GlobalOptions) throws -> PeopleService {
        if let person = options.person {
            throw DoseError.invalidInput(
                field: "--person", problem: "`dosetap person` names the person as its argument, not with --person \(person.prefix(100))",
                allowed: "leave out --person")
        }
        guard let url = try CommandContext.postgresURL(options) else { throw SharedStore.sqliteHoldsOnePerson(option: "dosetap person") }
        let now = try options.now.map { text throws(DoseError) in try ClockInput.instant(text, field: "now") } ?? Date()
        let clock = StoreClock(now: now, machineTimeZoneID: TimeZone.current.identifier, makeID: { UUID().uuidString.lowercased() }, random: .system)
        return PeopleService(store: try PostgresStore.open(try PostgresLocation(url: url)), clock: clock)
    }

    /// A person in JSON; with `operator` given, whether they are one.
    static func json(_ person: PersonRecord, operator isOperator: Bool? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(person.id), "email": person.email.map { .string($0) } ?? .null, "name": person.name.map { .string($0) } ?? .null,
            "created_at": .string(ISO8601.string(person.createdAt)),
        ]
        if let isOperator { object["operator"] = .bool(isOperator) }
        return .object(object)
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a person, named by their e-mail address; commands then act for them with --person EMAIL.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their e-mail address (compared in any case).") var email: String
        @Option(help: "A name to show (1–100 characters).") var name: String?
        @Option(help: "Their IANA time zone, e.g. America/Chicago (default: the machine's).") var timeZone: String?
        @Option(help: "This DoseTap's address for the sign-in link (default $DOSETAP_PUBLIC_URL, else http://localhost:8080).")
        var linkBase: String?
        @Flag(help: "Mail them the link (sent by a `serve --smtp` of this store) instead of showing it here.") var mail = false
        @Flag(help: "Make them an operator, who may open the operator's page (/operator).") var `operator` = false

        func run() throws {
            try Output.run(json: options.json) {
                let people = try PersonCommand.people(options)
                let base = try SignInLinks.checkedBase(PersonCommand.linkBase(linkBase))
                let added = try people.add(email: email, name: name, timeZone: timeZone)
                if self.operator { _ = try people.setOperator(added.id, true) }
                let introduction =
                    "Added \(added.shownName)\(added.name.map { " (\($0))" } ?? "")\(self.operator ? ", an operator" : ""). "
                    + "Commands act for them with --person \(added.shownName).\n"
                if mail {
                    let (person, expiresAt) = try people.mailSignInLink(for: added.id, base: base)
                    return Output.show(
                        json: options.json, PersonCommand.mailedJSON(person, expiresAt), introduction + PersonCommand.mailedWords(person, expiresAt))
                }
                let (person, url, expiresAt) = try people.signInLink(for: added.id, base: base)
                Output.show(
                    json: options.json, PersonCommand.linkJSON(person, url, expiresAt), introduction + PersonCommand.linkWords(person, url, expiresAt)
                )
            }
        }
    }

    struct Link: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link", abstract: "Make a new one-time sign-in link for a person; their older unused one stops working.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their e-mail address.") var email: String
        @Option(help: "This DoseTap's address (default $DOSETAP_PUBLIC_URL, else http://localhost:8080).") var linkBase: String?
        @Flag(help: "Mail them the link (sent by a `serve --smtp` of this store) instead of showing it here.") var mail = false

        func run() throws {
            try Output.run(json: options.json) {
                if mail {
                    let (person, expiresAt) = try PersonCommand.people(options).mailSignInLink(for: email, base: PersonCommand.linkBase(linkBase))
                    return Output.show(json: options.json, PersonCommand.mailedJSON(person, expiresAt), PersonCommand.mailedWords(person, expiresAt))
                }
                let (person, url, expiresAt) = try PersonCommand.people(options).signInLink(for: email, base: PersonCommand.linkBase(linkBase))
                Output.show(json: options.json, PersonCommand.linkJSON(person, url, expiresAt), PersonCommand.linkWords(person, url, expiresAt))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The people of the store, oldest first.")
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try Output.run(json: options.json) {
                let service = try PersonCommand.people(options)
                let people = try service.list()
                let operators = try service.operators()
                if options.json {
                    return Output.line(
                        JSONValue.array(people.map { PersonCommand.json($0, operator: operators.contains($0.id)) }).rendered())
                }
                if people.isEmpty { Output.line("No people yet: `dosetap person add EMAIL` adds one.") }
                for person in people {
                    Output.line(
                        "\(person.email ?? "(no address: the store's first person)")"
                            + "\(person.name.map { "  \($0)" } ?? "")  [\(person.id)]  added \(ISO8601.string(person.createdAt))"
                            + (operators.contains(person.id) ? "  operator" : ""))
                }
            }
        }
    }

    struct Operator: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "operator",
            abstract: "Make a person an operator, who may open the operator's page (/operator), or, with --off, no longer one.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The person: their e-mail address, or their id as `dosetap person list` shows it.") var person: String
        @Flag(help: "Take operator off them.") var off = false

        func run() throws {
            try Output.run(json: options.json) {
                let changed = try PersonCommand.people(options).setOperator(person, !off)
                Output.show(
                    json: options.json, PersonCommand.json(changed, operator: !off),
                    off
                        ? "\(changed.shownName) is no longer an operator."
                        : "\(changed.shownName) is an operator: /operator opens for them once signed in.")
            }
        }
    }

    struct Address: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "address",
            abstract: "Give a person an e-mail address, or change it; a person copied in from a file, or a store's first, has none.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The person: their e-mail address, or their id as `dosetap person list` shows it.") var person: String
        @Argument(help: "The address to give them (compared in any case; no one else here may have it).") var email: String

        func run() throws {
            try Output.run(json: options.json) {
                let person = try PersonCommand.people(options).giveAddress(to: person, email: email)
                Output.show(
                    json: options.json, PersonCommand.json(person),
                    "\(person.name ?? "The person \(person.id)") now has the address \(person.shownName); commands act for them with --person \(person.shownName)."
                )
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a person and every record of theirs. This cannot be undone.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their e-mail address (or id, for a person without one).") var email: String
        @Option(help: "Exactly: \"Delete EMAIL and all their data\".") var confirm: String?

        func run() throws {
            try Output.run(json: options.json) {
                let removal = try PersonCommand.people(options).remove(email, confirmation: confirm)
                let rows = removal.deleted.values.reduce(0, +)
                var response = PersonCommand.json(removal.person)
                if case .object(var object) = response {
                    object["removed"] = true
                    object["deleted_rows"] = .int(rows)
                    object["remaining_rows"] = .int(removal.remaining)
                    response = .object(object)
                }
                Output.show(
                    json: options.json, response,
                    "Removed \(removal.person.shownName) and \(rows) rows of theirs; none remain.")
            }
        }
    }
}

/// What a SQLite store cannot do: hold several people.
enum SharedStore {
    static func sqliteHoldsOnePerson(option: String) -> DoseError {
        .invalidInput(
            field: option.hasPrefix("--person") ? "--person" : option,
            problem: "a SQLite file holds one person's records, so it has no people to choose from",
            allowed: "a PostgreSQL store for several people (--database postgres://… or DOSETAP_DATABASE_URL), or leave out \(option)")
    }
}
