import DoseApp
import DoseCore
import DoseStore
import Foundation
import Hummingbird

/// The sharing pages (SPEC §5.6): People (those who share with the signed-in person, each with their latest night and
/// their last 30 nights at a glance, as a clinician's list of patients), Settings → Sharing (invite, cancel, revoke) and
/// the access audit. On a SQLite file they say that sharing needs a shared store.
struct SharingPages: PageController, SiteController {
    let site: PersonSite
    var environment: AppEnvironment { site.environment }

    /// The routes, at the root of the site.
    static var routes: RouteCollection<DoseRequestContext> {
        let routes = RouteCollection(context: DoseRequestContext.self)
        routes.get("/people") { request, context in
            try await Self(context).people(context, named: request.uri.queryParameters["name"].map(String.init))
        }
        routes.get("/settings/sharing") { request, context in
            try Self(context).sharing(context, flash: try Self.flash(request.uri.queryParameters["done"].map(String.init)))
        }
        routes.post("/ui/shares") { request, context in try await Self(context).invite(request, context) }
        routes.post("/ui/shares/revoke") { request, context in try await Self(context).revoke(request, context) }
        routes.post("/ui/ladder") { request, context in try await Self(context).saveLadder(request, context) }
        routes.post("/ui/people/mail-alerts") { request, context in try await Self(context).mailAlerts(request, context) }
        routes.get("/settings/audit") { request, context in try Self(context).audit() }
        return routes
    }

    /// The words of a redirect's `done=` after a change.
    static let done = [
        "cancelled": "Invitation cancelled.", "revoked": "Share revoked: it no longer opens anything, from now on.",
        "ladder": "Alarm ladder saved.",
    ]

    /// The sentence `done` (what a form just did, carried by its redirect) shows.
    static func flash(_ done: String?) throws -> String? { try WebPages.flash(done, from: Self.done) }

    struct PersonCard {
        let name, email, grants, since: String
        let latest, recent: String?
        let tonight, report: String?
        /// "you can answer their alarms", and when they are on the ladder, at which minute they are told.
        let alarms: String?
        /// The last 7 nights' Dose 2 that went wrong, the last Dose 1 and the wellness trend, in words, as one paragraph
        /// (`CareConcern`); nil without `view` or `report`.
        let concerns: String?
        let attention: Bool
        /// With `alarms` and mail on: the owner's id, and whether their alerts are mailed to the reader too.
        let mailAlerts: MailAlerts?
    }

    struct MailAlerts {
        let owner: String
        let on: Bool
        let csrf: String
    }

    struct PeopleView {
        let frame: Frame
        let people: [PersonCard]
        let none: Bool
        /// The name filter typed, and whether it left no one out of several.
        let named: String
        let filtered: Bool
        /// The search is offered from `searchFrom` people on, or while a search is shown.
        let searchable: Bool
        /// How many need attention, in words; nil when none does.
        let attention: String?
        /// DoseTap is not set up for the person's own nights (Tonight sends someone who only looks after others here).
        let setUpOwn: Bool
    }

    func people(_ context: DoseRequestContext, named: String?) async throws -> Response {
        let app = environment.useCases()
        try requireShared()
        let token = csrf(context)
        let (cards, setUpOwn) = try await BlockingWork.run {
            let zone = try app.settings.zone()
            return (
                try app.sharing.overview(named: named).map { Self.card($0, zone: zone, mails: app.sendsMail, csrf: token) },
                try app.setup.isRequiredBeforeDose1()
            )
        }
        var frame = Frame("People", current: "")
        frame.switcher = Frame.switcher(showing: try switcher(context, onTonight: false))
        let typed = named?.trimmingCharacters(in: .whitespaces) ?? ""
        return try Templates.page(
            "people",
            PeopleView(
                frame: frame, people: cards, none: cards.isEmpty && typed.isEmpty, named: typed, filtered: !typed.isEmpty,
                searchable: !typed.isEmpty || cards.count >= Self.searchFrom,
                attention: Self.attention(cards.filter(\.attention).count), setUpOwn: setUpOwn))
    }

    /// Below this many people the list fits a screen, and a search would only push it down.
    static let searchFrom = 6

    static func attention(_ count: Int) -> String? {
        count == 0 ? nil : count == 1 ? "1 person needs attention and comes first." : "\(count) people need attention and come first."
    }

