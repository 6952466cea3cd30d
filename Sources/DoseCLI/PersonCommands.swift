import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// `dosetap person`: the people of a shared PostgreSQL store (SPEC §5.6).
struct PersonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "person", abstract: "Add, list and remove the people of a shared PostgreSQL store.",
        subcommands: [Add.self, List.self, Remove.self])

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

    static func json(_ person: PersonRecord) -> JSONValue {
        [
            "id": .string(person.id), "email": person.email.map { .string($0) } ?? .null, "name": person.name.map { .string($0) } ?? .null,
            "created_at": .string(ISO8601.string(person.createdAt)),
        ]
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a person, named by their e-mail address; commands then act for them with --person EMAIL.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their e-mail address (compared in any case).") var email: String
        @Option(help: "A name to show (1–100 characters).") var name: String?
        @Option(help: "Their IANA time zone, e.g. America/Chicago (default: the machine's).") var timeZone: String?

        func run() throws {
            try Output.run(json: options.json) {
                let person = try PersonCommand.people(options).add(email: email, name: name, timeZone: timeZone)
                Output.show(
                    json: options.json, PersonCommand.json(person),
                    "Added \(person.shownName)\(person.name.map { " (\($0))" } ?? ""). Commands act for them with --person \(person.shownName); "
                        + "`dosetap device add NAME --person \(person.shownName)` pairs a device of theirs.")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The people of the store, oldest first.")
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try Output.run(json: options.json) {
                let people = try PersonCommand.people(options).list()
                if options.json { return Output.line(JSONValue.array(people.map(PersonCommand.json)).rendered()) }
                if people.isEmpty { Output.line("No people yet: `dosetap person add EMAIL` adds one.") }
                for person in people {
                    Output.line(
                        "\(person.email ?? "(no address: the store's first person)")"
                            + "\(person.name.map { "  \($0)" } ?? "")  [\(person.id)]  added \(ISO8601.string(person.createdAt))")
                }
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
