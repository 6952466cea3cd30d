import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages and their form posts.
struct WebRoutes {
    let environment: AppEnvironment
    let pairing: PairingCodes
    let channels: AlarmChannels

    func register(on router: Router<DoseRequestContext>) {
        router.get("/assets/app.css") { _, _ in asset(Templates.css, type: "text/css; charset=utf-8") }
        router.get("/assets/app.js") { _, _ in asset(Templates.javascript, type: "text/javascript; charset=utf-8") }
        router.get("/pair") { request, context in try await pair(request, context) }
        router.get("/") { request, context in try tonight(request, context) }
        router.post("/ui/act") { request, context in try await act(request, context) }
        router.get("/details") { request, context in try details(request, context) }
        registerInsights(on: router)
        router.get("/settings") { request, context in
            try settings(context, flash: request.uri.queryParameters["saved"].map { _ in "Settings saved." })
        }
        registerManagement(on: router)
        registerSupport(on: router)
        registerWelcome(on: router)
        registerSupply(on: router)
        registerAlarms(on: router)
        router.post("/ui/settings") { request, context in try await saveSettings(request, context) }
        router.get("/checkin") { _, context in try checkIn(context) }
        router.post("/ui/checkin") { request, context in try await saveCheckIn(request, context) }
        router.get("/presleep") { _, context in try preSleep(context) }
        router.post("/ui/presleep") { request, context in try await savePreSleep(request, context) }
        router.get("/medications") { request, context in try medications(request, context) }
        router.post("/ui/medications") { request, context in try await logMedication(request, context) }
    }

    func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether the browser reached DoseTap over HTTPS (through a proxy that says so).
    static func isHTTPS(_ request: Request, _ context: DoseRequestContext) -> Bool {
        context.secureTransport || request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https"
    }

    /// Whether the browser treats the page as a secure context: HTTPS, or this machine itself (browsers trust
    /// loopback addresses and `localhost` as they trust HTTPS).
    static func isSecureContext(_ request: Request, _ context: DoseRequestContext) -> Bool {
        if isHTTPS(request, context) { return true }
        var host = request.head.authority ?? ""
        if host.hasPrefix("[") { host = String(host.dropFirst().prefix { $0 != "]" }) } else { host = String(host.prefix { $0 != ":" }) }
        return Listener.isLoopback(host)
    }

    /// The CSRF token for this page: bound to the browser's device, rotated every 12 hours.
    func csrf(_ context: DoseRequestContext) -> String {
        guard let device = context.device, let tokens = try? environment.csrfTokens() else { return "" }
        return tokens.token(device: device.id, at: environment.now())
    }

    /// The zone every page shows clock times in: `serve --tz` if given, else the setting.
    /// Opens a one-time pairing link: pairs this browser as a new device, named from its user agent, and sets its
    /// cookie. A pairing that fails puts the code back, so the link still works.
    func pair(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let code = request.uri.queryParameters["code"].map(String.init) ?? ""
        let app = environment.useCases()
        guard let expiry = await pairing.reserve(code, now: app.clock.now) else {
            throw DoseError.invalidInput(
                field: "code", problem: "this pairing link is used up or expired",
                allowed: "a fresh link: Settings → Pair another device, or `dosetap device add`")
        }
        let token: String
        do {
            let agent = request.headers[.userAgent] ?? ""
            token = try app.devices.pair(name: DeviceNames.fromUserAgent(agent), uniqued: true).token
        } catch {
            await pairing.restore(code, expiry: expiry)
            throw error
        }
        let secure = Self.isHTTPS(request, context) ? "; Secure" : ""
        return WebPages.redirect("/", cookie: "\(AuthMiddleware.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000\(secure)")
    }

    func tonight(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        // Nobody starts a night with the wrong target, zone or alarms: setup comes first (it never blocks an open night).
        if try needsSetup() { return WebPages.redirect("/welcome") }
        var undo: (String, Date)?
        if let wire = request.uri.queryParameters["did"], let until = request.uri.queryParameters["until"].flatMap({ ISO8601.parse(String($0)) }) {
            undo = (Self.recordedSentence(String(wire)), until)
        }
        return try tonightPage(context, undo: undo)
    }

    /// What changed tonight most recently, in words, for the refusal of a tap made on an older page.
    static func lastChange(_ snapshot: StatusSnapshot) -> String {
        guard let latest = snapshot.session?.events.max(by: { ($0.recordedAt, $0.id.rawValue) < ($1.recordedAt, $1.id.rawValue) }) else {
            return "it now says: \(snapshot.status.phase.label)"
        }
        return "\(latest.label) was recorded for \(LocalClock.hourMinute(latest.occurredAt, in: snapshot.timeZone))"
    }

