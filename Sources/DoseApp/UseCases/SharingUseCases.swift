public import DoseCore
public import DoseStore
public import Foundation

/// Sharing a person's records with another person of the same shared store (SPEC §5.6): an invitation for their address
/// with its grants, accepted once within 7 days by that person signed in; a share revoked at once; and the access audit
/// that tells the person who viewed, logged or acknowledged, and when.
public struct SharingService: Sendable {
    let app: UseCases

    /// How long an invitation stays good.
    public static let lifetime: TimeInterval = 7 * 24 * 3600
    /// The longest name or address People may be searched for.
    public static let nameFilterLimit = 100
    /// The most audit entries one read returns.
    public static let auditLimit = 500
    /// A view by the same person of the same thing is audited once in this many seconds, so a page that polls does not
    /// fill the audit.
    public static let viewAuditInterval: TimeInterval = 15 * 60

    /// A new invitation's secret: `dti_` and 64 hex digits (256 bits from the system's generator).
    public static func token(_ random: RandomSource) -> String { "dti_" + random.hex(32) }

    /// Whether `token` has an invitation's shape (before any lookup).
    public static func isWellFormed(_ token: String) -> Bool {
        token.count == 68 && token.hasPrefix("dti_") && token.dropFirst(4).allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// The address an invitee opens: `base` (this DoseTap's own address) and the token.
    public static func url(base: String, token: String) -> String {
        SignInLinks.address(base: base, path: "/invitation", token: token)
    }

    /// The refusal of an invitation that cannot be answered, whatever the reason: it says nothing about whose it was.
    static let unusable = DoseError.invalidInput(
        field: "token", problem: "this invitation cannot be used: it was answered, cancelled or expired, or it was never made here",
        allowed: "a new invitation from the person who wants to share with you")

    /// The refusal on a store that is not shared.
    static let unshared = DoseError.forbidden(
        why: "sharing needs a shared PostgreSQL store (SPEC §5.6); this DoseTap keeps one person's records in a SQLite file")

    /// The store and the acting person's id; sharing needs a shared store. Most uses need only the id, read from the
    /// store's scope, not the person's row.
    func sharedStore() throws -> (store: PostgresStore, person: String) {
        guard let store = app.store.shared, let id = app.store.personID else { throw Self.unshared }
        return (store, id)
    }

    /// The store and the acting person's record (their address), for what compares addresses.
    func shared() throws -> (store: PostgresStore, person: PersonRecord) {
        let (store, id) = try sharedStore()
        guard let person = try store.person(named: id) else { throw Self.unshared }
        return (store, person)
    }

    /// The acting person.
    public func me() throws -> PersonRecord { try shared().person }

    /// Invites the person with address `email` to `grants` on the acting person's records; returns the invitation and
    /// the link to give them.
    public func invite(email raw: String, grants names: [String], base: String) throws -> (invitation: InvitationRecord, url: String) {
        let (store, person) = try shared()
        let email = try EmailAddress(raw)
        let grants = try Grant.parse(names)
        guard email.text != person.email else {
            throw DoseError.invalidInput(field: "email", problem: "that is your own address", allowed: "the address of someone else on this DoseTap")
        }
        let base = try SignInLinks.checkedBase(base)
        // Any address is invited the same way, with the same work, whether or not it has an account here: the answer
        // must not tell anyone who this DoseTap's people are (issue 56). The account decides only what the mail asks.
        let hasAccount = try store.person(named: email.text) != nil
        let token = Self.token(app.clock.random)
        let invitation = InvitationRecord(
            id: app.clock.makeID(), owner: person.id, email: email.text, grants: grants, createdAt: app.clock.now,
            expiresAt: app.clock.now.addingTimeInterval(Self.lifetime), state: .pending, answeredAt: nil)
        try store.invite(invitation, tokenHash: DeviceTokens.hash(token))
        try record(to: person.id, by: person.id, "shared", "invited \(email) to \(Self.words(grants))")
        let url = Self.url(base: base, token: token)
        if app.sendsMail {
            // Someone without an account who may make one is sent the link that makes it; anyone else, the invitation.
            let reader: OutgoingMail.Reader = hasAccount ? .hasAccount : app.signUp.allowsInvitee(email) ? .mayJoin : .mustAskOperator
            let link = reader == .mayJoin ? JoinService.url(base: base, token: token) : url
            let mail = OutgoingMail.invitation(
                to: email.text, from: person.longName, grants: Self.words(grants), link: link, expiresAt: invitation.expiresAt,
                reader: reader, id: app.clock.makeID())
            _ = try store.queueMail(mail, at: app.clock.now, hourlyLimit: OutgoingMail.hourlyLimit)
        }
        return (invitation, url)
    }

    /// The acting person's invitations, newest first, and the shares they gave.
    public func given() throws -> (invitations: [InvitationRecord], shares: [ShareRecord]) {
        let (store, person) = try sharedStore()
        return (try store.invitations(of: person), try store.shares(owner: person))
    }

    /// The shares others gave the acting person.
    public func received() throws -> [ShareRecord] {
        let (store, person) = try sharedStore()
        return try store.shares(grantee: person)
    }

    /// Cancels the acting person's pending invitation `id`, or revokes the share it made; effective at the next request
    /// and before the next alarm.
    public func revoke(_ id: String) throws -> InvitationRecord {
        let (store, person) = try sharedStore()
        guard let revoked = try store.revoke(String(id.prefix(64)), owner: person, at: app.clock.now) else {
            throw DoseError.notFound(what: "a share or pending invitation of yours with id '\(id.prefix(64))'")
        }
        let action = revoked.state == .pending ? "cancelled" : "revoked"
        try record(to: person, by: person, action, "\(action) the share with \(revoked.email)")
        return revoked
    }

    /// Accepts (or declines) the invitation `token` as the acting person; returns the share an acceptance made.
    public func answer(token: String, accept: Bool) throws -> ShareRecord? {
        let (store, person) = try shared()
        guard Self.isWellFormed(token) else { throw Self.unusable }
        switch try store.answerInvitation(tokenHash: DeviceTokens.hash(token), as: person, accept: accept, at: app.clock.now) {
        case .accepted(let share):
            try record(to: share.owner.id, by: person.id, "accepted", "accepted \(Self.words(share.grants))")
            return share
        case .declined(let owner):
            try record(to: owner, by: person.id, "declined", "declined the invitation")
            return nil
        case .unusable:
            throw Self.unusable
        case .own:
            throw DoseError.invalidInput(field: "token", problem: "this is your own invitation", allowed: "an invitation someone else made for you")
        case .addressedToSomeoneElse:
            throw DoseError.invalidInput(
                field: "token", problem: "this invitation was made for another address than yours (\(person.shownName))",
                allowed: "an invitation made for your address; ask its sender to invite \(person.shownName)")
        }
    }

    /// The invitation `token` as its invitee sees it before answering: who made it and what it grants. Anything that
    /// cannot be answered (used, expired, never made) is refused with one sentence.
    public func invitation(token: String) throws -> (invitation: InvitationRecord, from: PersonRecord) {
        let (store, _) = try sharedStore()
        guard Self.isWellFormed(token), let found = try store.pendingInvitation(tokenHash: DeviceTokens.hash(token), at: app.clock.now) else {
            throw Self.unusable
        }
        return (found.invitation, found.owner)
    }

    /// The share `owner` gave the acting person, read now (so a revocation holds at the next request); nil without one.
    public func share(from owner: String) throws -> ShareRecord? {
        let (store, person) = try sharedStore()
        return try store.shares(owner: String(owner.prefix(64)), grantee: person).first
    }

    /// The people who share with the acting person, each with what their grants let them see at a glance, the ones
    /// needing attention first (issue 56): with `view` or `report`, the last 7 nights' Dose 2 that went wrong, the
    /// wellness trend and the days since their last night (`CareConcern`), and the latest decided night (with `view`) and
    /// the last 30 nights' share of Dose 2 on target (with `report`), judged by the person's own settings as their own
    /// Insights judge them. Everyone's nights are read in one round trip, so a clinic of hundreds stays fast.
    /// `named` keeps only the people whose name or address contains it (in any case).
    public func overview(named: String? = nil) throws -> [SharedPersonOverview] {
        let (store, person) = try sharedStore()
        let filter = named?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard filter.count <= Self.nameFilterLimit else {
            throw DoseError.invalidInput(
                field: "name", problem: "the name to find is \(filter.count) characters long", allowed: "up to \(Self.nameFilterLimit) characters")
        }
        let shares = try received().filter { share in
            filter.isEmpty || [share.owner.name, share.owner.email].contains { $0?.lowercased().contains(filter) == true }
        }
        let watched = shares.filter { !Set($0.grants).isDisjoint(with: [.view, .report]) }.map(\.owner.id)
        // The viewer's last 30 nights, a day wider each way: each person's own today decides their nights below.
        let today = SessionKey(for: app.clock.now, in: try app.settings.zone())
        let records = try store.clinicRecords(
            of: watched, for: person, from: today.adding(days: -SharedPersonOverview.recentNights), to: today.adding(days: 1))
        let mailed = try shares.contains { $0.grants.contains(.alarms) } ? store.mailedAlertOwners(of: person) : []
        let overviews = try shares.map { share in
            let grants = Set(share.grants)
            let rung =
                grants.contains(.alarms) ? try store.ladder(of: share.owner.id).first { $0.share.grantee.id == person }?.minutesAfterDose1 : nil
            guard let theirs = records[share.owner.id] else {
                return SharedPersonOverview(
                    share: share, latest: nil, recent: nil, ladderMinute: rung, concern: nil, mailsAlerts: mailed.contains(share.owner.id))
            }
            let settings = try SettingsStore.settings(
                from: theirs.settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, machineTimeZoneID: app.clock.machineTimeZoneID)
            let theirToday = SessionKey(for: app.clock.now, in: settings.timeZone)
            let period = try InsightsPeriod.choose(nights: SharedPersonOverview.recentNights, from: nil, to: nil, today: theirToday)
            let nights = theirs.nights.filter { period.contains($0.summary.date) }
            let adherence = Adherence(
                nights: nights.compactMap { Adherence.Night($0.summary, targetMinutes: settings.targetIntervalMinutes) },
                targetMinutes: settings.targetIntervalMinutes)
            let concern = CareConcern(
                nights.map { CareConcern.Night($0.summary, wellness: $0.wellness, targetMinutes: settings.targetIntervalMinutes, at: app.clock.now) },
                lastNight: theirs.lastNight, today: theirToday)
            return SharedPersonOverview(
                share: share, latest: grants.contains(.view) ? adherence.nights.last { $0.timing != .undecided } : nil,
                recent: grants.contains(.report) ? adherence : nil, ladderMinute: rung, concern: concern, mailsAlerts: mailed.contains(share.owner.id)
            )
        }
        return CareConcern.ordered(overviews, by: \.concern)
    }

    /// The grants the acting person holds on `owner`'s records now.
    public func grants(on owner: String) throws -> [Grant] {
        let (store, person) = try sharedStore()
        return try store.grants(of: person, on: owner)
    }

    /// The acting person's access audit, newest first.
    public func audit() throws -> [AccessEntry] {
        let (store, person) = try sharedStore()
        return try store.accessAudit(of: person, limit: Self.auditLimit)
    }

    /// Records in `owner`'s audit that the acting person did `action` (`viewed`, `logged`, `acknowledged`) — a view at most
    /// once per `viewAuditInterval` for the same detail.
    public func recordAccess(to owner: String, _ action: String, _ detail: String) throws {
        let (store, person) = try sharedStore()
        if action == "viewed",
            try store.recentlyRecorded(
                to: owner, by: person, action: action, detail: detail, since: app.clock.now.addingTimeInterval(-Self.viewAuditInterval))
        {
            return
        }
        try record(to: owner, by: person, action, detail)
    }

    func record(to owner: String, by actor: String, _ action: String, _ detail: String) throws {
        guard let store = app.store.shared else { return }
        try store.recordAccess(to: owner, by: actor, action: action, detail: detail, at: app.clock.now)
    }

    /// Grants in words: "view and log".
    public static func words(_ grants: [Grant]) -> String {
        let names = grants.map(\.rawValue)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

/// One person who shares with the acting person, as their list shows them.
public struct SharedPersonOverview: Sendable {
    /// The nights `recent` covers, back from tonight.
    public static let recentNights = 30

    public let share: ShareRecord
    /// Their latest night whose Dose 2 was decided within `recentNights`, with `view`; nil without it or without one.
    public let latest: Adherence.Night?
    /// Their last `recentNights` nights, with `report`.
    public let recent: Adherence?
    /// The minute after their Dose 1 at which the acting person is told Dose 2 is pending, when they are a rung of the
    /// person's alarm ladder.
    public let ladderMinute: Int?
    /// What needs attention, with `view` or `report`; nil without either.
    public let concern: CareConcern?
    /// Whether the acting person has this person's ladder alerts mailed too (with `alarms`).
    public let mailsAlerts: Bool
}

extension UseCases {
    /// Sharing with other people of a shared store.
    public var sharing: SharingService { SharingService(app: self) }
}
