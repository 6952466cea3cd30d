import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// History (filters, order, pages, deleting a night), the Settings page (preferences, the quick-log grid, devices,
/// data) and Clear All Data with its two steps. Every change is a form post with the page's CSRF token; anything
/// that cannot be undone asks first on a page of its own.
extension WebRoutes {
    func registerManagement(on router: Router<DoseRequestContext>) {
        router.get("/history") { request, context in try history(request, context) }
        router.get("/history/delete") { request, context in try confirmDelete(request, context) }
        router.post("/ui/history/delete") { request, context in try await deleteNight(request, context) }
        router.post("/ui/devices/revoke") { request, context in try await revokeDevice(request, context) }
        router.get("/settings/clear") { _, context in clearAllPage(context, problem: nil) }
        router.post("/ui/clear-all") { request, context in try await clearAll(request, context) }
    }

    func history(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let parameters = request.uri.queryParameters
        func value(_ name: String) -> String? { parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        var query = HistoryQuery()
        query.from = try value("from").map { try APIRoutes.date($0, field: "from") }
        query.to = try value("to").map { try APIRoutes.date($0, field: "to") }
        if let filter = value("filter") {
            if HistoryQuery.categoryNames.contains(filter) { query.categories = [filter] } else { query.types = [filter] }
        }
        if let sort = value("sort") {
            guard let order = HistorySort(rawValue: sort) else {
                throw DoseError.invalidInput(field: "sort", problem: "'\(sort)'", allowed: HistorySort.allCases.map(\.rawValue).joined(separator: ", "))
            }
            query.sort = order
        }
        query.grouping = .none
        query.limit = 14
        if let page = value("page") {
            guard let number = Int(page) else { throw DoseError.invalidInput(field: "page", problem: "'\(page)'", allowed: "1 or more") }
            query.page = number
        }
        let clock = environment.clock()
        let zone = try environment.ledger.settings(clock: clock).timeZone
        let result = try environment.ledger.history(query, clock: clock)
        var body = "<h1>History</h1>"
        if let deleted = value("deleted") { body += "<p class=\"notice\" role=\"status\">The night of \(HTML.escape(deleted)) was deleted.</p>" }
        // A GET form: the filters live in the address, so Back and reload keep them.
        let filters = ["", "dose", "checkin"] + SleepEventCategory.allCases.map(\.rawValue) + SleepEventCatalogue.standard.definitions.map(\.type.rawValue)
        body += "<form method=\"get\" action=\"/history\" class=\"filters\">"
        body += "<div class=\"row\"><div><label for=\"from\">From</label><input type=\"date\" id=\"from\" name=\"from\" value=\"\(HTML.escape(value("from") ?? ""))\"></div>"
        body += "<div><label for=\"to\">To</label><input type=\"date\" id=\"to\" name=\"to\" value=\"\(HTML.escape(value("to") ?? ""))\"></div></div>"
        body += "<div class=\"row\"><div><label for=\"filter\">Show</label><select id=\"filter\" name=\"filter\">"
        body += filters.map { "<option value=\"\($0)\"\($0 == (value("filter") ?? "") ? " selected" : "")>\($0.isEmpty ? "everything" : HTML.escape($0))</option>" }.joined()
        body += "</select></div><div><label for=\"sort\">Order</label><select id=\"sort\" name=\"sort\">"
        let orders: [(HistorySort, String)] = [(.newest, "newest first"), (.oldest, "oldest first"), (.az, "events A–Z"), (.za, "events Z–A")]
        body += orders.map { "<option value=\"\($0.0.rawValue)\"\($0.0 == query.sort ? " selected" : "")>\($0.1)</option>" }.joined()
        body += "</select></div></div><div class=\"row\"><button type=\"submit\" class=\"button\">Show</button></div></form>"
        let nights = result.groups.flatMap(\.nights)
        if nights.isEmpty { body += "<p>No nights match.</p>" }
        for night in nights {
            let facts = NightFacts(night.session.events)
            let date = night.session.date.description
            let outcome = night.session.isOpen ? "open" : night.terminalState?.rawValue ?? ""
            body += "<section class=\"night\"><h2>\(date) <span class=\"times\">\(HTML.escape(outcome))</span></h2>"
            body += "<p class=\"times\">Dose 1 \(WebPages.clock(facts.dose1?.occurredAt, zone)) · Dose 2 \(WebPages.clock(facts.dose2?.occurredAt, zone))"
            body += night.intervalMinutes.map { " · \($0) min" } ?? ""
            body += night.checkIn.map { " · check-in \($0.sleepQuality)/5" } ?? ""
            body += "</p>"
            if !night.shownEvents.isEmpty {
                body += "<p class=\"events\">" + night.shownEvents.map { "\(WebPages.clock($0.occurredAt, zone)) \(HTML.escape($0.kind.label))" }.joined(separator: " · ") + "</p>"
            }
            body += "<p><a class=\"button\" href=\"/history/delete?date=\(date)\">Delete this night…</a></p></section>"
        }
        if result.pageCount > 1 {
            func link(_ page: Int, _ label: String) -> String {
                var items = URLComponents()
                items.queryItems = ["from", "to", "filter", "sort"].compactMap { name in value(name).map { URLQueryItem(name: name, value: $0) } } + [URLQueryItem(name: "page", value: String(page))]
                return "<a class=\"button\" href=\"/history?\(HTML.escape(items.percentEncodedQuery ?? ""))\">\(label)</a>"
            }
            body += "<div class=\"row\">" + (result.page > 1 ? link(result.page - 1, "Newer") : "<span></span>")
            body += "<span class=\"times\">Page \(result.page) of \(result.pageCount)</span>" + (result.page < result.pageCount ? link(result.page + 1, "Older") : "<span></span>") + "</div>"
        }
        return WebPages.html(HTML.page(title: "History", current: "/history", body: body))
    }

    func confirmDelete(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let date = try APIRoutes.date(request.uri.queryParameters["date"].map(String.init) ?? "", field: "date")
        let nights = try environment.ledger.nights(on: date, clock: environment.clock())
        guard !nights.isEmpty else { throw DoseError.notFound(what: "A night dated \(date)") }
        let events = nights.reduce(0) { $0 + $1.session.events.count }
        let body = """
            <h1>Delete the night of \(date)?</h1>
            <p class="notice" role="alert">Its \(events) events, check-in, pre-sleep log and medication entries are deleted for good. This cannot be undone.</p>
            <div class="row"><a class="button" href="/history">Keep it</a>\(HTML.form(action: "/ui/history/delete", csrf: csrf(context), fields: [("date", date.description)], button: "Delete the night", className: "button primary"))</div>
            """
        return WebPages.html(HTML.page(title: "Delete a night", current: "/history", body: body))
    }

    func deleteNight(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let date = try APIRoutes.date(fields["date"] ?? "", field: "date")
        _ = try environment.ledger.deleteNights(on: date, clock: environment.clock())
        return WebPages.redirect("/history?deleted=\(date)")
    }

    func settings(_ context: DoseRequestContext, message: String?) throws -> Response {
        let clock = environment.clock()
        let settings = try environment.ledger.settings(clock: clock)
        var body = "<h1>Settings</h1>"
        if let message { body += "<p class=\"notice\" role=\"status\">\(HTML.escape(message))</p>" }
        body += "<form method=\"post\" action=\"/ui/settings\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf(context))\">"
        func select(_ key: String, _ label: String, _ options: [String]) -> String {
            let current = (try? settings.value(of: key)) ?? ""
            return "<label for=\"\(key)\">\(label)</label><select id=\"\(key)\" name=\"\(key)\">" + options.map { "<option\($0 == current ? " selected" : "")>\($0)</option>" }.joined() + "</select>"
        }
        body += select("target_interval", "Target interval (minutes after Dose 1)", DoseSettings.targetIntervalOptions.map(String.init))
        body += select("allow_snoozing", "Allow snoozing", ["true", "false"])
        body += select("max_snoozes", "Snoozes per night", DoseSettings.maxSnoozesRange.map(String.init))
        body += select("undo_window_seconds", "Undo speed (seconds)", DoseSettings.undoWindowOptions.map(String.init))
        body += select("reminders_enabled", "Reminders", ["true", "false"])
        body += "<label for=\"time_zone\">Time zone</label><input id=\"time_zone\" name=\"time_zone\" value=\"\(HTML.escape(settings.timeZoneID))\">"
        body += "<fieldset><legend>Quick-log grid on Tonight (up to \(DoseSettings.quickLogRange.upperBound))</legend><div class=\"checks\">"
        for definition in SleepEventCatalogue.standard.definitions {
            let name = definition.type.rawValue
            body += "<label class=\"check\"><input type=\"checkbox\" name=\"quick_log\" value=\"\(name)\"\(settings.quickLog.contains(name) ? " checked" : "")> \(HTML.escape(definition.label))</label>"
        }
        body += "</div></fieldset><div class=\"row\"><button type=\"submit\" class=\"button primary\">Save</button></div></form>"

        body += "<h2>Devices</h2><table><tbody>"
        for device in try environment.ledger.devices() where device.revokedAt == nil {
            let this = device.id == context.device?.id ? " (this browser)" : ""
            body += "<tr><td>\(HTML.escape(device.name))\(this)</td><td>\(HTML.form(action: "/ui/devices/revoke", csrf: csrf(context), fields: [("id", device.id)], button: "Revoke", label: "Revoke \(device.name)"))</td></tr>"
        }
        body += "</tbody></table><p class=\"times\">Pair another device with the link <code>dosetap serve</code> prints, or <code>dosetap device add NAME</code>.</p>"

        body += "<h2>Data</h2><div class=\"row\"><a class=\"button\" href=\"/v1/export\">Export bundle</a><a class=\"button\" href=\"/v1/export/events.csv\">events.csv</a><a class=\"button\" href=\"/v1/analytics/export\">Analytics</a></div>"
        body += "<form data-import><label for=\"import-file\">Import a bundle, an events.csv or the original app's database</label><input type=\"file\" id=\"import-file\" name=\"file\">"
        body += "<input type=\"hidden\" name=\"csrf\" value=\"\(csrf(context))\"><div class=\"row\"><button type=\"submit\" class=\"button\">Import</button></div><p data-import-report role=\"status\"></p></form>"
        body += "<noscript><p class=\"times\">Importing from this page needs JavaScript; <code>dosetap import FILE</code> always works.</p></noscript>"
        body += "<div class=\"row\"><a class=\"button\" href=\"/settings/clear\">Clear All Data…</a></div>"
        return WebPages.html(HTML.page(title: "Settings", current: "/settings", body: body))
    }

    func revokeDevice(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let device = try environment.ledger.revokeDevice(fields["id"] ?? "", clock: environment.clock())
        // Revoking this browser unpairs it: the next page says so.
        return device.id == context.device?.id ? WebPages.redirect("/") : try settings(context, message: "\(device.name) can no longer use DoseTap.")
    }

    /// Step two of Clear All Data: the consequences, and the phrase typed out.
    func clearAllPage(_ context: DoseRequestContext, problem: String?) -> Response {
        var body = "<h1>Clear All Data?</h1>"
        body += "<p class=\"notice\" role=\"alert\">Every night, dose, event, check-in, pre-sleep log, medication entry, setting and paired device is deleted, and the files are compacted so nothing can be recovered. Export a bundle first if you may want it back.</p>"
        if let problem { body += "<p class=\"warning\" role=\"alert\">\(HTML.escape(problem))</p>" }
        body += "<form method=\"post\" action=\"/ui/clear-all\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf(context))\">"
        body += "<label for=\"phrase\">Type: <strong>\(HTML.escape(NightLedger.clearAllPhrase))</strong></label><input id=\"phrase\" name=\"phrase\" autocomplete=\"off\">"
        body += "<div class=\"row\"><a class=\"button\" href=\"/settings\">Keep my data</a><button type=\"submit\" class=\"button primary\">Clear All Data</button></div></form>"
        return WebPages.html(HTML.page(title: "Clear All Data", current: "/settings", body: body))
    }

    func clearAll(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        guard fields["phrase"] == NightLedger.clearAllPhrase else {
            return clearAllPage(context, problem: "The phrase does not match, so nothing was deleted.")
        }
        let report = try environment.ledger.clearAll(confirmation: NightLedger.clearAllPhrase)
        let body = "<h1>All data cleared</h1><p class=\"notice\" role=\"status\">\(report.deleted.values.reduce(0, +)) rows deleted; none remain. This browser is no longer paired: restart <code>dosetap serve</code> for a new pairing link.</p>"
        return WebPages.html(HTML.page(title: "Cleared", current: "", body: body))
    }
}
