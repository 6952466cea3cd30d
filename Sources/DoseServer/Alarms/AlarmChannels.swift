public import DoseApp
public import DoseCore
import DoseStore
import Foundation

/// Every channel of a notice: the configured ones of its audience, Web Push subscriptions of its role, and for the
/// escalation contact the ntfy topic or webhook of the settings.
public struct AlarmChannels: Sendable {
    let environment: AppEnvironment
    /// Configured at start (pages, `--webhook`, `--on-reminder`).
    let configured: [any ReminderDelivery]
    /// Web Push; nil sends none (tests of other channels).
    let push: PushOptions?

    public init(environment: AppEnvironment, configured: [any ReminderDelivery], push: PushOptions?) {
        self.environment = environment
        self.configured = configured
        self.push = push
    }

    /// The channels a notice for `audience` goes out on, under `settings`.
    public func channels(for audience: ReminderAudience, settings: DoseSettings?) -> [any ReminderDelivery] {
        var channels = configured.filter { $0.audience == audience }
        if let push { channels.append(PushDelivery(environment: environment, role: audience == .sleeper ? .alarm : .contact, options: push)) }
        if audience == .contact, let settings, !settings.escalationContact.isEmpty {
            let format = WebhookDelivery.Format(rawValue: settings.escalationContactFormat) ?? .ntfy
            channels.append(
                WebhookDelivery(url: settings.escalationContact, format: format, audience: .contact, environment: environment, checkingTargets: true))
        }
        return channels
    }

    /// Whether any page is open on this instance's event stream (a page of the person, or a grantee's page of theirs).
    func hasOpenPages() async -> Bool {
        for case let hub as EventHub in configured where await hub.count > 0 { return true }
        return false
    }

    /// Delivers notices in order, each on all its channels at once; returns when every attempt has ended.
    func deliver(_ notices: [ReminderNotice], settings: DoseSettings?, log: DeliveryLog) async {
        for notice in notices {
            await withTaskGroup(of: Void.self) { group in
                for channel in channels(for: notice.audience, settings: settings) { group.addTask { await channel.deliver(notice, log: log) } }
            }
        }
    }

    /// Sends a test notice on every channel, the escalation contact's included, and reports each attempt.
    public func test() async -> AlarmTestResponse {
        let now = environment.now()
        let settings = try? environment.useCases().settings.current()
        let log = DeliveryLog(recordingTo: environment)
        let contact = ReminderNotice.test(for: .contact, at: now)
        let contactChannels = channels(for: .contact, settings: settings)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await deliver([ReminderNotice.test(for: .sleeper, at: now)], settings: settings, log: log) }
            for channel in contactChannels { group.addTask { await channel.deliver(contact, log: log) } }
        }
        return AlarmTestResponse(sentAt: now, attempts: log.all)
    }
}
