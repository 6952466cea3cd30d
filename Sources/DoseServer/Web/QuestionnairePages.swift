import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The morning check-in (D16: it asks before ending a night whose Dose 2 is undecided) and the pre-sleep log.
struct QuestionnairePages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/checkin") { request, context in try Self(context).checkIn(context) }
        routes.post("/ui/checkin") { request, context in try await Self(context).saveCheckIn(request, context) }
        routes.get("/presleep") { request, context in try Self(context).preSleep(context) }
        routes.post("/ui/presleep") { request, context in try await Self(context).savePreSleep(request, context) }
        return routes
    }

    func checkIn(_ context: DoseRequestContext, question: CheckInView.Question? = nil) throws -> Response {
        let snapshot = try environment.useCases().night.status()
        var pending: String?
        if snapshot.status.dose2Undecided, let dose1 = snapshot.status.dose1At, let window = snapshot.status.regimen.window {
            // D16: say it before anything is typed, not only after Save.
            pending =
                PendingDose2(dose1: dose1, window: window, at: snapshot.status.asOf, zone: snapshot.timeZone).sentence
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
        let posted = try BodyDecoder.decode(CheckInPageForm.self, form: fields)
        let answers = try AnswerDecoding.decode(MorningCheckIn.self, from: posted.answers, allowed: AnswerDecoding.checkInAllowed)
        let confirmations: Set<ConfirmKind> = posted.confirm == ConfirmKind.endNight.rawValue ? [.endNight] : []
        let outcome: ActionOutcome
        do {
            outcome = try environment.useCases().night.perform(NightAction(.checkIn(answers), confirmations: confirmations), from: .page)
        } catch let error as DoseError where error.confirm == .endNight {
            // Asked, with the answers kept as they were posted for the confirming form: a half-asleep Save must not end
            // the night.
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
        let posted = try await form(request, context, as: PreSleepPageForm.self)
        let log = try AnswerDecoding.decode(PreSleepLog.self, from: posted.answers, allowed: AnswerDecoding.preSleepAllowed)
        _ = try environment.useCases().records.savePreSleep(log, at: nil, note: nil)
        return try Templates.page(
            "notice",
            NoticePage(
                frame: Frame("Pre-sleep saved", current: "", flash: "Pre-sleep log saved."), heading: "Sleep well",
                message: "Your pre-sleep answers are saved with tonight.", link: NoticePage.Link(href: "/", label: "Back to Tonight")))
    }
}
