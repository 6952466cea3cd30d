import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// The Supply page: what is left and until when, a refill in one tap, corrections with their reason, and the ledger.
struct SupplyPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/supply") { request, context in
            try Self(context).supply(context, flash: request.uri.queryParameters["saved"].map { _ in "Saved." })
        }
        routes.post("/ui/supply/refill") { request, context in try await Self(context).saveSupply(request, context, kind: .refill) }
        routes.post("/ui/supply/adjust") { request, context in try await Self(context).saveSupply(request, context, kind: .adjustment) }
        routes.post("/ui/supply/delete") { request, context in
            _ = try context.useCases.supply.delete(try await Self(context).form(request, context, as: ChosenForm.self).id)
            return WebPages.redirect("/supply?saved=1")
        }
        return routes
    }

    struct SupplyView {
        struct Entry {
            let id, when, what: String
            let reason: String?
        }

        struct Figure {
            let label, value: String
        }

        let frame: Frame
        let banner: String?
        let csrf: String
        let summary: String
        let low: Bool
        let tracked: Bool
        let figures: [Figure]
        let bottles: [Field.Option]
        let bottleML: Int
        let leadDays, marginDays: Int
        let reminderTime: String
        let entries: [Entry]
        let hasEntries: Bool
    }

    func supply(_ context: DoseRequestContext, flash: String? = nil, banner: String? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        let report = try environment.useCases().supply.report()
        let state = report.status
        let zone = report.timeZone
        var figures: [SupplyView.Figure] = []
        if state.isTracked {
            figures = [
                .init(
                    label: "Left",
                    value:
                        "\(NumberText.plain(state.shown.ml)) mL · \(NumberText.plain(state.shown.grams)) g"),
                .init(label: "Full nights", value: String(state.nightsLeft)),
                .init(label: "Runs out", value: state.runsOutOn.map { "night of \($0)" } ?? "—"),
                .init(
                    label: "Order by",
                    value:
                        "\(state.lowThresholdNights) nights left (lead \(report.settings.pharmacyLeadDays) + margin "
                        + "\(report.settings.refillMarginDays) days)"
                ),
            ]
        }
        let entries = report.entries.reversed().map { entry in
            SupplyView.Entry(
                id: entry.id, when: SettingsView.day(entry.occurredAt, zone) + " " + LocalClock.hourMinute(entry.occurredAt, in: zone),
                what: SupplyText.entry(entry), reason: entry.reason)
        }
        var frame = Frame("Supply", current: "/settings")
        frame.flash = flash
        let view = SupplyView(
            frame: frame, banner: banner, csrf: csrf(context), summary: SupplyText.summary(report), low: state.isLow, tracked: state.isTracked,
            figures: figures,
            bottles: (1...4).map {
                Field.Option(inputType: "radio", name: "bottles", value: String($0), label: "\($0) bottle\($0 == 1 ? "" : "s")", checked: $0 == 1)
            },
            bottleML: report.settings.bottleML, leadDays: report.settings.pharmacyLeadDays, marginDays: report.settings.refillMarginDays,
            reminderTime: report.settings.refillReminderTime.description, entries: entries, hasEntries: !entries.isEmpty)
        return try Templates.page("supply", view, status: status)
    }

    func saveSupply(_ request: Request, _ context: DoseRequestContext, kind: InventoryKind) async throws -> Response {
        let fields = try await form(request, context)
        let service = environment.useCases().supply
        do {
            let entry = try BodyDecoder.decode(SupplyForm.self, form: fields)
            if kind == .refill {
                _ = try service.logRefill(bottles: entry.ml == nil ? entry.bottles : nil, ml: entry.ml, at: nil, reason: entry.reason)
            } else {
                let value = entry.ml
                let change: Double? =
                    switch entry.direction {
                    case "add": value
                    case "remove": value.map { -$0 }
                    default: nil
                    }
                let counted = entry.direction == "count" ? value : nil
                if value == nil {
                    throw DoseError.invalidInput(field: "ml", problem: "no amount was given", allowed: "the mL added, removed or counted")
                }
                _ = try service.adjust(changeML: change, countedML: counted, at: nil, reason: entry.reason)
            }
        } catch let error as DoseError {
            return try supply(context, banner: error.message, status: .badRequest)
        }
        return WebPages.redirect("/supply?saved=1")
    }
}
