import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages and their form posts.
struct WebRoutes {
    let environment: ServerEnvironment
    let pairing: PairingCodes

    func register(on router: Router<DoseRequestContext>) {
        router.get("/assets/app.css") { _, _ in asset(Assets.css, type: "text/css; charset=utf-8") }
        router.get("/assets/app.js") { _, _ in asset(Assets.javascript, type: "text/javascript; charset=utf-8") }
        router.get("/pair") { request, _ in try await pair(request) }
        router.get("/") { request, context in try tonight(request, context) }
        router.post("/ui/act") { request, context in try await act(request, context) }
        router.get("/details") { _, context in try details(context) }
        router.get("/insights") { _, _ in try insights() }
        router.get("/settings") { _, context in try settings(context, message: nil) }
        registerManagement(on: router)
        router.post("/ui/settings") { request, context in try await saveSettings(request, context) }
        router.get("/checkin") { _, context in checkIn(context) }
        router.post("/ui/checkin") { request, context in try await saveCheckIn(request, context) }
        router.get("/presleep") { _, context in preSleep(context) }
        router.post("/ui/presleep") { request, context in try await savePreSleep(request, context) }
        router.get("/medications") { request, context in try medications(request, context) }
        router.post("/ui/medications") { request, context in try await logMedication(request, context) }
    }

    func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func csrf(_ context: DoseRequestContext) -> String { context.device.map(AuthMiddleware.csrf(for:)) ?? "" }

    /// Opens a one-time pairing link: pairs this browser as a new device and sets its cookie.
    func pair(_ request: Request) async throws -> Response {
        let code = request.uri.queryParameters["code"].map(String.init) ?? ""
        guard await pairing.redeem(code, now: environment.now()) else {
            throw DoseError.invalidInput(field: "code", problem: "this pairing link is used up or expired",
                                         allowed: "a fresh link: restart `dosetap serve` or run `dosetap device add`")
        }
        let token = DeviceTokens.generate()
        let clock = environment.clock()
        let name = "browser \(ISO8601.string(clock.now).prefix(16))"
        _ = try environment.ledger.addDevice(name: name, tokenHash: DeviceTokens.hash(token), clock: clock)
        let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https" ? "; Secure" : ""
        return WebPages.redirect("/", cookie: "\(AuthMiddleware.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000\(secure)")
    }

    func tonight(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let clock = environment.clock()
        let snapshot = try environment.ledger.status(clock: clock)
        var undo: (String, Date)?
        if let label = request.uri.queryParameters["did"], let until = request.uri.queryParameters["until"].flatMap({ ISO8601.parse(String($0)) }) {
            undo = (String(label), until)
        }
        let outages = try environment.ledger.serverOutages(during: snapshot.session, now: clock.now)
        return WebPages.html(HTML.page(title: "Tonight", current: "/", body: WebPages.tonight(snapshot, csrf: csrf(context), undo: undo, now: clock.now, outages: outages)))
    }

    /// Reads a urlencoded form within the body limit and checks its CSRF token.
    func form(_ request: Request, _ context: DoseRequestContext) async throws -> [String: String] {
        let data = try await JSONBody.collect(request)
        let fields = try FormBody.fields(data)
        guard let device = context.device, let sent = fields["csrf"], DeviceTokens.constantTimeEqual(sent, AuthMiddleware.csrf(for: device)) else {
            throw DoseError.invalidInput(field: "csrf", problem: "the form's token is missing or wrong", allowed: "a form from this DoseTap page; reload it")
        }
        return fields
    }

