import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// The page an invitation link opens (SPEC §5.6): who shares with the signed-in person, what each grant lets them do,
/// and Accept or Decline. Opening it changes nothing; a browser that is not signed in gets "not paired" and signs in
/// with its own link first.
struct InvitationPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/invitation") { request, context in try Self(context).show(request, context) }
        routes.post("/ui/invitation") { request, context in try await Self(context).answer(request, context) }
        return routes
    }

    struct InvitationView {
        let frame: Frame
        let from, email, grants, expires, token, csrf: String
        let meanings: [String]
    }

    /// What a grant lets its holder do, in the words of the page.
    static func meaning(_ grant: Grant) -> String {
        switch grant {
        case .view: "View: tonight's status, the history, each night's details and the insights."
        case .report: "Report: the insights, the clinician's report and the exports."
        case .alarms: "Alarms: be told when Dose 2 is still pending, and answer the alarm."
        case .log: "Log: record doses and events for them, under the same safety rules as their own taps."
        }
    }

    /// When an invitation stops working, as its pages say it: the day and the time in `zone`.
    static func expiry(_ invitation: InvitationRecord, _ zone: TimeZone) -> String { moment(invitation.expiresAt, zone) }

    /// A link's expiry as a page shows it: its day and time in `zone`.
    static func moment(_ date: Date, _ zone: TimeZone) -> String { SettingsView.day(date, zone) + " " + LocalClock.hourMinute(date, in: zone) }

    func show(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        let app = environment.useCases()
        let (invitation, from) = try app.sharing.invitation(token: token)
        let zone = try app.settings.zone()
        return try Templates.page(
            "invitation",
            InvitationView(
                frame: Frame("Invitation", current: ""), from: from.longName,
                email: invitation.email, grants: SharingService.words(invitation.grants),
                expires: Self.expiry(invitation, zone), token: token,
                csrf: csrf(context), meanings: invitation.grants.map(Self.meaning)))
    }

    func answer(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: InvitationForm.self)
        guard ["accept", "decline"].contains(form.answer) else {
            throw DoseError.invalidInput(field: "answer", problem: "'\(form.answer.prefix(20))'", allowed: "accept or decline")
        }
        let share = try environment.useCases().sharing.answer(token: form.token, accept: form.answer == "accept")
        let message =
            share.map { "\($0.owner.longName) now shares with you: \(SharingService.words($0.grants)). They can revoke it at any time." }
            ?? "Declined. Nothing was shared."
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Invitation", current: ""), heading: share == nil ? "Declined" : "Accepted", message: message,
                link: share.map {
                    $0.grants.contains(.view)
                        ? NoticePage.Link(href: "/people/\($0.owner.id)/", label: "Open their Tonight")
                        : NoticePage.Link(href: "/people", label: "People who share with you")
                }
                    ?? NoticePage.Link(href: "/", label: "Open Tonight")))
    }
}
