import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// The alarms (SPEC §3.5): Web Push subscriptions, "I'm up", a night's alarm log and the test alarm.
struct AlarmController: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var channels: AlarmChannels { site.channels }

    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("push/subscriptions") { request, context in try Self(context).subscriptions() }
        routes.post("push/subscriptions") { request, context in try await Self(context).subscribe(request, context) }
        routes.delete("push/subscriptions") { request, context in try await Self(context).unsubscribe(request) }
        routes.post("alarm/ack") { request, context in try await Self(context).acknowledge(request, context) }
        routes.post("alarm/test") { request, context in try await Self(context).test(request) }
        routes.get("alarm/log") { request, context in try Self(context).log(request) }
        return routes
    }

    func subscriptions() throws -> Response {
        let alarms = environment.useCases().alarms
        let listed = try alarms.subscriptions().map { PushSubscriptionResponse($0.subscription, deviceName: $0.deviceName) }
        return Reply.json(JSONValue(response: PushSubscriptionsResponse(vapidPublicKey: try alarms.vapid().publicKey, subscriptions: listed)))
    }

    func subscribe(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let subscription = try await JSONBody.read(PushSubscriptionBody.self, request).subscription(targets: environment.outbound)
        guard let device = context.device else { throw DoseError.deviceNotRegistered }
        let saved = try environment.useCases().alarms.subscribe(subscription, device: device.id)
        return Reply.json(JSONValue(response: PushSubscriptionResponse(saved, deviceName: device.name)), status: .created)
    }

    func unsubscribe(_ request: Request) async throws -> Response {
        let endpoint = try await JSONBody.read(PushSubscriptionBody.self, request).endpointToRemove()
        let removed = try environment.useCases().alarms.unsubscribe(endpoint)
        return Reply.json(
            JSONValue(
                dictionaryLiteral: ("removed", JSONValue(response: PushSubscriptionResponse(removed.subscription, deviceName: removed.deviceName)))))
    }

    func acknowledge(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        // `{}` or `{"via": "push"}` (a notification's own "I'm up", posted by the service worker).
        let via = try await JSONBody.read(AlarmAckBody.self, request).via
        guard via == nil || via == "push" else {
            throw DoseError.invalidInput(field: "via", problem: "'\(via ?? "")' is not a surface", allowed: "push, or leave it out")
        }
        let surface: AlarmSurface = via == "push" ? .push : context.viaCookie ? .page : .api
        return Reply.json(JSONValue(response: try environment.useCases().alarms.acknowledge(from: surface)))
    }

    func test(_ request: Request) async throws -> Response {
        _ = try await JSONBody.read(EmptyBody.self, request)
        return Reply.json(JSONValue(response: await channels.test().coarse()))
    }

    func log(_ request: Request) throws -> Response {
        let date = try request.uri.queryParameters["date"].map { try APIInput.date(String($0), field: "date") }
        return Reply.json(JSONValue(response: try environment.useCases().alarms.logs(on: date)))
    }
}