    func act(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let kind: NightAction.Kind
        switch fields["action"] ?? "" {
        case "dose1": kind = .dose1
        case "dose2": kind = .dose2
        case "snooze": kind = .snooze
        case "skip": kind = .skip(reason: nil)
        case "undo": kind = .undo
        case "wake": kind = .wake
        case "log": kind = .log(event: fields["event"] ?? "")
        default: throw DoseError.invalidInput(field: "action", problem: "'\(fields["action"] ?? "")' is not an action", allowed: "dose1, dose2, snooze, skip, undo, wake, log")
        }
        let confirmations: Set<ConfirmKind> = Set((fields["confirm"] ?? "").split(separator: ",").compactMap { ConfirmKind(rawValue: String($0)) })
        let clock = environment.clock()
        do {
            let outcome = try environment.ledger.perform(NightAction(kind, confirmations: confirmations), clock: clock)
            guard let event = outcome.decision.event else { return WebPages.redirect("/") }
            let until = event.recordedAt.addingTimeInterval(TimeInterval(outcome.settings.undoWindowSeconds))
            let label = event.kind.label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebPages.redirect("/?did=\(label)&until=\(ISO8601.string(until))")
        } catch let error as DoseError {
            if let confirm = error.confirm, let risk = WebPages.risk(of: error, now: clock.now) {
                return WebPages.html(WebPages.confirm(action: fields["action"] ?? "", risk: risk, confirm: confirm, csrf: csrf(context)),
                                     status: HTTPResponse.Status(code: error.httpStatus))
            }
            throw error
        }
    }

    func details(_ context: DoseRequestContext) throws -> Response {
        let clock = environment.clock()
        let snapshot = try environment.ledger.status(clock: clock)
        var body = "<h1>Tonight in detail</h1>"
        guard let session = snapshot.session else {
            return WebPages.html(HTML.page(title: "Details", current: "/details", body: body + "<p>No session yet tonight.</p>"))
        }
        body += "<p class=\"times\">Night of \(session.date) · \(HTML.escape(snapshot.status.phase.label))</p><table><tbody>"
        for event in session.events.reversed() {
            body += "<tr><td>\(WebPages.clock(event.occurredAt, snapshot.timeZone))</td><td>\(HTML.escape(event.kind.label))</td><td>\(HTML.escape(event.note ?? ""))</td></tr>"
        }
        body += "</tbody></table><h2>Log any event</h2>"
        body += WebPages.grid(SleepEventCatalogue.standard.definitions, csrf: csrf(context))
        return WebPages.html(HTML.page(title: "Details", current: "/details", body: body))
    }

    func insights() throws -> Response {
        let clock = environment.clock()
        let settings = try environment.ledger.settings(clock: clock)
        var query = HistoryQuery()
        query.limit = 30
        let nights = try environment.ledger.history(query, clock: clock).groups.flatMap(\.nights).reversed()
        let intervals = nights.compactMap { night in night.intervalMinutes.map { (night.session.date.description, $0) } }
        let onTime = intervals.filter { abs($0.1 - settings.targetIntervalMinutes) <= DoseWindow.onTimeToleranceMinutes }.count
        var body = "<h1>Insights</h1>"
        if intervals.isEmpty { return WebPages.html(HTML.page(title: "Insights", current: "/insights", body: body + "<p>No nights with Dose 2 yet.</p>")) }
        body += "<p>On time (±10 min of \(settings.targetIntervalMinutes) min): <strong>\(onTime * 100 / intervals.count)%</strong> of \(intervals.count) nights.</p>"
        let width = 340.0, height = 180.0, barWidth = width / Double(max(intervals.count, 1))
        func y(_ minutes: Int) -> Double { height - (Double(minutes - 120) / 140.0) * height }
        body += "<svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height) + 16)\" role=\"img\" aria-label=\"Dose 1 to Dose 2 interval per night\">"
        for (index, item) in intervals.enumerated() {
            let top = max(0, min(height, y(item.1)))
            body += "<rect x=\(String(format: "%.1f", Double(index) * barWidth + 1)) y=\(String(format: "%.1f", top)) width=\(String(format: "%.1f", max(1, barWidth - 2))) height=\(String(format: "%.1f", height - top))><title>\(item.0): \(item.1) min</title></rect>"
        }
        body += "<line class=\"target\" x1=\"0\" x2=\"\(Int(width))\" y1=\"\(String(format: "%.1f", y(settings.targetIntervalMinutes)))\" y2=\"\(String(format: "%.1f", y(settings.targetIntervalMinutes)))\"/>"
        body += "<text x=\"2\" y=\"\(Int(height) + 14)\">\(intervals.first!.0)</text><text x=\"\(Int(width) - 70)\" y=\"\(Int(height) + 14)\">\(intervals.last!.0)</text></svg>"
        return WebPages.html(HTML.page(title: "Insights", current: "/insights", body: body))
    }

