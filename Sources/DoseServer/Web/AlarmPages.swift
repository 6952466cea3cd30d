import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// Settings' alarm section: Web Push on this phone and the escalation contact's, the subscriptions and their removal,
/// the re-fire and escalation settings, and the test alarm.
struct AlarmPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var channels: AlarmChannels { site.channels }
    var settings: SettingsPages { SettingsPages(site: site) }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.post("/ui/push/remove") { request, context in try await Self(context).removeSubscription(request, context) }
        routes.post("/ui/alarm/test") { request, context in try await Self(context).testAlarm(request, context) }
        return routes
    }

    func removeSubscription(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let removed = try environment.useCases().alarms.unsubscribe(try await form(request, context, as: ChosenForm.self).id)
        return try settings.settings(
            context, flash: "\(removed.deviceName.isEmpty ? "That device" : removed.deviceName) will no longer get alarms by push.")
    }

    func testAlarm(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        _ = try await form(request, context)
        let report = await channels.test().coarse()
        return try settings.settings(context, flash: report.message, test: report)
    }
}

/// What Settings shows of the alarms.
struct AlarmSettingsView {
    struct Subscription {
        let id, device, service, role, since: String
        let this: Bool
    }

    struct Option {
        let value, label: String
        let checked: Bool
    }

    let vapidKey: String
    let subscriptions: [Subscription]
    let hasSubscriptions: Bool
    let refire: [Option]
    let escalationEnabled: Bool
    let points: [Option]
    let contact: String
    let formats: [Option]
    /// The last test alarm's lines, when this page answers one.
    let test: [String]
    let hasTest: Bool

    init(_ app: UseCases, settings: DoseSettings, zone: TimeZone, thisDevice: String?, test report: AlarmTestResponse?) throws {
        vapidKey = try app.alarms.vapid().publicKey
        subscriptions = try app.alarms.subscriptions().map { subscription, device in
            Subscription(
                id: subscription.id, device: device, service: URLComponents(string: subscription.endpoint)?.host ?? "?",
                role: subscription.role == .alarm ? "alarms" : "escalation contact", since: SettingsView.day(subscription.createdAt, zone),
                this: subscription.deviceID == thisDevice)
        }
        hasSubscriptions = !subscriptions.isEmpty
        refire = DoseSettings.wakeAlarmRefireRange.map {
            Option(value: String($0), label: $0 == 0 ? "Off" : "\($0) min", checked: $0 == settings.wakeAlarmRefireMinutes)
        }
        escalationEnabled = settings.escalationEnabled
        var minutes = Array(
            stride(from: DoseSettings.escalationMinutesRange.lowerBound, through: DoseSettings.escalationMinutesRange.upperBound, by: 5))
        if !minutes.contains(settings.escalationMinutes) { minutes = (minutes + [settings.escalationMinutes]).sorted() }
        points = minutes.map { minute in
            let left = DoseWindow.label.closesAfterMinutes - minute
            return Option(
                value: String(minute), label: "\(minute) min (\(left) min before the close)", checked: minute == settings.escalationMinutes
            )
        }
        contact = settings.escalationContact
        formats = DoseSettings.escalationContactFormats.map {
            Option(value: $0, label: $0 == "ntfy" ? "ntfy topic" : "JSON webhook", checked: $0 == settings.escalationContactFormat)
        }
        test = report?.lines ?? []
        hasTest = report != nil
    }
}