    /// The snackbar's sentence for a recorded kind, by its wire name: "Dose 1 recorded.", "Dose 2 skipped.". A name the
    /// catalogue does not know (a custom event, or a hand-made link) is "Event recorded.": no link puts words on Tonight.
    static func recordedSentence(_ wire: String) -> String {
        let kind = EventKind(wireName: wire)
        if case .sleep(let type) = kind, SleepEventCatalogue.standard.definition(of: type) == nil { return "Event recorded." }
        return kind == .dose2Skipped ? "Dose 2 skipped." : "\(kind.label) recorded."
    }

    /// Tonight, optionally with a refusal banner or a question in place of the primary action, with the given status.
    func tonightPage(
        _ context: DoseRequestContext, undo: (String, Date)? = nil, banner: String? = nil, question: TonightView.Question? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let app = environment.useCases()
        let (snapshot, outages) = try app.night.tonight()
        var view = TonightView(snapshot, csrf: csrf(context), now: app.clock.now, undo: undo, outages: outages, banner: banner, question: question)
        if !view.nightOpen {
            let supply = try app.supply.report()
            if supply.status.isLow { view.lowSupply = Supply.lowSupplyMessage(supply.status, leadDays: supply.settings.pharmacyLeadDays) }
        }
        return try Templates.page("tonight", view, status: status)
    }

    /// Whether the web app must run setup first: before the first Dose 1 of a database never set up. Setup never
    /// stands between a person and a night already under way, or a history begun from the command line.
    func needsSetup() throws -> Bool {
        try environment.useCases().setup.isRequiredBeforeDose1()
    }

    /// Reads a urlencoded form within the body limit and checks its CSRF token.
    func form(_ request: Request, _ context: DoseRequestContext) async throws -> [String: String] {
        let data = try await JSONBody.collect(request)
        let fields = try FormBody.fields(data)
        guard let device = context.device, let sent = fields["csrf"],
            try environment.csrfTokens().accepts(sent, device: device.id, at: environment.now())
        else {
            throw DoseError.forbidden(why: "the form's token is missing, wrong or from a page loaded more than a day ago")
        }
        return fields
    }

    /// A tap on Tonight. Refusals and questions come back on Tonight itself, never as a page of their own.
    func act(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let name = fields["action"] ?? ""
        guard let action = TonightAction(rawValue: name) else {
            throw DoseError.invalidInput(
                field: "action", problem: "'\(name)' is not an action", allowed: TonightAction.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let kind = action.kind(event: fields["event"])
        if case .dose1 = kind, try needsSetup() { return WebPages.redirect("/welcome") }
        let confirmValues = FormLists.values(fields, "confirm")
        let confirmations = Set(confirmValues.compactMap(ConfirmKind.init(rawValue:)))
        let app = environment.useCases()
        let isWake = if case .wake = kind { true } else { false }
        // Only the big button and Wake Up need tonight as it is now; a quick-log tap goes straight to the rules.
        if fields["spot"] == "primary" || isWake {
            let snapshot = try app.night.status()
            if fields["spot"] == "primary" {
                // D15: the big button must mean what the person saw. A tap on a page older than tonight's last change,
                // or within 2 s of the last action (a double tap), does nothing.
                if fields["revision"] != String(snapshot.revision) {
                    return try tonightPage(
                        context,
                        banner:
                            "Tonight changed just before that tap (\(Self.lastChange(snapshot))), so nothing was done. Check the screen, then tap again.",
                        status: .conflict)
                }
                if NightStatus.tapSettlesUntil(snapshot.session, at: app.clock.now) != nil {
                    return try tonightPage(context, banner: "That tap came right after the last one, so nothing was done.", status: .conflict)
                }
            }
            if isWake, !confirmValues.contains("early_wake"), let question = snapshot.status.earlyWakeQuestion(in: snapshot.timeZone) {
                return try tonightPage(
                    context,
                    question: TonightView.Question(
                        text: question, safeLabel: "Keep sleeping", safeHref: "/",
                        riskyLabel: "Yes, I'm up", riskyAction: "wake", riskyConfirm: "early_wake"))
            }
        }
        do {
            let outcome = try app.night.perform(NightAction(kind, confirmations: confirmations), from: .page)
            guard let event = outcome.decision.event else { return WebPages.redirect("/") }
            let until = event.recordedAt.addingTimeInterval(TimeInterval(outcome.settings.undoWindowSeconds))
            // The kind by its wire name: the page words it, so a link cannot put words of its own on Tonight.
            let label = event.kind.wireName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebPages.redirect("/?did=\(label)&until=\(ISO8601.string(until))")
        } catch let error as DoseError where error.code != .invalidInput {
            let status = error.httpStatus
            if let question = TonightView.question(for: error, action: name, event: fields["event"]) {
                return try tonightPage(context, question: question, status: status)
            }
            return try tonightPage(context, banner: error.message, status: status)
        }
    }

    func saveSettings(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let app = environment.useCases()
        let current = try app.settings.current()
        var posted = fields
        // A switch that is off sends nothing, so each form names the switches it showed.
        let shown = Set((fields["switches"] ?? "").split(separator: ",").map(String.init))
        for key in SettingsView.switches.map(\.rawValue) where shown.contains(key) { posted[key] = fields[key] == "true" ? "true" : "false" }
        let changes = DoseSettings.keys.compactMap { key in posted[key].flatMap { $0 == (try? current.value(of: key)) ? nil : (key, $0) } }
        if !changes.isEmpty { _ = try app.settings.update(changes) }
        // The Supply page's refill-reminder form goes back to the Supply page.
        return WebPages.redirect(fields["return"] == "supply" ? "/supply?saved=1" : "/settings?saved=1")
    }

    func checkIn(_ context: DoseRequestContext, question: CheckInView.Question? = nil) throws -> Response {
        let snapshot = try environment.useCases().night.status()
        var pending: String?
        if snapshot.status.dose2Undecided, let dose1 = snapshot.status.dose1At {
            // D16: say it before anything is typed, not only after Save.
            pending =
                PendingDose2(dose1: dose1, at: snapshot.status.asOf, zone: snapshot.timeZone).sentence
                + " Saving a check-in now would end the night and cancel its Dose 2 alarms."
        }
        return try Templates.page(
            "checkin",
            CheckInView(
                frame: Frame("Check-in", current: ""), csrf: csrf(context),
                night: snapshot.session?.date.description, pending: question == nil ? pending : nil, question: question,
                quick: CheckInForm.Section(title: "", fields: CheckInForm.quick()),
                sections: CheckInForm.sections(hasUsual: try environment.useCases().records.hasUsualSleepEnvironment())),
            status: question == nil ? .ok : .conflict)
    }

    func saveCheckIn(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let answers = try AnswerDecoding.decode(MorningCheckIn.self, from: CheckInForm.answers(fields), allowed: AnswerDecoding.checkInAllowed)
        let confirmations: Set<ConfirmKind> = fields["confirm"] == ConfirmKind.endNight.rawValue ? [.endNight] : []
        let outcome: ActionOutcome
        do {
            outcome = try environment.useCases().night.perform(NightAction(.checkIn(answers), confirmations: confirmations), from: .page)
        } catch let error as DoseError where error.confirm == .endNight {
            // Asked, with the answers kept for the confirming form: a half-asleep Save must not end the night.
            let kept = fields.filter { $0.key != "csrf" && $0.key != "confirm" }.sorted { $0.key < $1.key }
            return try checkIn(
                context,
                question: CheckInView.Question(
                    text: error.message { _ in nil }, answers: kept.map { CheckInView.Answer(name: $0.key, value: $0.value) }))
        }
        let score = outcome.decision.checkIn?.wellnessScore ?? answers.wellnessScore
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Check-in saved", current: "", flash: "Check-in saved."), heading: "Good morning",
                message: "Your wellness score is \(score) out of 100. The night is now in History.",
                link: NoticePage.Link(href: "/history", label: "See History")))
    }

