import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// The operator's page (issue 56), for a person marked operator: the people (add one, send a sign-in link, remove one
/// with the phrase), pending invitations, the mail queue and its failures, reminder lateness over the last day, the
/// instances alive and the database's state, and the audit of every operator action. Anyone else is refused.
struct OperatorPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/operator") { request, context in
            try await Self(context).page(context, flash: try Self.flash(request.uri.queryParameters["done"].map(String.init)))
        }
        routes.post("/operator/people") { request, context in try await Self(context).add(request, context) }
        routes.post("/operator/link") { request, context in try await Self(context).link(request, context) }
        routes.post("/operator/remove") { request, context in try await Self(context).remove(request, context) }
        return routes
    }

    /// The words of a redirect's `done=`.
    static let done = ["removed": "Removed, with every record of theirs. The audit below keeps that it was done."]

    static func flash(_ done: String?) throws -> String? { try WebPages.flash(done, from: Self.done) }

    struct PersonRow {
        let id, who, added, phrase: String
        let isOperator, isYou: Bool
    }

    struct MailRow {
        let to, kind, state, detail: String
        let failed: Bool
    }

    struct OperatorView {
        let frame: Frame
        let csrf: String
        /// A sign-in link just made, to give the person, when this DoseTap sends no mail.
        let link: String?
        let sendsMail: Bool
        let email, name: String
        let people: [PersonRow]
        let invitations: [SharingPages.Row]
        let mail: [MailRow]
        /// How many messages failed, as words ("2 messages failed"), or nil when none did.
        let mailFailed: String?
        let lateness: String
        let instances: [String]
        let database: [String]
        let audit: [SharingPages.AuditView.Entry]
    }

    func page(
        _ context: DoseRequestContext, flash: String? = nil, link: String? = nil, email: String = "", name: String = "",
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let app = environment.useCases()
        let (overview, zone) = try await BlockingWork.run { (try app.operatorPage.overview(), try app.settings.zone()) }
        func when(_ date: Date) -> String { SettingsView.day(date, zone) + " " + LocalClock.hourMinute(date, in: zone) }
        let me = app.store.personID
        let people = overview.people.map { person in
            PersonRow(
                id: person.id, who: person.longName, added: SettingsView.day(person.createdAt, zone),
                phrase: PeopleService.removalPhrase(person.shownName), isOperator: overview.operators.contains(person.id), isYou: person.id == me)
        }
        let reading = overview.reading
        let invitations = reading.invitations.map {
            SharingPages.Row(
                id: "", who: $0.email, grants: "", detail: "from \($0.from), until \(when($0.expiresAt))", canCancel: false, canRevoke: false)
        }
        let mail = overview.mail.map { entry in
            let detail =
                switch entry.state {
                case "pending": "try \(entry.attempts + 1) at \(when(entry.nextAttemptAt))" + (entry.lastError.map { "; last: \($0)" } ?? "")
                case "failed": "gave up after \(entry.attempts) tries: \(entry.lastError ?? "no reason kept")"
                default: "sent"
                }
            return MailRow(
                to: entry.recipient, kind: entry.kind.replacingOccurrences(of: "_", with: "-"), state: entry.state,
                detail: "queued \(when(entry.createdAt)), \(detail)", failed: entry.state == "failed")
        }
        let database = reading.database
        return try Templates.page(
            "operator",
            OperatorView(
                frame: Frame("Operator", current: "/settings", flash: flash), csrf: csrf(context), link: link, sendsMail: app.sendsMail, email: email,
                name: name, people: people, invitations: invitations, mail: mail, mailFailed: Self.failures(mail.filter(\.failed).count),
                lateness: Self.lateness(reading),
                instances: reading.instances.map { "\($0.id.prefix(8)): up since \(when($0.startedAt)), seen \(when($0.lastSeenAt))" },
                database: [
                    database.server.split(separator: ",").first.map(String.init) ?? database.server,
                    "\(NumberText.tenths(Double(database.bytes) / 1_048_576)) MB, \(database.people) people",
                    "schema: \(database.migrations) migrations, the last \(database.migration)",
                    "connections: \(database.connections) of \(database.maxConnections)",
                ],
                audit: reading.audit.map {
                    SharingPages.AuditView.Entry(
                        when: when($0.at), who: $0.actor, action: Self.actionWords[$0.action] ?? $0.action, detail: $0.detail)
                }),
            status: status)
    }

    /// The audit's actions in words.
    static let actionWords = [
        "added": "added", "link_shown": "made a sign-in link for", "link_mailed": "mailed a sign-in link to", "removed": "removed",
        "operator_on": "made an operator", "operator_off": "took operator off",
    ]

    /// Reminder lateness in words: its median and 99th percentile, or that none fired.
    static func lateness(_ reading: OperatorReading) -> String {
        guard reading.remindersFired > 0, let p50 = reading.latenessP50, let p99 = reading.latenessP99 else {
            return "No reminder fired in the last 24 hours."
        }
        let verdict = p99 > 2 ? " Late: the 99th percentile is over 2 s." : ""
        return
            "\(reading.remindersFired) reminders fired in the last 24 hours: half within \(seconds(p50)), 99 in 100 within \(seconds(p99)).\(verdict)"
    }

    static func failures(_ count: Int) -> String? {
        count == 0 ? nil : count == 1 ? "1 message failed: its reason is below." : "\(count) messages failed: their reasons are below."
    }

    static func seconds(_ value: Double) -> String { NumberText.tenths(value) + " s" }

    func add(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: OperatorAddForm.self)
        let app = environment.useCases()
        let base = WebPages.ownAddress(request, context)
        let name = form.name.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        do {
            let (flash, link) = try await BlockingWork.run { () throws -> (String, String?) in
                let people = try app.operatorPage.people()
                let added = try people.add(email: form.email, name: name)
                return try Self.signInLink(for: added, people: people, mails: app.sendsMail, base: base, introduction: "Added \(added.longName). ")
            }
            return try await page(context, flash: flash, link: link)
        } catch let error as DoseError where error.httpStatus.code < 500 && error.httpStatus != .forbidden {
            return try await page(context, flash: error.message, email: form.email, name: form.name ?? "", status: error.httpStatus)
        }
    }

    func link(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: ChosenForm.self)
        let app = environment.useCases()
        let base = WebPages.ownAddress(request, context)
        do {
            let (flash, link) = try await BlockingWork.run { () throws -> (String, String?) in
                let people = try app.operatorPage.people()
                return try Self.signInLink(for: try people.person(form.id), people: people, mails: app.sendsMail, base: base, introduction: "")
            }
            return try await page(context, flash: flash, link: link)
        } catch let error as DoseError where error.httpStatus.code < 500 && error.httpStatus != .forbidden {
            return try await page(context, flash: error.message, status: error.httpStatus)
        }
    }

    /// A new sign-in link for `person`: mailed when this DoseTap sends mail, else returned to show the operator.
    static func signInLink(for person: PersonRecord, people: PeopleService, mails: Bool, base: String, introduction: String) throws -> (
        String, String?
    ) {
        if mails, person.email != nil {
            let (_, expiresAt) = try people.mailSignInLink(for: person.id, base: base)
            return (introduction + "A sign-in link is on its way to \(person.shownName); it works once, until \(ISO8601.string(expiresAt)).", nil)
        }
        let (_, url, _) = try people.signInLink(for: person.id, base: base)
        return (introduction + "Give \(person.shownName) this sign-in link; it works once, within 24 hours, and older ones stop working:", url)
    }

    func remove(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: OperatorRemoveForm.self)
        let app = environment.useCases()
        do {
            try await BlockingWork.run {
                let people = try app.operatorPage.people()
                guard form.id != app.store.personID else {
                    throw DoseError.invalidInput(
                        field: "id", problem: "you cannot remove yourself from your own operator's page",
                        allowed: "another operator, or `dosetap person remove`")
                }
                let person = try people.person(form.id)
                guard form.confirm?.trimmingCharacters(in: .whitespaces) == PeopleService.removalPhrase(person.shownName) else {
                    throw DoseError.invalidInput(
                        field: "confirm", problem: "removing \(person.shownName) deletes every record of theirs and cannot be undone",
                        allowed: "the phrase typed exactly: \(PeopleService.removalPhrase(person.shownName))")
                }
                _ = try people.remove(person.id, confirmation: PeopleService.removalPhrase(person.shownName))
            }
        } catch let error as DoseError where error.httpStatus.code < 500 && error.httpStatus != .forbidden {
            return try await page(context, flash: error.message, status: error.httpStatus)
        }
        return WebPages.redirect("/operator?done=removed")
    }
}
