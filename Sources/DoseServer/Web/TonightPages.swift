import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Tonight: the page with the one big button, its taps (D15's stale-page and double-tap guards, early-wake and
/// risky-action questions), and the one-time pairing link that brings a new browser to it.
struct TonightPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }
    var pairing: PairingCodes { site.pairing }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/pair") { request, context in try await Self(context).pair(request, context) }
        routes.get("/") { request, context in try Self(context).tonight(request, context) }
        routes.post("/ui/act") { request, context in try await Self(context).act(request, context) }
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
        return WebPages.paired("/", token: token, request, context)
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
        let query = request.uri.queryParameters
        let drawnAfter = query["after"].flatMap { ISO8601.parse(String($0)) }
        var done: (String, Date?)?
        if let wire = query["did"] {
            done = (Self.recordedSentence(String(wire)), query["until"].flatMap { ISO8601.parse(String($0)) })
        } else if let wire = query["undid"] {
            // An undo says what it took back: a dose that silently looks untaken invites a second one.
            done = (Self.undoneSentence(String(wire)), nil)
        }
        return try tonightPage(context, drawnAfter: drawnAfter, done: done)
    }

    /// Why a grantee cannot start the night of a person who never set DoseTap up: setup (target, zone, alarms) is theirs.
    /// Short enough to fit Tonight's notices (three lines at 390 px) whole.
    static func notSetUp(_ grantee: SharedAccess) -> String {
        "\(grantee.ownerName) has not set DoseTap up yet, so no dose can be logged for them until they do."
    }

    /// What changed tonight most recently, in words, for the refusal of a tap made on an older page.
    static func lastChange(_ snapshot: StatusSnapshot) -> String {
        guard let latest = snapshot.session?.events.max(by: { ($0.recordedAt, $0.id.rawValue) < ($1.recordedAt, $1.id.rawValue) }) else {
            return "it now says: \(snapshot.status.phase.label)"
        }
        return "\(latest.label) was recorded for \(LocalClock.hourMinute(latest.occurredAt, in: snapshot.timeZone))"
    }

    /// The notices' sentence for a recorded kind, by its wire name: "Dose 1 recorded.", "Dose 2 skipped.". A name the
    /// catalogue does not know (a custom event, or a hand-made link) is "Event recorded.": no link puts words on Tonight.
    static func recordedSentence(_ wire: String) -> String {
        let kind = EventKind(wireName: wire)
        if case .sleep(let type) = kind, SleepEventCatalogue.standard.definition(of: type) == nil { return "Event recorded." }
        return kind == .dose2Skipped ? "Dose 2 skipped." : "\(kind.label) recorded."
    }

    /// The notices' sentence after an undo: "Undone: Dose 2 is no longer recorded.".
    static func undoneSentence(_ wire: String) -> String {
        let kind = EventKind(wireName: wire)
        if case .sleep(let type) = kind, SleepEventCatalogue.standard.definition(of: type) == nil {
            return "Undone: the event is no longer recorded."
        }
        return "Undone: \(kind == .dose2Skipped ? "the skip of Dose 2" : kind.label) is no longer recorded."
    }

    /// Tonight, optionally with what the last tap did, a refusal or a question, with the given status. `drawnAfter` is
    /// the wall-clock instant of the tap this page answers: for a moment after it the page takes no tap but Undo (D15).
    func tonightPage(
        _ context: DoseRequestContext, drawnAfter: Date? = nil, done: (label: String, until: Date?)? = nil, banner: String? = nil,
        question: TonightView.Question? = nil, status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let app = environment.useCases()
        let (snapshot, outages) = try app.night.tonight()
        var view = TonightView(
            snapshot, csrf: csrf(context), now: app.clock.now, wallNow: environment.wallClock(), drawnAfter: drawnAfter, done: done,
            outages: outages, banner: banner, question: question, givenBy: givenBy(snapshot.status.dose2ActedBy, context))
        if let grantee = context.grantee {
            view.show(to: grantee, switcher: try switcher(context), zoneNote: zoneNote(context))
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
    ///
    /// D15: one tap is one action. Each form carries the revision of tonight it was drawn on, and, on a page drawn in
    /// answer to a tap, that tap's wall-clock instant (`after`): a tap from an older page does nothing, and so does any
    /// tap but Undo in the settling after the tap that drew the page, or an answer in its question's first second. The
    /// page holds the same rule and also knows where the finger was (app.js).
    func act(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let tap = try await form(request, context, as: TonightTapForm.self)
        guard let action = TonightAction(rawValue: tap.action) else {
            throw DoseError.invalidInput(
                field: "action", problem: "'\(tap.action.prefix(40))' is not an action",
                allowed: TonightAction.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let kind = action.kind(event: tap.event)
        let wallNow = environment.wallClock()
        let drawnAfter = tap.after.flatMap(ISO8601.parse)
        if let grantee = context.grantee, action == .undo {
            // Undo removes tonight's last action, whoever made it: a caregiver's could erase the person's own dose.
            return try tonightPage(
                context, drawnAfter: drawnAfter,
                banner: "Undo is \(grantee.ownerName)'s own: they can undo or correct what was recorded.", status: .forbidden)
        }
        let spot: TapGuard.Spot = action == .undo ? .undo : tap.spot == "answer" ? .answer : .control
        guard TapGuard.counts(spot, elapsed: TapGuard.elapsed(since: drawnAfter, now: wallNow)) else {
            // The settling is not extended by the taps it holds back: it ends when the tap that drew the page settles.
            return try tonightPage(
                context, drawnAfter: drawnAfter,
                banner: spot == .answer
                    ? "That answer came as the question opened, so nothing was done. Tap again to be asked again."
                    : "That tap came right after the last one, so nothing was done.",
                status: .conflict)
        }
        if case .dose1 = kind, try needsSetup() {
            guard let grantee = context.grantee else { return WebPages.redirect("/welcome") }
            return try tonightPage(context, drawnAfter: wallNow, banner: Self.notSetUp(grantee), status: .conflict)
        }
        let confirmValues = tap.confirm ?? []
        let confirmations = Set(confirmValues.compactMap(ConfirmKind.init(rawValue:)))
        let app = environment.useCases()
        let snapshot = try app.night.status()
        // The tap must mean what the person saw: a page older than tonight's last change does nothing.
        if let revision = tap.revision, revision != String(snapshot.revision) {
            return try tonightPage(
                context, drawnAfter: wallNow,
                banner: "Tonight changed just before that tap (\(Self.lastChange(snapshot))), so nothing was done. Check the screen, then tap again.",
                status: .conflict)
        }
        // Every Wake Up asks the same way, the grid's as the bottom row's (D15, D16).
        if Self.isWake(kind), !confirmValues.contains("early_wake"), let question = snapshot.status.earlyWakeQuestion(in: snapshot.timeZone) {
            return try tonightPage(
                context, drawnAfter: wallNow,
                question: TonightView.Question(
                    text: question, safeLabel: "Keep sleeping", safeHref: "/",
                    riskyLabel: "Yes, I'm up", riskyAction: "wake", riskyConfirm: "early_wake"))
        }
        do {
            var nightAction = NightAction(kind, confirmations: confirmations)
            nightAction.actor = context.grantee.map { $0.email ?? $0.person }
            let outcome = try app.night.perform(nightAction, from: .page)
            let after = ISO8601.string(wallNow)
            func wire(_ kind: EventKind) -> String { kind.wireName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
            if action == .undo, let undone = outcome.decision.removed.first {
                return WebPages.redirect("/?undid=\(wire(undone.kind))&after=\(after)")
            }
            guard let event = outcome.decision.event else { return WebPages.redirect("/?after=\(after)") }
            let until = event.recordedAt.addingTimeInterval(TimeInterval(outcome.settings.undoWindowSeconds))
            // The kind by its wire name: the page words it, so a link cannot put words of its own on Tonight.
            return WebPages.redirect("/?did=\(wire(event.kind))&until=\(ISO8601.string(until))&after=\(after)")
        } catch let error as DoseError where error.code != .invalidInput {
            let status = error.httpStatus
            if let question = TonightView.question(for: error, action: Self.isWake(kind) ? "wake" : tap.action, event: tap.event) {
                return try tonightPage(context, drawnAfter: wallNow, question: question, status: status)
            }
            return try tonightPage(context, drawnAfter: wallNow, banner: error.message, status: status)
        }
    }

    /// Whether a tap logs the final wake-up: Wake Up, wherever it sits on the page.
    static func isWake(_ kind: NightAction.Kind) -> Bool {
        switch kind {
        case .wake: true
        case .log(let event): (try? SleepEventCatalogue.standard.resolve(event))?.type == .wakeFinal
        default: false
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
