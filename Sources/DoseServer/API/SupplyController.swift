import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The medication supply (SPEC §3.9): what is left, refills, counted adjustments and removing an entry.
/// Every handler reads the request's own use cases (`context.useCases`), so nothing is made per request.
enum SupplyController {
    /// The routes, under `/v1`.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("supply") { request, context in Reply.json(SupplyResponse(try context.useCases.supply.report())) }
        routes.post("supply/refills") { request, context in
            let body = try await JSONBody.read(RefillBody.self, request)
            let entry = try context.useCases.supply.logRefill(
                bottles: body.bottles, ml: body.ml, at: body.timestamp, reason: body.reason)
            return try Self.supplyEntry(entry, context, status: .created)
        }
        routes.post("supply/adjustments") { request, context in
            let body = try await JSONBody.read(AdjustmentBody.self, request)
            let entry = try context.useCases.supply.adjust(
                changeML: body.changeML, countedML: body.countedML, at: body.timestamp, reason: body.reason)
            return try Self.supplyEntry(entry, context, status: .created)
        }
        routes.delete("supply/entries/:id") { request, context in
            try Self.supplyEntry(try context.useCases.supply.delete(context.parameters.get("id") ?? ""), context)
        }
        return routes
    }

    /// A supply entry with the supply it leaves.
    static func supplyEntry(_ entry: InventoryEntry, _ context: DoseRequestContext, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = SupplyEntryResponse(entry: InventoryEntryResponse(entry), supply: SupplyResponse(try context.useCases.supply.report()))
        return Reply.json(JSONValue(response: body), status: status)
    }
}