    func saveSettings(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let clock = environment.clock()
        let current = try environment.ledger.settings(clock: clock)
        let changes = DoseSettings.keys.compactMap { key in fields[key].flatMap { $0 == (try? current.value(of: key)) ? nil : (key, $0) } }
        if !changes.isEmpty { _ = try environment.ledger.updateSettings(changes, clock: clock) }
        return try settings(context, message: "Saved.")
    }

    func checkIn(_ context: DoseRequestContext) -> Response {
        func options(_ name: String, _ values: [String], _ chosen: String) -> String {
            "<select id=\"\(name)\" name=\"\(name)\">" + values.map { "<option\($0 == chosen ? " selected" : "")>\($0)</option>" }.joined() + "</select>"
        }
        let body = """
            <h1>Morning check-in</h1><form method="post" action="/ui/checkin"><input type="hidden" name="csrf" value="\(csrf(context))">
            <label for="sleep_quality">Sleep quality (1–5)</label>\(options("sleep_quality", ["1", "2", "3", "4", "5"], "3"))
            <label for="feel_rested">How rested</label>\(options("feel_rested", FeelRested.allCases.map(\.rawValue), "moderate"))
            <label for="grogginess">Grogginess</label>\(options("grogginess", Grogginess.allCases.map(\.rawValue), "mild"))
            <label for="mental_clarity">Mental clarity (1–10)</label>\(options("mental_clarity", (1...10).map(String.init), "5"))
            <label for="mood">Mood</label>\(options("mood", Mood.allCases.map(\.rawValue), "neutral"))
            <label for="readiness_for_day">Ready for the day (1–5)</label>\(options("readiness_for_day", ["1", "2", "3", "4", "5"], "3"))
            <label for="notes">Notes</label><textarea id="notes" name="notes" maxlength="500"></textarea>
            <div class="row"><button type="submit" class="button primary">Save check-in</button></div></form>
            """
        return WebPages.html(HTML.page(title: "Check-in", current: "", body: body))
    }

    func saveCheckIn(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        var object: [String: Any] = [:]
        for key in ["sleep_quality", "mental_clarity", "readiness_for_day"] { if let value = fields[key].flatMap(Int.init) { object[key] = value } }
        for key in ["feel_rested", "grogginess", "mood", "notes"] { if let value = fields[key], !value.isEmpty { object[key] = value } }
        let answers = try AnswerDecoding.decode(MorningCheckIn.self, from: object, allowed: AnswerDecoding.checkInAllowed)
        _ = try environment.ledger.perform(NightAction(.checkIn(answers)), clock: environment.clock())
        return WebPages.redirect("/")
    }

    func preSleep(_ context: DoseRequestContext) -> Response {
        let body = """
            <h1>Pre-sleep log</h1><form method="post" action="/ui/presleep"><input type="hidden" name="csrf" value="\(csrf(context))">
            <label for="stress_level">Stress (1–5)</label><input id="stress_level" name="stress_level" type="number" min="1" max="5">
            <label for="caffeine_cups">Cups of caffeine today</label><input id="caffeine_cups" name="caffeine_cups" type="number" min="0" max="20">
            <label for="alcohol_drinks">Alcoholic drinks today</label><input id="alcohol_drinks" name="alcohol_drinks" type="number" min="0" max="20">
            <label for="notes">Notes</label><textarea id="notes" name="notes" maxlength="500"></textarea>
            <div class="row"><button type="submit" class="button primary">Save</button></div></form>
            """
        return WebPages.html(HTML.page(title: "Pre-sleep", current: "", body: body))
    }