    /// A person's concerns in words, worst first.
    static func concerns(_ concern: CareConcern) -> [String] {
        var lines: [String] = []
        let wrong = [("missed", concern.missed), ("late", concern.late), ("early", concern.early)].filter { $0.1 > 0 }
        let nights = "\(concern.nights) night\(concern.nights == 1 ? "" : "s") with Dose 1"
        lines.append(
            wrong.isEmpty
                ? "Last \(CareConcern.recentNights) nights: no Dose 2 early, late or missed (\(nights)"
                    + (concern.skipped > 0 ? ", \(concern.skipped) skipped" : "") + ")."
                : "Last \(CareConcern.recentNights) nights: Dose 2 " + wrong.map { "\($0.0) \($0.1)×" }.joined(separator: ", ") + " (\(nights))."
        )
        switch concern.daysSinceLastNight {
        case nil: lines.append("No Dose 1 logged yet.")
        case 0?: lines.append("Dose 1 logged tonight.")
        case 1?: lines.append("Last Dose 1 logged last night.")
        case let days?: lines.append("No Dose 1 logged for \(days) days.")
        }
        if let wellness = concern.wellness {
            let change = concern.wellnessChange.map { change in
                abs(change) < CareConcern.wellnessShift
                    ? ", steady"
                    : change < 0
                        ? ", down \(NumberText.tenths(-change)) from the 3 weeks before" : ", up \(NumberText.tenths(change)) from the 3 weeks before"
            }
            lines.append("Wellness \(NumberText.tenths(wellness)) of 100\(change ?? "").")
        } else {
            lines.append("No morning check-in in the last \(CareConcern.recentNights) nights.")
        }
        return lines
    }

    /// One person who shares, as their card words them.
    static func card(_ overview: SharedPersonOverview, zone: TimeZone, mails: Bool = false, csrf: String = "") -> PersonCard {
        let share = overview.share
        let grants = Set(share.grants)
        let base = "/people/\(share.owner.id)/"
        var latest: String?
        if grants.contains(.view) {
            latest =
                overview.latest.map { night in
                    let interval = night.intervalMinutes.map { ", Dose 2 after \(DurationText.words(minutes: $0))" } ?? ""
                    return "Latest night, \(night.date): \(night.timing.mark) \(night.timing.label)\(interval)."
                } ?? "No night with Dose 2 decided in the last \(SharedPersonOverview.recentNights) nights."
        }
        let recent = overview.recent.map { adherence in
            guard let percent = adherence.percent(.onTarget) else {
                return "Last \(SharedPersonOverview.recentNights) nights: no night with Dose 2 decided yet."
            }
            return "Last \(SharedPersonOverview.recentNights) nights: Dose 2 on target \(NumberText.tenths(percent))% "
                + "(\(adherence.count(.onTarget)) of \(adherence.decided) decided nights)."
        }
        return PersonCard(
            name: share.owner.name ?? share.owner.shownName, email: share.owner.email ?? "", grants: SharingService.words(share.grants),
            since: SettingsView.day(share.createdAt, zone), latest: latest, recent: recent, tonight: grants.contains(.view) ? base : nil,
            report: grants.contains(.report) ? base + "report/file?nights=\(SharedPersonOverview.recentNights)" : nil,
            alarms: grants.contains(.alarms)
                ? overview.ladderMinute.map { "you are on their alarm ladder, told \($0) min after their Dose 1 while Dose 2 is pending" }
                    ?? "you can answer their alarms" : nil, concerns: overview.concern.map { Self.concerns($0).joined(separator: " ") },
            attention: overview.concern?.needsAttention ?? false,
            mailAlerts: grants.contains(.alarms) && mails ? MailAlerts(owner: share.owner.id, on: overview.mailsAlerts, csrf: csrf) : nil)
    }

    struct Row {
        let id, who, grants, detail: String
        let canCancel, canRevoke: Bool
    }

    struct SharingView {
        let frame: Frame
        let csrf: String
        let shares: [Row]
        let invitations: [Row]
        let choices: [Choice]
        /// The invitation just made: its link to copy, share or scan.
        let invite: SettingsView.Pairing?
        let email: String
        /// Everyone who holds `alarms`, with their minute on the ladder ("" when they are not on it).
        let ladder: [LadderRow]
        let canLadder: Bool
        /// The minutes a rung may be set to, in words (the escalation ladder's own range).
        let ladderMinutes = SharingPages.ladderMinutes
        /// The same range as the number field's bounds.
        let ladderLowest = EscalationLadder.minutes.lowerBound
        let ladderHighest = EscalationLadder.minutes.upperBound - 1
    }

    /// The minutes after Dose 1 a rung may be set to, in words.
    static let ladderMinutes = "\(EscalationLadder.minutes.lowerBound)–\(EscalationLadder.minutes.upperBound - 1)"

    struct LadderRow {
        let id, who, minutes: String
    }

    struct Choice {
        let name, meaning: String
        let checked: Bool
    }