    func preSleep(_ context: DoseRequestContext) throws -> Response {
        try Templates.page("presleep", FormPage(frame: Frame("Pre-sleep", current: ""), csrf: csrf(context), fields: PreSleepForm.fields()))
    }

    func savePreSleep(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let log = try AnswerDecoding.decode(PreSleepLog.self, from: PreSleepForm.answers(fields), allowed: AnswerDecoding.preSleepAllowed)
        _ = try environment.useCases().records.savePreSleep(log, at: nil, note: nil)
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Pre-sleep saved", current: "", flash: "Pre-sleep log saved."), heading: "Sleep well",
                message: "Your pre-sleep answers are saved with tonight.", link: NoticePage.Link(href: "/", label: "Back to Tonight")))
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
        let fields = try await form(request, context)
        let medication = try MedicationCatalogue.medication(id: fields["medication"] ?? "")
        let typed = fields["other_amount"].flatMap { $0.isEmpty ? nil : $0 }
        let (amount, unit) = try MedicationEntryText.amount(typed ?? fields["amount"] ?? "", unit: fields["unit"] ?? "", for: medication)
        let confirmations: Set<ConfirmKind> = fields["confirm"] == "duplicate" ? [.duplicate] : []
        let note = fields["note"].flatMap { $0.isEmpty ? nil : $0 }
        let app = environment.useCases()
        let records = try app.medications.log(
            [MedicationInput(medicationID: medication.id, amount: amount, unit: unit, note: note)],
            confirmations: confirmations)
        return WebPages.redirect("/medications?logged=\(records.first?.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
    }
}

/// What a Tonight form may post as its `action`.
enum TonightAction: String, CaseIterable {
    case dose1, dose2, snooze, skip, undo, wake, log

    /// The night action it asks for; `log` names its event in the form's `event` field.
    func kind(event: String?) -> NightAction.Kind {
        switch self {
        case .dose1: .dose1
        case .dose2: .dose2
        case .snooze: .snooze
        case .skip: .skip(reason: nil)
        case .undo: .undo
        case .wake: .wake
        case .log: .log(event: event ?? "")
        }
    }
}