    func savePreSleep(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        var object: [String: Any] = [:]
        for key in ["stress_level", "caffeine_cups", "alcohol_drinks"] { if let value = fields[key].flatMap(Int.init) { object[key] = value } }
        if let notes = fields["notes"], !notes.isEmpty { object["notes"] = notes }
        let log = try AnswerDecoding.decode(PreSleepLog.self, from: object, allowed: AnswerDecoding.preSleepAllowed)
        _ = try environment.ledger.savePreSleep(log, at: nil, note: nil, clock: environment.clock())
        return WebPages.redirect("/")
    }

    /// Medications in two steps that work without JavaScript: choose the medicine, then a form with its usual dose
    /// filled in where the person can see and change it. Nothing is ever logged with an amount nobody saw.
    func medications(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let clock = environment.clock()
        let zone = try environment.ledger.settings(clock: clock).timeZone
        var body = "<h1>Medications</h1>"
        if let chosen = request.uri.queryParameters["medication"].map(String.init) {
            let medication = try MedicationCatalogue.medication(id: chosen)
            let units = DoseUnit.allCases.filter { MedicationCatalogue.acceptedAmounts(for: medication, unit: $0) != nil }
            let range = MedicationCatalogue.acceptedAmounts(for: medication, unit: .mg)
            body += "<form method=\"post\" action=\"/ui/medications\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf(context))\">"
            body += "<input type=\"hidden\" name=\"medication\" value=\"\(HTML.escape(medication.id))\"><h2>\(HTML.escape(medication.name))</h2>"
            body += "<label for=\"amount\">Amount taken (usual: \(NumberText.plain(medication.defaultDoseMg)) mg)</label>"
            body += "<input id=\"amount\" name=\"amount\" type=\"number\" step=\"any\" required min=\"\(NumberText.plain(range?.lowerBound ?? 0))\" "
            body += "value=\"\(NumberText.plain(medication.defaultDoseMg))\" inputmode=\"decimal\">"
            body += "<label for=\"unit\">Unit</label><select id=\"unit\" name=\"unit\">" + units.map { "<option value=\"\($0.rawValue)\">\($0.rawValue)</option>" }.joined() + "</select>"
            body += "<div class=\"row\"><a class=\"button\" href=\"/medications\">Back</a><button type=\"submit\" class=\"button primary\">Log \(HTML.escape(medication.name))</button></div></form>"
        } else {
            body += "<form method=\"get\" action=\"/medications\"><label for=\"medication\">Medication</label><select id=\"medication\" name=\"medication\">"
            body += MedicationCatalogue.all.map { "<option value=\"\($0.id)\">\(HTML.escape($0.name))</option>" }.joined()
            body += "</select><div class=\"row\"><button type=\"submit\" class=\"button primary\">Next</button></div></form>"
        }
        body += "<h2>Recent</h2><table><tbody>"
        for record in try environment.ledger.medications(limit: 10) {
            body += "<tr><td>\(WebPages.clock(record.takenAt, zone))</td><td>\(HTML.escape(record.medication.name))</td><td>\(NumberText.plain(record.doseMg)) mg</td></tr>"
        }
        body += "</tbody></table>"
        return WebPages.html(HTML.page(title: "Medications", current: "", body: body))
    }

    /// Logs the amount the form sent, in its unit; a missing or malformed amount is refused, never replaced.
    func logMedication(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let medication = try MedicationCatalogue.medication(id: fields["medication"] ?? "")
        let (amount, unit) = try MedicationEntryText.amount(fields["amount"] ?? "", unit: fields["unit"] ?? "", for: medication)
        let confirmations: Set<ConfirmKind> = fields["confirm"] == "duplicate" ? [.duplicate] : []
        _ = try environment.ledger.logMedications([MedicationInput(medicationID: medication.id, amount: amount, unit: unit)], confirmations: confirmations,
                                                  clock: environment.clock())
        return WebPages.redirect("/medications")
    }
}
