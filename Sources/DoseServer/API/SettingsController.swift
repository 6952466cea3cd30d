import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Settings and insights (SPEC §5.3): read and change the settings, the period's figures, and the weekly planner's apply.
struct SettingsController: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("settings") { request, context in
            Reply.json(JSONValue(response: SettingsResponse(try context.useCases.settings.current())))
        }
        routes.patch("settings") { request, context in try await Self(context).updateSettings(request, context) }
        routes.get("insights") { request, context in try Self(context).insights(request) }
        routes.post("insights/planner") { request, context in try await Self(context).applyPlanner(request) }
        return routes
    }

    func updateSettings(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let body = try await JSONBody.read(SettingsBody.self, request)
        let settings = try environment.useCases().settings.update(body.changes, confirmations: body.confirmations)
        return Reply.json(JSONValue(response: SettingsResponse(settings)))
    }

    func insights(_ request: Request) throws -> Response {
        let (nights, from, to) = try APIInput.period(request)
        let result = try environment.useCases().insights.insights(nights: nights, from: from, to: to)
        return Reply.json(InsightsResponse(result.insights, planner: result.planner))
    }

    func applyPlanner(_ request: Request) async throws -> Response {
        let body = try await JSONBody.read(PlannerBody.self, request)
        let (minutes, confirmed) = (body.targetInterval, body.confirm ?? false)
        let applied = try environment.useCases().insights.applyPlanner(minutes: minutes, confirmed: confirmed)
        return Reply.json(JSONValue(response: SettingsResponse(applied.settings)))
    }
}
