import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Insights page, the weekly planner's apply form, the Report page and the report file itself.
struct InsightsPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/insights") { request, context in try Self(context).insights(request, context) }
        routes.post("/ui/planner") { request, context in try await Self(context).applyPlanner(request, context) }
        routes.get("/report") { request, context in try Self(context).reportPage(request, context) }
        routes.get("/report/file") { request, context in try await Self(context).reportFile(request) }
        return routes
    }

    func insights(_ request: Request, _ context: DoseRequestContext, flash: String? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        let (nights, from, to) = try APIInput.period(request, form: true)
        let result = try environment.useCases().insights.insights(nights: nights, from: from, to: to)
        var view = InsightsView(result, csrf: csrf(context), flash: flash, base: base(context))
        view.frame = try frame("Insights", current: "/insights", context, flash: flash)
        // The planner changes the person's own target: a grantee reads the figures, never the setting.
        view.isOwn = context.grantee == nil
        view.showsReport = context.grantee.map { $0.grants.contains(.report) } ?? true
        return try Templates.page("insights", view, status: status)
    }

    func applyPlanner(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let planner = try await form(request, context, as: PlannerForm.self)
        let flash: String
        let status: HTTPResponse.Status
        do {
            let applied = try environment.useCases().insights.applyPlanner(minutes: planner.targetInterval, confirmed: planner.confirm == true)
            flash =
                "Target changed from \(applied.suggestion.currentMinutes) to \(applied.settings.targetIntervalMinutes) minutes. Settings can "
                + "change it back."
            status = .ok
        } catch let error as DoseError where error.code == .invalidInput {
            (flash, status) = (error.message, .badRequest)
        }
        // The page again, for the default period, with the answer on top.
        return try insights(request, context, flash: flash, status: status)
    }

    func reportPage(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let (nights, from, to) = try APIInput.period(request, form: true)
        let result = try environment.useCases().insights.insights(nights: nights, from: from, to: to)
        var view = ReportPageView(result, base: base(context), printsPDF: PDFPrinter.available())
        view.frame = try frame("Report", current: "/insights", context)
        return try Templates.page("report-page", view)
    }

    /// The self-contained report: opened in the browser to print, downloaded with `download=1`, or printed to PDF on
    /// the server with `format=pdf` (headless Chromium, as `dosetap report --pdf`).
    func reportFile(_ request: Request) async throws -> Response {
        let (nights, from, to) = try APIInput.period(request, form: true)
        let parameters = request.uri.queryParameters
        let paper = try ClinicianReport.Paper.named(parameters["paper"].map(String.init) ?? "a4")
        let format = parameters["format"].map(String.init) ?? "html"
        guard ["html", "pdf"].contains(format) else {
            throw DoseError.invalidInput(field: "format", problem: "'\(format.prefix(20))'", allowed: "html (the default) or pdf")
        }
        let app = environment.useCases()
        let (html, result) = try ClinicianReport.html(
            app.insights, nights: nights, from: from, to: to, paper: paper, generatedAt: app.clock.now,
            zone: app.clock.zone(try app.settings.current()))
        let name = ClinicianReport.fileName(result.insights.period)
        var headers = HTTPFields()
        if format == "pdf" {
            let bytes = try await BlockingWork.run { try PDFPrinter.pdf(html: html, app: app) }
            headers[.contentType] = "application/pdf"
            headers[.contentDisposition] = "attachment; filename=\"\(name.replacingOccurrences(of: ".html", with: ".pdf"))\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = ClinicianReport.contentSecurityPolicy
        if parameters["download"] != nil { headers[.contentDisposition] = "attachment; filename=\"\(name)\"" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// A choice of 7, 30 or 90 nights on a page, marked when it is the period shown.
struct PeriodLink {
    let href, label: String
    let current: Bool

    /// "Last 30 nights", or "Chosen dates" (the dates themselves follow on the page).
    static func heading(_ period: InsightsPeriod) -> String { period.length == nil ? "Chosen dates" : period.label }

    static func all(page: String, chosen: InsightsPeriod) -> [PeriodLink] {
        InsightsPeriod.lengths.map { PeriodLink(href: "\(page)?nights=\($0)", label: "\($0) nights", current: chosen.length == $0) }
    }
}

/// The Insights page.
struct InsightsView {
    struct Medication {
        let name, value: String
    }

    /// The planner's suggestion as stored values (the template reads stored properties only).
    struct Planner {
        let reason: String
        let isChange: Bool
        let currentMinutes, suggestedMinutes: Int
    }

    var frame: Frame
    let csrf: String
    let periodLabel: String
    let periods: [PeriodLink]
    let from, to: String
    let insufficient: Bool
    let nightsNeeded: String
    let figures: [InsightFigure]
    let charts: [RenderedChart]
    let correlations: [String]
    let hasCorrelations: Bool
    let hiddenCorrelations: String
    let caveat: String
    let medications: [Medication]
    let hasMedications: Bool
    let planner: Planner
    let plannerKind: String
    let safetyWarning: String
    let reportHref: String
    /// Where the page's links lead: "" for the person's own, `/people/{id}` for someone who shares with them.
    let base: String
    /// The person's own insights: the planner, which changes their target, is theirs alone.
    var isOwn = true
    /// The report link, shown to the person and to a grantee holding `report`.
    var showsReport = true

    init(_ result: InsightsResult, csrf: String, flash: String? = nil, base: String = "") {
        let insights = result.insights
        frame = Frame("Insights", current: "/insights", flash: flash)
        self.csrf = csrf
        self.base = base
        periodLabel = PeriodLink.heading(insights.period)
        periods = PeriodLink.all(page: base + "/insights", chosen: insights.period)
        (from, to) = (insights.period.from.description, insights.period.to.description)
        insufficient = insights.state == .insufficientData
        let needed = insights.nightsNeeded
        nightsNeeded = "\(needed) more night\(needed == 1 ? "" : "s") with Dose 1"
        figures = InsightFigure.all(insights)
        charts = [InsightCharts.interval(insights), InsightCharts.calendar(insights), InsightCharts.wellness(insights)]
        correlations = insights.shownCorrelations.compactMap(\.sentence)
        hasCorrelations = !correlations.isEmpty
        let hidden = insights.correlations.count - correlations.count
        hiddenCorrelations =
            hidden == 0
            ? ""
            : "\(hidden) of \(insights.correlations.count) comparisons are not shown: each needs at least \(FactorComparison.minimumNights) "
                + "nights with the factor and \(FactorComparison.minimumNights) without, from check-ins, pre-sleep logs and imported wearable "
                + "sleep (Settings → Sleep from wearables)."
        caveat = FactorComparison.caveat
        medications = insights.medications.map { Medication(name: $0.name, value: "\($0.nightsTaken) of \(insights.nightsRecorded) nights") }
        hasMedications = !medications.isEmpty
        let suggestion = result.planner
        planner = Planner(
            reason: suggestion.reason, isChange: suggestion.isChange, currentMinutes: suggestion.currentMinutes,
            suggestedMinutes: suggestion.suggestedMinutes)
        plannerKind = result.planner.kind.rawValue
        safetyWarning = PlannerSuggestion.safetyWarning
        reportHref = "\(base)/report?from=\(from)&to=\(to)"
    }
}

/// The Report page: choose the period and the paper, then open, print or download the report.
struct ReportPageView {
    var frame = Frame("Report", current: "/insights")
    let base: String
    let periods: [PeriodLink]
    let from, to, periodLabel: String
    let nights: Int
    let onTarget: String
    let a4, letter, downloadA4, downloadLetter: String
    /// The PDF, printed on the server; nil where no Chromium is installed to print it.
    let pdfA4, pdfLetter: String?

    init(_ result: InsightsResult, base: String = "", printsPDF: Bool = false) {
        let insights = result.insights
        self.base = base
        periods = PeriodLink.all(page: base + "/report", chosen: insights.period)
        (from, to) = (insights.period.from.description, insights.period.to.description)
        periodLabel = PeriodLink.heading(insights.period)
        nights = insights.nightsRecorded
        onTarget = insights.adherence.percent(.onTarget).map { "\(Correlation.decimal($0, places: 1))%" } ?? "—"
        let file = "\(base)/report/file?from=\(from)&to=\(to)"
        (a4, letter) = (file + "&paper=a4", file + "&paper=letter")
        (downloadA4, downloadLetter) = (a4 + "&download=1", letter + "&download=1")
        (pdfA4, pdfLetter) = printsPDF ? (a4 + "&format=pdf", letter + "&format=pdf") : (nil, nil)
    }
}
