import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Tonight: the page with the one big button, its taps (D15's stale-page and double-tap guards, early-wake and
/// risky-action questions), and the one-time pairing link that brings a new browser to it.
struct TonightPages: PageController {
    let environment: AppEnvironment
    let pairing: PairingCodes

    /// The routes, at the root of the site.
    var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/pair") { request, context in try await pair(request, context) }
        routes.get("/") { request, context in try tonight(request, context) }
        routes.post("/ui/act") { request, context in try await act(request, context) }
        return routes
    }

    /// Opens a one-time pairing link: pairs this browser as a new device, named from its user agent, and sets its
    /// cookie. A pairing that fails puts the code back, so the link still works.
    func pair(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let code = request.uri.queryParameters["code"].map(String.init) ?? ""
        let app = environment.useCases()
        guard let expiry = await pairing.reserve(code, for: environment.store.personID, now: app.clock.now) else {
            throw DoseError.invalidInput(
                field: "code", problem: "this pairing link is used up or expired",
                allowed: "a fresh link: Settings → Pair another device, or `dosetap device add`")
        }
        let token: String
        do {
            let agent = request.headers[.userAgent] ?? ""
            token = try app.devices.pair(name: DeviceNames.fromUserAgent(agent), uniqued: true).token
        } catch {
            await pairing.restore(code, expiry: expiry, for: environment.store.personID)
            throw error
        }
        let secure = WebPages.isHTTPS(request, context) ? "; Secure" : ""
        return WebPages.redirect("/", cookie: "\(AuthMiddleware.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000\(secure)")
    }

    func tonight(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        // Nobody starts a night with the wrong target, zone or alarms: setup comes first (it never blocks an open night).
        if try needsSetup() {
            guard let grantee = context.grantee else {
                // Someone who only looks after others lands on their people, not on setup for a medicine they may not take.
                return WebPages.redirect(try switcher(context).isEmpty ? "/welcome" : "/people")
            }
            return try tonightPage(context, banner: Self.notSetUp(grantee))
        }
        var undo: (String, Date)?
        if let wire = request.uri.queryParameters["did"], let until = request.uri.queryParameters["until"].flatMap({ ISO8601.parse(String($0)) }) {
            undo = (Self.recordedSentence(String(wire)), until)
        }
        return try tonightPage(context, undo: undo)
    }

    /// Why a grantee cannot start the night of a person who never set DoseTap up: setup (target, zone, alarms) is theirs.
    static func notSetUp(_ grantee: SharedAccess) -> String {
        "\(grantee.ownerName) has not set DoseTap up yet. Dose 1 can be logged for them once they have chosen their target, time zone and alarms."
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
        if let grantee = context.grantee {
            view.show(to: grantee, switcher: try switcher(context))
            return try Templates.page("tonight", view, status: status)
        }
        view.frame.switcher = Frame.switcher(showing: try switcher(context))
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

    /// A tap on Tonight. Refusals and questions come back on Tonight itself, never as a page of their own.
    func act(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let tap = try await form(request, context, as: TonightTapForm.self)
        guard let action = TonightAction(rawValue: tap.action) else {
            throw DoseError.invalidInput(
                field: "action", problem: "'\(tap.action.prefix(40))' is not an action",
                allowed: TonightAction.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let kind = action.kind(event: tap.event)
        if let grantee = context.grantee, action == .undo {
            // Undo removes tonight's last action, whoever made it: a caregiver's could erase the person's own dose.
            return try tonightPage(
                context, banner: "Undo is \(grantee.ownerName)'s own: they can undo or correct what was recorded.", status: .forbidden)
        }
        if case .dose1 = kind, try needsSetup() {
            guard let grantee = context.grantee else { return WebPages.redirect("/welcome") }
            return try tonightPage(context, banner: Self.notSetUp(grantee), status: .conflict)
        }
        let confirmValues = tap.confirm ?? []
        let confirmations = Set(confirmValues.compactMap(ConfirmKind.init(rawValue:)))
        let app = environment.useCases()
        let isWake = if case .wake = kind { true } else { false }
        // Only the big button and Wake Up need tonight as it is now; a quick-log tap goes straight to the rules.
        if tap.spot == "primary" || isWake {
            let snapshot = try app.night.status()
            if tap.spot == "primary" {
                // D15: the big button must mean what the person saw. A tap on a page older than tonight's last change,
                // or within 2 s of the last action (a double tap), does nothing.
                if tap.revision != String(snapshot.revision) {
                    return try tonightPage(
                        context,
                        banner:
                            "Tonight changed just before that tap (\(Self.lastChange(snapshot))), so nothing was done. Check the screen, then "
                            + "tap again.",
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
            var nightAction = NightAction(kind, confirmations: confirmations)
            nightAction.actor = context.grantee.map { $0.email ?? $0.person }
            let outcome = try app.night.perform(nightAction, from: .page)
            guard let event = outcome.decision.event else { return WebPages.redirect("/") }
            let until = event.recordedAt.addingTimeInterval(TimeInterval(outcome.settings.undoWindowSeconds))
            // The kind by its wire name: the page words it, so a link cannot put words of its own on Tonight.
            let label = event.kind.wireName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebPages.redirect("/?did=\(label)&until=\(ISO8601.string(until))")
        } catch let error as DoseError where error.code != .invalidInput {
            let status = error.httpStatus
            if let question = TonightView.question(for: error, action: tap.action, event: tap.event) {
                return try tonightPage(context, question: question, status: status)
            }
            return try tonightPage(context, banner: error.message, status: status)
        }
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
