import DoseApp
import DoseCore
import DoseStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// History (filters, order, pages, deleting nights after a page that asks), a night's Details, and correcting a
/// dose's time.
struct HistoryPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/history") { request, context in try Self(context).history(request, context) }
        routes.get("/history/delete") { request, context in try Self(context).confirmDelete(request, context) }
        routes.post("/ui/history/delete") { request, context in try await Self(context).deleteNight(request, context) }
        routes.post("/ui/events/time") { request, context in try await Self(context).correctTime(request, context) }
        routes.get("/details") { request, context in try Self(context).details(request, context) }
        return routes
    }

    struct HistoryView {
        struct Night {
            let id, date, outcome, summary: String
            /// The wearable's figures as columns (asleep, deep, awake, recovery or source); empty without one.
            let sleep: [DetailsView.Fact]
            let hasSleep: Bool
            /// Who told the sleep, for the columns' caption.
            let sleepSource: String
            /// Whether it can be chosen for deletion: not while it is open.
            let selectable: Bool
            let hasEvents: Bool
            let events: [EventLine]
        }

        struct Pages {
            let page, count: Int
            let newer, older: String?
        }

        let frame: Frame
        /// Where the page's links lead: "" for the person's own, `/people/{id}` for someone who shares with them.
        let base: String
        /// The person's own history: deleting nights is theirs alone.
        let isOwn: Bool
        let from, to: String
        let filters, orders: [SelectOption]
        let nights: [Night]
        let pages: Pages?
        /// Whether any night on the page can be chosen for deletion.
        let canChoose: Bool
        /// Clear Old's choices, in days.
        /// A night's sleep as History's columns: asleep, deep (where stages were told), awake after falling asleep, and
        /// WHOOP's recovery when it gave one.
        static func sleepColumns(_ figures: SleepFigures) -> [DetailsView.Fact] {
            func minutes(_ value: Double) -> String { DurationText.words(minutes: Int(value.rounded())) }
            var columns = [DetailsView.Fact(name: "Asleep", value: minutes(figures.minutesAsleep))]
            columns.append(DetailsView.Fact(name: "Deep", value: figures.deepMinutes.map(minutes) ?? "—"))
            columns.append(DetailsView.Fact(name: "Awake", value: minutes(figures.wasoMinutes)))
            if let recovery = figures.recovery?.recoveryPercent {
                columns.append(DetailsView.Fact(name: "Recovery", value: "\(Int(recovery.rounded()))%"))
            }
            return columns
        }

        let olderThan = [7, 30, 90, 180, 365, 730].map { SelectOption(value: String($0), label: "\($0) days", selected: $0 == 365) }
    }

    func history(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let parameters = request.uri.queryParameters
        func value(_ name: String) -> String? { parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 } }
        let query = try Self.query(value)
        let app = environment.useCases()
        let zone = try app.settings.zone()
        let result = try app.records.history(query)
        let filter = value("filter") ?? ""
        let filterValues: [(String, String)] =
            [("", "Everything"), ("dose", "Doses"), ("checkin", "Check-ins")]
            + SleepEventCategory.allCases.map { ($0.rawValue, "\(HumanWords.label($0.rawValue)) events") }
            + SleepEventCatalogue.standard.definitions.map { ($0.type.rawValue, $0.label) }
        let orders: [(HistorySort, String)] = [(.newest, "Newest first"), (.oldest, "Oldest first"), (.az, "Events A–Z"), (.za, "Events Z–A")]
        let target = try app.settings.current().targetIntervalMinutes
        let nights = result.groups.flatMap(\.nights).map { Self.row($0, zone: zone, targetMinutes: target) }
        func link(_ page: Int) -> String {
            var items = URLComponents()
            items.queryItems =
                ["from", "to", "filter", "sort"].compactMap { name in value(name).map { URLQueryItem(name: name, value: $0) } }
                + [URLQueryItem(name: "page", value: String(page))]
            return "\(base(context))/history?\(items.percentEncodedQuery ?? "")"
        }
        let view = HistoryView(
            frame: try frame("History", current: "/history", context, flash: value("deleted").map { "Deleted \($0)." }),
            base: base(context), isOwn: context.grantee == nil,
            from: value("from") ?? "", to: value("to") ?? "",
            filters: filterValues.map { SelectOption(value: $0.0, label: $0.1, selected: $0.0 == filter) },
            orders: orders.map { SelectOption(value: $0.0.rawValue, label: $0.1, selected: $0.0 == query.sort) },
            nights: nights,
            pages: result.pageCount > 1
                ? HistoryView.Pages(
                    page: result.page, count: result.pageCount,
                    newer: result.page > 1 ? link(result.page - 1) : nil,
                    older: result.page < result.pageCount ? link(result.page + 1) : nil) : nil,
            canChoose: context.grantee == nil && nights.contains(where: \.selectable))
        return try Templates.page("history", view)
    }

    /// History's query from the page's parameters (empty ones left out): dates, a filter, an order and a page of 14.
    static func query(_ value: (String) -> String?) throws -> HistoryQuery {
        var query = HistoryQuery()
        query.from = try value("from").map { try APIInput.date($0, field: "from") }
        query.to = try value("to").map { try APIInput.date($0, field: "to") }
        if let filter = value("filter") {
            if let category = HistoryCategory(rawValue: filter) { query.categories = [category] } else { query.types = [filter] }
        }
        if let sort = value("sort") {
            guard let order = HistorySort(rawValue: sort) else {
                throw DoseError.invalidInput(
                    field: "sort", problem: "'\(sort)'", allowed: HistorySort.allCases.map(\.rawValue).joined(separator: ", "))
            }
            query.sort = order
        }
        query.grouping = .none
        query.limit = 14
        if let page = value("page") {
            guard let number = Int(page) else { throw DoseError.invalidInput(field: "page", problem: "'\(page)'", allowed: "1 or more") }
            query.page = number
        }
        return query
    }

    /// One night's row: its doses in a line, how Dose 2 went, the wearable's sleep and the events shown.
    static func row(_ night: NightRecord, zone: TimeZone, targetMinutes target: Int) -> HistoryView.Night {
        let facts = night.session.facts
        var summary = "\(RegimenWords.bedtimeDose(facts.regimen)) \(WebPages.clock(facts.dose1?.occurredAt, zone))"
        if let dose2 = facts.dose2 { summary += " · Dose 2 \(WebPages.clock(dose2.occurredAt, zone))" }
        if let minutes = night.intervalMinutes { summary += " · \(minutes) min" }
        // The night's own amounts, so a titration step or a switch of regimen shows in the list.
        if let regimen = facts.regimen, facts.dose1 != nil {
            let extras = facts.extraDoses.map { NightFacts.milligrams(of: $0, regimen: regimen) }
            summary += " · \(RegimenWords.amountsTaken(regimen, dose2Taken: facts.dose2 != nil, extrasMilligrams: extras))"
        }
        if let checkIn = night.checkIn { summary += " · sleep \(checkIn.sleepQuality)/5" }
        // D18: how Dose 2 went, in the one vocabulary; an open night says so, and how its dose went once there is one.
        let timing = DoseTiming.of(facts, targetMinutes: target, closed: !night.session.isOpen)
        var outcome =
            !night.session.isOpen
            ? DoseTiming.badge(timing) : timing.map { $0 == .undecided ? "Open" : "Open · " + DoseTiming.badge($0) } ?? "Open"
        // D20: a night past its limits says so first; how Dose 2 went is not the news of that night.
        if let regimen = facts.regimen, facts.isPastMaximum(regimen: regimen) { outcome = "⚠ Past the maximum · " + outcome }
        let sleep = night.sleep.map { HistoryView.sleepColumns($0.figures) } ?? []
        return HistoryView.Night(
            id: night.session.id.rawValue, date: night.session.date.description, outcome: outcome, summary: summary, sleep: sleep,
            hasSleep: !sleep.isEmpty,
            sleepSource: night.sleep?.figures.sources.joined(separator: ", ") ?? "",
            selectable: !night.session.isOpen,
            hasEvents: !night.shownEvents.isEmpty, events: night.shownEvents.map { EventLine($0, zone: zone) })
    }

    struct DeleteNightsView {
        let frame = Frame("Delete nights", current: "/history")
        let csrf: String
        /// "the night of 2026-11-04 (12 events)" or "3 nights (2026-11-01 to 2026-11-03), 9 events".
        let what: String
        let dates: [String]
        /// Set for Clear Old: every night dated before it.
        let before: String?
        let listed: Bool
    }

    /// The nights a deletion form or link names: `date` (repeated, from History's checkboxes), or `older_than` days
    /// (Clear Old: every night dated before tonight's date less that many days).
    func nightSelection(dates: [String], olderThan: String?) throws -> NightSelection {
        if let olderThan, !olderThan.isEmpty {
            guard dates.isEmpty else {
                throw DoseError.invalidInput(field: "older_than", problem: "given with dates", allowed: "either chosen nights or older_than days")
            }
            guard let days = Int(olderThan), (1...36_500).contains(days) else {
                throw DoseError.invalidInput(field: "older_than", problem: "'\(olderThan.prefix(20))'", allowed: "a number of days from 1 to 36500")
            }
            return try environment.useCases().records.olderThan(days: days)
        }
        guard !dates.isEmpty else {
            throw DoseError.invalidInput(field: "date", problem: "no night was chosen", allowed: "tick one or more nights on History")
        }
        return .dates(try dates.map { try APIInput.date($0, field: "date") })
    }

    func confirmDelete(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let parameters = request.uri.queryParameters
        let dates: [String] = parameters.getAll("date").map { String($0) }.filter { !$0.isEmpty }
        let selection = try nightSelection(dates: dates, olderThan: parameters["older_than"].map { String($0) })
        let preview = try environment.useCases().records.deletionPreview(selection)
        let before: String? = if case .before(let date) = selection { date.description } else { nil }
        return try Templates.page(
            "delete-night",
            DeleteNightsView(
                csrf: csrf(context), what: preview.words, dates: before == nil ? Set(preview.dates).sorted().map { $0.description } : [],
                before: before,
                listed: before == nil))
    }

    func deleteNight(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let chosen = try await form(request, context, as: DeleteNightsForm.self)
        let selection: NightSelection =
            if let before = chosen.before {
                .before(try APIInput.date(before, field: "before"))
            } else {
                try nightSelection(dates: chosen.date ?? [], olderThan: nil)
            }
        let deleted = try environment.useCases().records.deleteNights(selection, surface: "web")
        var items = URLComponents()
        items.queryItems = [URLQueryItem(name: "deleted", value: deleted.words)]
        return WebPages.redirect("/history?\(items.percentEncodedQuery ?? "")")
    }

    /// Tonight in detail, or with `?date=` a night of the record; either with its wearable sleep when imported.
    /// Corrects a dose's time from Details (D17: Tonight links the night whose dose holds a new Dose 1 back here). The
    /// rules check the night again; the audit log keeps the old time.
    func correctTime(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let correction = try await form(request, context, as: CorrectTimeForm.self)
        let app = environment.useCases()
        let at = try ClockInput.localDateTime(correction.at, in: try app.settings.zone(), field: "at")
        let night = correction.night ?? ""
        do {
            let edit = try app.records.editEvent(EventID(rawValue: correction.id), occurredAt: at, note: .none)
            let moved = (edit.after ?? edit.before).id.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return WebPages.redirect("/details?night=\(night.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&corrected=\(moved)")
        } catch let error as DoseError {
            return try Templates.page(
                "notice",
                NoticePage(
                    frame: Frame("Not corrected", current: ""), heading: "Not corrected", message: error.message { _ in nil },
                    link: NoticePage.Link(
                        href: "/details?night=\(night.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
                        label: "Back to that night")),
                status: error.httpStatus)
        }
    }

    func details(_ request: Request, _ context: DoseRequestContext) throws -> Response {
        let app = environment.useCases()
        let snapshot = try app.night.status()
        let byID = request.uri.queryParameters["night"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let byDate = request.uri.queryParameters["date"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        if byID != nil || byDate != nil {
            // By id (History links every night so); a date alone shows its latest night.
            let record: NightRecord
            if let byID {
                record = try app.records.night(id: SessionID(rawValue: byID))
            } else {
                let date = try APIInput.date(byDate ?? "", field: "date")
                guard let last = try app.records.nights(on: date).last else { throw DoseError.notFound(what: "A night dated \(date)") }
                record = last
            }
            let session = record.session
            let date = session.date
            let status = NightStatus.derive(
                session: session, at: session.endedAt ?? app.clock.now, settings: snapshot.settings, timeZone: snapshot.timeZone)
            let alarms = AlarmLogResponse(try app.alarms.log(session: session.id), sessionID: session.id, zone: snapshot.timeZone)
            let view = DetailsView(
                session: session, status: status, settings: snapshot.settings, zone: snapshot.timeZone, csrf: csrf(context), alarms: alarms,
                sleep: record.sleep, heading: "Night of \(date)", givenBy: givenBy(status.dose2ActedBy, context))
            // After a correction: the dose's time as it is now, worded from the record (the link carries only the event's id).
            let corrected = request.uri.queryParameters["corrected"].flatMap { id in session.events.first { $0.id.rawValue == id } }
            return try Templates.page(
                "details",
                try shown(
                    view, context,
                    flash: corrected.map { "Corrected: \($0.kind.label) now at \(WebPages.clock($0.occurredAt, snapshot.timeZone))." }))
        }
        let alarms = try snapshot.session.map { AlarmLogResponse(try app.alarms.log(session: $0.id), sessionID: $0.id, zone: snapshot.timeZone) }
        let sleep = try snapshot.session.flatMap { try app.records.nights(on: $0.date).first { $0.session.id == snapshot.session?.id }?.sleep }
        let view = DetailsView(
            snapshot, csrf: csrf(context), alarms: alarms, sleep: sleep, givenBy: givenBy(snapshot.status.dose2ActedBy, context))
        return try Templates.page("details", try shown(view, context))
    }

    /// Details as the browser's person sees it: their own, with corrections; or a grantee's view of someone's night, in
    /// that person's zone, with the grid only when the share lets them log and no corrections (those are the person's).
    func shown(_ view: DetailsView, _ context: DoseRequestContext, flash: String? = nil) throws -> DetailsView {
        var view = view
        view.frame = try frame("Details", current: "/details", context, flash: flash)
        guard let grantee = context.grantee else { return view }
        view.base = grantee.pageBase
        if var card = view.card {
            card.events = card.events.map { line in
                var line = line
                line.correct = nil
                return line
            }
            view.card = card
        }
        if !grantee.grants.contains(.log) {
            view.grid = []
            view.logsHere = false
        }
        return view
    }
}
