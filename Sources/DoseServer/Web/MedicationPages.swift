import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Medications other than oxybate, logged from the catalogue in two steps that work without JavaScript.
struct MedicationPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/medications") { request, context in try Self(context).medications(request, context) }
        routes.post("/ui/medications") { request, context in try await Self(context).logMedication(request, context) }
        return routes
    }

    /// Medications in two steps that work without JavaScript: choose the medicine, then choose one of its doses or
    /// type another. Nothing is ever logged with an amount nobody chose.
    func medications(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let app = environment.useCases()
        let zone = try app.settings.zone()
        let chosen = try request.uri.queryParameters["medication"].map { try MedicationCatalogue.medication(id: String($0)) }
        let recent = try environment.useCases().medications.list(limit: 10)
        let logged = request.uri.queryParameters["logged"].map(String.init)
        let flash = recent.first { $0.id == logged }.map {
            "\($0.medication.name) \(NumberText.plain($0.doseMg)) mg logged at \(WebPages.clock($0.takenAt, zone))."
        }
        return try Templates.page(
            "medications",
            MedicationsView(
                frame: Frame("Medications", current: "", flash: flash), csrf: csrf(context),
                chosen: chosen, recent: recent, zone: zone))
    }

    /// Logs the amount the form sent, in its unit; a missing or malformed amount is refused, never replaced.
    func logMedication(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let entry = try await form(request, context, as: MedicationForm.self)
        let medication = try MedicationCatalogue.medication(id: entry.medication)
        let (amount, unit) = try MedicationEntryText.amount(entry.otherAmount ?? entry.amount ?? "", unit: entry.unit ?? "", for: medication)
        let confirmations: Set<ConfirmKind> = entry.confirm == "duplicate" ? [.duplicate] : []
        let note = entry.note
        let app = environment.useCases()
        let records = try app.medications.log(
            [MedicationInput(medicationID: medication.id, amount: amount, unit: unit, note: note)],
            confirmations: confirmations)
        return WebPages.redirect("/medications?logged=\(records.first?.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
    }
}
