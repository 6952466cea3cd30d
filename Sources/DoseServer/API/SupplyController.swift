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
            let (bottles, ml, at, reason) = try RequestBodies.refill(try await JSONBody.read(request))
            return try supplyEntry(try environment.useCases().supply.logRefill(bottles: bottles, ml: ml, at: at, reason: reason), status: .created)
        }
        routes.post("supply/adjustments") { request, _ in
            let (change, counted, at, reason) = try RequestBodies.adjustment(try await JSONBody.read(request))
            return try supplyEntry(
                try environment.useCases().supply.adjust(changeML: change, countedML: counted, at: at, reason: reason), status: .created)
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
