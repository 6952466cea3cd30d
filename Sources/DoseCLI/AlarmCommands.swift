import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import DoseStore
import Foundation

/// Where reminders go besides open pages and Web Push: the options `serve` and `alarm test` share, so a test sends
/// through exactly the channels the server will use.
struct ChannelOptions: ParsableArguments {
    @Option(help: "POST each reminder to this URL (repeatable).") var webhook: [String] = []
    @Option(help: "Webhook body: json (default) or ntfy.") var webhookFormat = "json"
    @Option(help: "Run this program for each reminder (reminder in DOSETAP_REMINDER_* environment variables).") var onReminder: String?
    @Option(help: "Web Push sender contact, the VAPID subject (mailto: or https: URL; default \(VAPID.defaultSubject)).")
    var vapidSubject = VAPID.defaultSubject
    @Option(help: .hidden) var pushBackoff: String?

    /// The configured deliveries, each checked.
    func deliveries(_ environment: AppEnvironment) throws -> [any ReminderDelivery] {
        let format: WebhookDelivery.Format = try choice(webhookFormat, field: "webhook-format")
        var deliveries: [any ReminderDelivery] = []
        for url in webhook {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                throw DoseError.invalidInput(field: "webhook", problem: "'\(url)' is not an http(s) URL", allowed: "http://… or https://…")
            }
            deliveries.append(WebhookDelivery(url: url, format: format, environment: environment))
        }
        if let onReminder {
            let command = CommandDelivery(command: onReminder)
            guard FileManager.default.isExecutableFile(atPath: command.executable) else {
                throw DoseError.invalidInput(
                    field: "on-reminder", problem: "'\(command.executable)' is not an executable file", allowed: "an absolute path to a program")
            }
            deliveries.append(command)
        }
        return deliveries
    }

    /// How Web Push requests are made; `--push-backoff` (hidden, seconds, comma-separated) shortens retries in tests.
    func pushOptions(_ environment: AppEnvironment) throws -> PushOptions {
        guard vapidSubject.hasPrefix("mailto:") || vapidSubject.hasPrefix("https://"), vapidSubject.count <= 200 else {
            throw DoseError.invalidInput(
                field: "vapid-subject", problem: "'\(vapidSubject.prefix(80))' is not a contact", allowed: "mailto:you@example.org or an https:// URL"
            )
        }
        var options = PushOptions(subject: vapidSubject, sleep: environment.sleep)
        if let pushBackoff {
            let delays = pushBackoff.split(separator: ",").compactMap { Double($0) }
            guard !delays.isEmpty, delays.allSatisfy({ (0...600).contains($0) }) else {
                throw DoseError.invalidInput(field: "push-backoff", problem: "'\(pushBackoff)'", allowed: "seconds, comma-separated, each 0–600")
            }
            options.retries.backoff = delays.map { .milliseconds(Int($0 * 1000)) }
        }
        return options
    }
}

struct Alarm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm", abstract: "Test the alarm channels, answer an alarm, read a night's alarm log.",
        subcommands: [Test.self, Ack.self, Log.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract:
                "Send a test alarm through every channel (Web Push subscriptions, the escalation contact, and the given webhooks) and report each.",
            discussion:
                "No server need be running: Web Push goes out from this database's key to its subscriptions. Give the same --webhook and "
                + "--on-reminder options as `serve` to test those too."
        )
        @OptionGroup var options: GlobalOptions
        @OptionGroup var channels: ChannelOptions

        func run() async throws {
            try await Output.runAsync(options) { context in
                let alarmChannels = AlarmChannels(
                    environment: context.environment, configured: try channels.deliveries(context.environment),
                    push: try channels.pushOptions(context.environment))
                let report = await alarmChannels.test()
                Output.show(json: options.json, report, ([report.message] + report.lines).joined(separator: "\n"))
                // A channel that did not take the test is tonight's alarm not arriving: scripts must see it.
                if !report.allAccepted { throw ExitCode(ExitStatus.refused) }
            }
        }
    }

    struct Ack: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ack", abstract: "I'm up: answer the alarms that are ringing tonight.")
        @OptionGroup var options: GlobalOptions

        func run() throws {
            try Output.run(options) { context in
                let answer = try context.app.alarms.acknowledge(from: .cli)
                Output.show(json: options.json, answer, answer.message)
            }
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "A night's alarms: where each went and who answered it (default tonight).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The night's date, YYYY-MM-DD (default: the open night).") var date: String?

        func run() throws {
            try Output.run(options) { context in
                let key = try date.map { text throws(DoseError) in
                    guard let key = SessionKey(parsing: text) else {
                        throw .invalidInput(field: "date", problem: "'\(text)' is not a date", allowed: "YYYY-MM-DD")
                    }
                    return key
                }
                let logs = try context.app.alarms.logs(on: key)
                Output.show(json: options.json, logs, logs.lines.isEmpty ? "No alarm has gone off." : logs.lines.joined(separator: "\n"))
            }
        }
    }
}
