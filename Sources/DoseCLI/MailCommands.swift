import ArgumentParser
import DoseApp
import DoseCore
import DoseStore
import Foundation

/// The mail queue of a shared store (SPEC §5.7), for its operator.
struct MailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail", abstract: "The mail a PostgreSQL store queued: sign-in links and invitations, sent by `serve --smtp`.",
        subcommands: [List.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Queued mail, pending and failed first, then sent, newest first: never a message's text.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "How many (1–1000, default 100).") var limit = 100

        func run() throws {
            try Output.run(json: options.json) {
                guard (1...1_000).contains(limit) else { throw DoseError.invalidInput(field: "limit", problem: "\(limit)", allowed: "1–1000") }
                let queue = try PersonCommand.people(options).mailQueue(limit: limit)
                if options.json { return Output.line(JSONValue.array(queue.map(Self.json)).rendered()) }
                if queue.isEmpty { Output.line("No mail queued yet.") }
                for entry in queue {
                    let next = entry.state == "pending" ? ", next try \(ISO8601.string(entry.nextAttemptAt))" : ""
                    Output.line(
                        "\(entry.state.padding(toLength: 8, withPad: " ", startingAt: 0)) \(entry.kind) to \(entry.recipient), queued "
                            + "\(ISO8601.string(entry.createdAt)), \(entry.attempts) tries\(next)\(entry.lastError.map { ": \($0)" } ?? "")")
                }
            }
        }

        static func json(_ entry: MailQueueEntry) -> JSONValue {
            [
                "id": .string(entry.id), "recipient": .string(entry.recipient), "kind": .string(entry.kind), "state": .string(entry.state),
                "attempts": .int(entry.attempts), "last_error": entry.lastError.map { .string($0) } ?? .null,
                "created_at": .string(ISO8601.string(entry.createdAt)), "next_attempt_at": .string(ISO8601.string(entry.nextAttemptAt)),
            ]
        }
    }
}
