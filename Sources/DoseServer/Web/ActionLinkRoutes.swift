import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird

/// The pages behind a reminder's signed one-time links. Opening a link only shows what it would do (link previews
/// and prefetchers must not act); its button posts back, goes through the same rules as every surface, and spends
/// the link in the same transaction as the action. A link never confirms a risky dose.
struct ActionLinkRoutes: SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// Links spend their nonce as an idempotency key of this pseudo-device.
    static let spender = "action-link"

    /// The methods a link takes: opening it (GET, and HEAD with it) and its button (POST).
    static let methods: Set<HTTPRequest.Method> = [.get, .head, .post]

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/a/:token") { request, context in try Self(context).show(context) }
        routes.post("/a/:token") { request, context in try Self(context).act(request, context) }
        return routes
    }

    /// Whether an earlier tap spent the link.
    static func isSpent(_ link: ActionLink, _ app: UseCases) throws -> Bool {
        try app.devices.storedResponse(device: spender, key: link.nonce) != nil
    }

    /// Tonight, if the link belongs to tonight's open night.
    static func tonight(of link: ActionLink, _ app: UseCases) throws -> StatusSnapshot {
        let snapshot = try app.night.status()
        guard let session = snapshot.session, session.id.rawValue == link.sessionID else {
            throw DoseError.invalidInput(field: "link", problem: "this reminder link belongs to a night that has ended", allowed: "the Tonight page")
        }
        return snapshot
    }

    /// The link a token stands for, if it is signed, unexpired, and its device (if it was issued to one) not revoked:
    /// revoking a lost phone voids every link sent to it.
    static func link(_ token: String, _ app: UseCases) throws -> ActionLink {
        let link = try app.reminders.signer().link(from: token, now: app.clock.now)
        if let device = link.deviceID, try !app.devices.isActive(device) {
            throw DoseError.forbidden(
                why: "this reminder was sent to a device that has been revoked, so its links no longer work; use the Tonight page on a paired device")
        }
        return link
    }

    /// The answer to a link already spent by an earlier tap of it: done, nothing more recorded.
    static func alreadyDone(json: Bool) throws -> Response {
        let message = "Already done: this reminder link was used a moment ago, and nothing more was recorded. Tonight shows the night."
        if json { return Reply.json(JSONValue(dictionaryLiteral: ("done", true), ("message", .string(message)))) }
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Done", current: ""), heading: "Already done", message: message, link: NoticePage.Link(href: "/", label: "Open Tonight"))
        )
    }

    struct LinkView {
        let frame: Frame
        let label, times, token: String
    }

    func show(_ context: DoseRequestContext) throws -> Response {
        let app = environment.useCases()
        let token = context.parameters.get("token") ?? ""
        let link = try Self.link(token, app)
        if try Self.isSpent(link, app) {
            throw DoseError.invalidInput(
                field: "link", problem: "this reminder link was already used", allowed: "the Tonight page, or the next reminder's link")
        }
        let snapshot = try Self.tonight(of: link, app)
        let status = snapshot.status
        let zone = snapshot.timeZone
        let times =
            "\(status.phase.label) · Dose 1 \(WebPages.clock(status.dose1At, zone)) · window "
            + "\(WebPages.clock(status.windowOpensAt, zone))–\(WebPages.clock(status.windowClosesAt, zone))"
        return try Templates.page(
            "action-link", LinkView(frame: Frame(link.action.label, current: ""), label: link.action.label, times: times, token: token))
    }

    /// Performs the link's action. A notification's button (the service worker) adds `?via=push`, so the alarm log
    /// says the alarm was answered from the notification.
    func act(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let app = environment.useCases()
        // The service worker asks for JSON: it answers a notification's button with a notification, not a page.
        let wantsJSON = (request.headers[.accept] ?? "").contains("application/json")
        // A second tap of the same link (a double tap, or two at once) answers what the first did: it is done.
        let token = context.parameters.get("token") ?? ""
        let link = try Self.link(token, app)
        if try Self.isSpent(link, app) { return try Self.alreadyDone(json: wantsJSON) }
        _ = try Self.tonight(of: link, app)
        let spend = IdempotentRequest(device: Self.spender, key: link.nonce, requestHash: DeviceTokens.fingerprint(Data(token.utf8))) { outcome in
            (200, NightController.render(outcome).rendered())
        }
        do {
            let outcome = try app.night.perform(
                link.nightAction, from: request.uri.queryParameters["via"] == "push" ? .push : .link, idempotency: spend)
            let done =
                outcome.decision.event.map {
                    let at = WebPages.clock($0.occurredAt, outcome.timeZone)
                    return $0.kind == .dose2Skipped ? "Dose 2 skipped at \(at)." : "\($0.label) recorded at \(at)."
                } ?? "Done."
            if wantsJSON { return Reply.json(JSONValue(dictionaryLiteral: ("done", true), ("message", .string(done + " Undo is on Tonight.")))) }
            return try Templates.page(
                "notice",
                NoticePage(
                    frame: Frame("Done", current: ""), heading: "Done", message: done,
                    link: NoticePage.Link(href: "/", label: "Open Tonight (undo is there)")))
        } catch is AlreadyAnswered {
            // The other tap of the pair committed first.
            return try Self.alreadyDone(json: wantsJSON)
        } catch let error as DoseError where error.confirm != nil && wantsJSON {
            return Reply.error(error)
        } catch let error as DoseError where error.confirm != nil {
            // The risk in plain words, and no way to confirm from here: that decision is made awake, on the Tonight page.
            return try Templates.page(
                "notice",
                NoticePage(
                    frame: Frame("Not done", current: ""), heading: "Not done",
                    message: error.message { _ in nil } + " A reminder link cannot confirm this; open Tonight to decide.",
                    link: NoticePage.Link(href: "/", label: "Open Tonight")),
                status: error.httpStatus)
        }
    }
}
