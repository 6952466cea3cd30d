import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Settings: preferences and the quick-log grid, devices (rename, unpair, pair another), and Clear All Data with its
/// two steps. Every change is a form post with the page's CSRF token; anything that cannot be undone asks first on a
/// page of its own, with keeping things as the filled button.
struct SettingsPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var pairing: PairingCodes { site.pairing }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/settings") { request, context in
            try Self(context).settings(context, flash: request.uri.queryParameters["saved"].map { _ in "Settings saved." })
        }
        routes.post("/ui/settings") { request, context in try await Self(context).saveSettings(request, context) }
        routes.post("/ui/devices/revoke") { request, context in try await Self(context).revokeDevice(request, context) }
        routes.post("/ui/devices/rename") { request, context in try await Self(context).renameDevice(request, context) }
        routes.post("/ui/devices/pair") { request, context in try await Self(context).pairAnother(request, context) }
        routes.get("/settings/clear") { request, context in
            try Templates.page("clear-all", ClearAllView(csrf: Self(context).csrf(context), problem: nil))
        }
        routes.post("/ui/clear-all") { request, context in try await Self(context).clearAll(request, context) }
        return routes
    }

    func settings(
        _ context: DoseRequestContext, flash: String?, pairing: String? = nil, test: AlarmTestResponse? = nil, titration: TitrationField? = nil,
        status: HTTPResponse.Status? = nil
    ) throws -> Response {
        let app = environment.useCases()
        let settings = try app.settings.current()
        let zone = try app.settings.zone()
        var view = SettingsView(
            frame: Frame("Settings", current: "/settings", flash: flash), csrf: csrf(context), settings: settings,
            devices: try environment.useCases().devices.all(), thisDevice: context.device?.id, zone: zone, pairing: pairing,
            alarms: try AlarmSettingsView(app, settings: settings, zone: zone, thisDevice: context.device?.id, test: test),
            tonight: SessionKey(for: environment.now(), in: zone))
        view.shared = environment.store.shared != nil
        view.isOperator = try app.operatorPage.isOperator()
        if let titration { view.titration = titration }
        return try Templates.page("settings", view, status: status ?? (titration?.refusal == nil ? .ok : .badRequest))
    }

    func saveSettings(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let app = environment.useCases()
        let current = try app.settings.current()
        var posted = fields
        // A switch that is off sends nothing, so each form names the switches it showed.
        let shown = Set((fields["switches"] ?? "").split(separator: ",").map(String.init))
        for key in SettingsView.switches.map(\.rawValue) where shown.contains(key) { posted[key] = fields[key] == "true" ? "true" : "false" }
        // The medication form takes amounts in grams, as setup does.
        switch Self.milligrams(fields) {
        case .success(let amounts): posted.merge(amounts) { _, new in new }
        case .failure(let error): return try settings(context, flash: error.message, status: .badRequest)
        }
        // A value that reads as the one in force is no change (the plan's box shows a step a line, the setting stores them
        // on one); one that does not read is sent on, to be refused by name.
        func unchanged(_ key: String, _ value: String) -> Bool {
            (try? current.setting(key, to: value).value(of: key)).map { $0 == (try? current.value(of: key)) } ?? false
        }
        let changes = DoseSettings.keys.compactMap { key in posted[key].flatMap { unchanged(key, $0) ? nil : (key, $0) } }
        let confirmations: Set<ConfirmKind> = fields[SetupWizard.fastTitrationAnswer] == "yes" ? [.fastTitration] : []
        do {
            if !changes.isEmpty { _ = try app.settings.update(changes, confirmations: confirmations) }
        } catch let error as DoseError where changes.contains(where: { $0.0 == SettingKey.titration.rawValue }) {
            // The plan is shown again as typed, with the refusal beside it (and, for a fast step, the box to confirm it).
            return try settings(context, flash: nil, titration: TitrationField(typed: posted[SettingKey.titration.rawValue] ?? "", refusal: error))
        } catch let error as DoseError where error.code == .invalidInput {
            // A refused product, regimen or amount is said on the page, nothing saved.
            return try settings(context, flash: error.message, status: .badRequest)
        }
        // The Supply page's refill-reminder form goes back to the Supply page.
        return WebPages.redirect(fields["return"] == "supply" ? "/supply?saved=1" : "/settings?saved=1")
    }

    /// The medication form's amounts in grams as the settings' milligrams, or the first that does not read.
    static func milligrams(_ fields: [String: String]) -> Result<[String: String], DoseError> {
        var amounts: [String: String] = [:]
        for (grams, key) in [("dose1_g", SettingKey.dose1Milligrams), ("dose2_g", .dose2Milligrams)] {
            guard let typed = fields[grams], !typed.isEmpty else { continue }
            switch Result(catching: { () throws(DoseError) in try SetupWizard.milligrams(fromGrams: typed, field: grams) }) {
            case .success(let milligrams): amounts[key.rawValue] = String(milligrams)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(amounts)
    }

    func revokeDevice(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let chosen = try await form(request, context, as: ChosenForm.self)
        let device = try environment.useCases().devices.revoke(chosen.id)
        // Unpairing this browser: the next page says so.
        return device.id == context.device?.id ? WebPages.redirect("/") : try settings(context, flash: "\(device.name) can no longer use DoseTap.")
    }

    func renameDevice(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let rename = try await form(request, context, as: RenameForm.self)
        let device = try environment.useCases().devices.rename(rename.id, to: rename.name)
        return try settings(context, flash: "Renamed to \(device.name).")
    }

    /// A new one-time link for another phone or computer, shown on this page.
    func pairAnother(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        _ = try await form(request, context)
        let code = await pairing.issue(now: environment.now(), random: environment.random, for: environment.store.personID)
        let host = request.head.authority ?? "localhost"
        let scheme = WebPages.isHTTPS(request, context) ? "https" : "http"
        return try settings(context, flash: "A pairing link is ready below.", pairing: "\(scheme)://\(host)/pair?code=\(code)")
    }

    struct ClearAllView {
        let frame = Frame("Clear All Data", current: "/settings")
        let csrf: String
        let problem: String?
        let phrase = AppDatabase.clearAllPhrase
    }

    func clearAll(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        guard try await form(request, context, as: ClearAllForm.self).phrase == AppDatabase.clearAllPhrase else {
            return try Templates.page("clear-all", ClearAllView(csrf: csrf(context), problem: "The phrase does not match, so nothing was deleted."))
        }
        let report = try environment.useCases().transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Cleared", current: ""), heading: "All data cleared",
                message:
                    "\(report.deleted.values.reduce(0, +)) rows deleted; none remain. This browser is no longer paired: restart `dosetap "
                    + "serve` for a new pairing link.",
                link: nil))
    }
}