    func sharing(
        _ context: DoseRequestContext, flash: String? = nil, inviteURL: String? = nil, email: String = "", chosen: Set<String> = ["view"],
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let app = environment.useCases()
        try requireShared()
        let zone = try app.settings.zone()
        let (invitations, shares) = try app.sharing.given()
        let now = app.clock.now
        func when(_ date: Date) -> String { SettingsView.day(date, zone) + " " + LocalClock.hourMinute(date, in: zone) }
        let shareRows = shares.map {
            Row(
                id: $0.id, who: $0.grantee.longName, grants: SharingService.words($0.grants), detail: "since \(SettingsView.day($0.createdAt, zone))",
                canCancel: false, canRevoke: true)
        }
        let invitationRows = invitations.filter { $0.state != .accepted }.map { invitation in
            let expired = invitation.state == .pending && invitation.expiresAt <= now
            let state =
                expired
                ? "expired \(when(invitation.expiresAt))"
                : invitation.state == .pending ? "pending until \(when(invitation.expiresAt))" : invitation.state.rawValue
            return Row(
                id: invitation.id, who: invitation.email, grants: SharingService.words(invitation.grants), detail: state,
                canCancel: invitation.state == .pending && !expired, canRevoke: false)
        }
        let choices = Grant.allCases.map { Choice(name: $0.rawValue, meaning: InvitationPages.meaning($0), checked: chosen.contains($0.rawValue)) }
        let rungs = try app.ladder.rungs()
        let ladder = shares.filter { $0.grants.contains(.alarms) }.map { share in
            LadderRow(
                id: share.id, who: share.grantee.longName,
                minutes: rungs.first { $0.share.id == share.id }.map { String($0.minutesAfterDose1) } ?? "")
        }
        return try Templates.page(
            "sharing",
            SharingView(
                frame: Frame("Sharing", current: "/settings", flash: flash), csrf: csrf(context), shares: shareRows, invitations: invitationRows,
                choices: choices, invite: inviteURL.map(SettingsView.Pairing.init(link:)), email: email, ladder: ladder, canLadder: !ladder.isEmpty),
            status: status)
    }

    func invite(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: ShareForm.self)
        let grants = form.grants ?? []
        let base = WebPages.ownAddress(request, context)
        do {
            let (invitation, url) = try environment.useCases().sharing.invite(email: form.email, grants: grants, base: base)
            return try sharing(
                context, flash: "Invitation made for \(invitation.email). Give them this link; it works once, for 7 days.", inviteURL: url)
        } catch let error as DoseError {
            // The form again with what was typed, and the refusal in words.
            return try sharing(context, flash: error.message, email: form.email, chosen: Set(grants), status: error.httpStatus)
        }
    }

    func revoke(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let form = try await form(request, context, as: ChosenForm.self)
        let revoked = try environment.useCases().sharing.revoke(form.id)
        // The record as it was: a pending invitation was cancelled; an accepted one's share was revoked.
        return WebPages.redirect("/settings/sharing?done=\(revoked.state == .pending ? "cancelled" : "revoked")")
    }

    /// Saves the ladder from its form: each `minutes_<share id>` filled puts that person on it, in order of their minutes
    /// (the order they are listed in for equal minutes); an empty one takes them off.
    func saveLadder(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        let app = environment.useCases()
        let shares = try app.sharing.given().shares.filter { $0.grants.contains(.alarms) }
        var rungs: [(email: String, minutesAfterDose1: Int)] = []
        for share in shares {
            let typed = (fields["minutes_\(share.id)"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !typed.isEmpty else { continue }
            guard let minutes = Int(typed) else {
                return try sharing(
                    context, flash: "\(share.grantee.shownName): '\(typed.prefix(10))' is not a number of minutes (\(Self.ladderMinutes)).",
                    status: .badRequest)
            }
            rungs.append((share.grantee.email ?? share.grantee.id, minutes))
        }
        let ordered = rungs.enumerated().sorted { ($0.element.minutesAfterDose1, $0.offset) < ($1.element.minutesAfterDose1, $1.offset) }.map(
            \.element)
        do {
            _ = try app.ladder.set(ordered)
        } catch let error as DoseError {
            return try sharing(context, flash: error.message, status: error.httpStatus)
        }
        return WebPages.redirect("/settings/sharing?done=ladder")
    }

    /// Chooses whether the owner's ladder alerts are mailed to the reader too, from their card on People.
    func mailAlerts(_ request: Request, _ context: DoseRequestContext) async throws -> Response {
        let fields = try await form(request, context)
        guard let owner = fields["id"], let on = fields["on"].flatMap(Bool.init) else {
            throw DoseError.invalidInput(field: "on", problem: "the form names no person or no choice", allowed: "id and on=true|false")
        }
        try environment.useCases().ladder.mailAlerts(from: owner, on)
        return WebPages.redirect("/people")
    }

    struct AuditView {
        struct Entry {
            let when, who, action, detail: String
        }

        let frame: Frame
        let entries: [Entry]
        let none: Bool
    }

    func audit() throws -> Response {
        let app = environment.useCases()
        try requireShared()
        let zone = try app.settings.zone()
        let entries = try app.sharing.audit().map { entry in
            AuditView.Entry(
                when: SettingsView.day(entry.at, zone) + " " + LocalClock.hourMinute(entry.at, in: zone),
                who: entry.actor?.longName ?? "a person since removed",
                // A use of the records is said with its verb; a share change or a sign-in says itself in its detail.
                action: ["viewed", "logged", "acknowledged"].contains(entry.action) ? entry.action : "", detail: entry.detail)
        }
        return try Templates.page("audit", AuditView(frame: Frame("Audit", current: "/settings"), entries: entries, none: entries.isEmpty))
    }

    /// Sharing needs a shared PostgreSQL store; on a SQLite file the page says so instead of showing an empty list.
    func requireShared() throws {
        guard environment.store.shared != nil else {
            throw DoseError.forbidden(
                why: "sharing needs a shared PostgreSQL store (SPEC §5.6); this DoseTap keeps one person's records in a SQLite file")
        }
    }
}
