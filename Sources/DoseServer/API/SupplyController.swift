import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The medication supply (SPEC §3.9): what is left, refills, counted adjustments and removing an entry.
struct SupplyController {
    let environment: AppEnvironment

    /// The routes, under `/v1`.
    var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("supply") { _, _ in Reply.json(SupplyResponse(try environment.useCases().supply.report())) }
        routes.post("supply/refills") { request, _ in
            let body = try await JSONBody.read(RefillBody.self, request)
            let entry = try environment.useCases().supply.logRefill(bottles: body.bottles, ml: body.ml, at: body.timestamp, reason: body.reason)
            return try supplyEntry(entry, status: .created)
        }
        routes.post("supply/adjustments") { request, _ in
            let body = try await JSONBody.read(AdjustmentBody.self, request)
            let entry = try environment.useCases().supply.adjust(
                changeML: body.changeML, countedML: body.countedML, at: body.timestamp, reason: body.reason)
            return try supplyEntry(entry, status: .created)
        }
        routes.delete("supply/entries/:id") { _, context in
            try supplyEntry(try environment.useCases().supply.delete(context.parameters.get("id") ?? ""))
        }
        return routes
    }

    /// A supply entry with the supply it leaves.
    func supplyEntry(_ entry: InventoryEntry, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = SupplyEntryResponse(entry: InventoryEntryResponse(entry), supply: SupplyResponse(try environment.useCases().supply.report()))
        return Reply.json(JSONValue(response: body), status: status)
    }
}
