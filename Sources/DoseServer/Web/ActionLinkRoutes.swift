import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// The pages behind a reminder's signed one-time links. Opening a link only shows what it would do (link previews
/// and prefetchers must not act); its button posts back, goes through the same rules as every surface, and spends
/// the link in the same transaction as the action. A link never confirms a risky dose.
struct ActionLinkRoutes {
    let environment: ServerEnvironment

    /// Links spend their nonce as an idempotency key of this pseudo-device.
    static let spender = "action-link"

    func register(on router: Router<DoseRequestContext>) {
        router.get("/a/:token") { _, context in try show(context) }
        router.post("/a/:token") { _, context in try act(context) }
    }

    /// The link, checked: signature, expiry, not yet used, and for tonight's open night.
    func check(_ context: DoseRequestContext, clock: StoreClock) throws -> (ActionLink, String, StatusSnapshot) {
        let token = context.parameters.get("token") ?? ""
        let signer = ActionLinkSigner(secretHex: try environment.ledger.actionLinkSecret(clock: clock))
        let link = try signer.link(from: token, now: clock.now)
        if try environment.ledger.storedResponse(device: Self.spender, key: link.nonce) != nil {
            throw DoseError.invalidInput(field: "link", problem: "this reminder link was already used", allowed: "the Tonight page, or the next reminder's link")
        }
        let snapshot = try environment.ledger.status(clock: clock)
        guard let session = snapshot.session, session.id.rawValue == link.sessionID else {
            throw DoseError.invalidInput(field: "link", problem: "this reminder link belongs to a night that has ended", allowed: "the Tonight page")
        }
        return (link, token, snapshot)
    }

    func show(_ context: DoseRequestContext) throws -> Response {
        let (link, token, snapshot) = try check(context, clock: environment.clock())
        let status = snapshot.status
        let zone = snapshot.timeZone
        var body = "<h1>\(HTML.escape(link.action.label))?</h1>"
        body += "<p class=\"times\">\(HTML.escape(status.phase.label)) · Dose 1 \(WebPages.clock(status.dose1At, zone)) · window \(WebPages.clock(status.windowOpensAt, zone))–\(WebPages.clock(status.windowClosesAt, zone))</p>"
        body += "<div class=\"row\"><form method=\"post\" action=\"/a/\(HTML.escape(token))\" class=\"inline\"><button type=\"submit\" class=\"button primary\">\(HTML.escape(link.action.label))</button></form></div>"
        body += "<p><a class=\"button\" href=\"/\">Open Tonight instead</a></p>"
        return WebPages.html(HTML.page(title: link.action.label, current: "", body: body))
    }

    func act(_ context: DoseRequestContext) throws -> Response {
        let clock = environment.clock()
        let (link, token, _) = try check(context, clock: clock)
        let spend = IdempotentRequest(device: Self.spender, key: link.nonce, requestHash: DeviceTokens.fingerprint(Data(token.utf8))) { outcome in
            (200, APIRoutes.render(outcome).rendered())
        }
        do {
            let outcome = try environment.ledger.perform(link.nightAction, clock: clock, idempotency: spend)
            let done = outcome.decision.event.map { "\($0.kind.label) recorded at \(WebPages.clock($0.occurredAt, outcome.timeZone))." } ?? "Done."
            let body = "<h1>Done</h1><p class=\"notice\" role=\"status\">\(HTML.escape(done))</p><p><a class=\"button primary\" href=\"/\">Open Tonight (undo is there)</a></p>"
            return WebPages.html(HTML.page(title: "Done", current: "", body: body))
        } catch let error as DoseError where error.confirm != nil {
            // The risk in plain words, and no way to confirm from here: that decision is made awake, on the Tonight page.
            let risk = WebPages.risk(of: error, now: clock.now) ?? error.message
            let body = "<h1>Not done</h1><p class=\"notice\" role=\"alert\">\(HTML.escape(risk))</p><p>A reminder link cannot confirm this. Open Tonight to decide.</p><p><a class=\"button primary\" href=\"/\">Open Tonight</a></p>"
            return WebPages.html(HTML.page(title: "Not done", current: "", body: body), status: HTTPResponse.Status(code: error.httpStatus))
        }
    }
}
