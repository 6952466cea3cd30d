public import DoseCore
public import DoseStore
public import Foundation

/// A person as another sees them: id, address and name.
public struct PersonResponse: Encodable, Sendable {
    var id: String
    var email: String?
    var name: String?

    /// The person of a record.
    public init(_ person: PersonRecord) {
        id = person.id
        email = person.email
        name = person.name
    }
}

/// An invitation the person made; `invite_url` only in the answer that made it.
public struct InvitationResponse: Encodable, Sendable {
    var id, email, state: String
    var grants: [Grant]
    var createdAt, expiresAt: Date
    var answeredAt: Date?
    var expired: Bool
    var inviteURL: String?

    enum CodingKeys: String, CodingKey {
        case id, email, state, grants, createdAt = "created_at", expiresAt = "expires_at", answeredAt = "answered_at", expired
        case inviteURL = "invite_url"
    }

    /// An invitation as of `now`, with its link when it was just made.
    public init(_ invitation: InvitationRecord, now: Date, url: String? = nil) {
        id = invitation.id
        email = invitation.email
        state = invitation.state.rawValue
        grants = invitation.grants
        createdAt = invitation.createdAt
        expiresAt = invitation.expiresAt
        answeredAt = invitation.answeredAt
        expired = invitation.state == .pending && invitation.expiresAt <= now
        inviteURL = url
    }
}

/// A share: whose records, who may use them, with which grants, since when.
public struct ShareResponse: Encodable, Sendable {
    var id: String
    var person: PersonResponse
    var grantee: PersonResponse
    var grants: [Grant]
    var createdAt: Date

    enum CodingKeys: String, CodingKey { case id, person, grantee, grants, createdAt = "created_at" }

    /// A share of the store.
    public init(_ share: ShareRecord) {
        id = share.id
        person = PersonResponse(share.owner)
        grantee = PersonResponse(share.grantee)
        grants = share.grants
        createdAt = share.createdAt
    }
}

/// `GET /v1/shares`: the person's invitations, newest first, and the shares they gave.
public struct SharesResponse: Encodable, Sendable {
    var invitations: [InvitationResponse]
    var shares: [ShareResponse]

    /// What the person gave, as of `now`.
    public init(invitations: [InvitationRecord], shares: [ShareRecord], now: Date) {
        self.invitations = invitations.map { InvitationResponse($0, now: now) }
        self.shares = shares.map(ShareResponse.init)
    }
}

/// One person shared with the caller (`GET /v1/people`), with the grants, where their routes are, and what the grants
/// show at a glance: their latest decided night (`view`) and their last 30 nights on target (`report`).
public struct SharedPersonResponse: Encodable, Sendable {
    struct LatestNight: Encodable, Sendable {
        var date: String
        var outcome: DoseTiming
        var intervalMinutes: Int?

        enum CodingKeys: String, CodingKey { case date, outcome, intervalMinutes = "interval_minutes" }
    }

    struct OnTarget: Encodable, Sendable {
        var nights: Int
        var decided: Int
        var onTarget: Int
        var percent: Double?

        enum CodingKeys: String, CodingKey { case nights, decided, onTarget = "on_target", percent }
    }

    var id: String
    var email: String?
    var name: String?
    var grants: [Grant]
    var since: Date
    var routes: String
    var latestNight: LatestNight?
    var recent: OnTarget?
    var concern: Concern?

    /// What needs attention (`CareConcern`), with view or report.
    struct Concern: Encodable, Sendable {
        var needsAttention: Bool
        var nights: Int
        var early: Int
        var late: Int
        var missed: Int
        var skipped: Int
        var wellness: Double?
        var wellnessBefore: Double?
        var daysSinceLastNight: Int?

        enum CodingKeys: String, CodingKey {
            case needsAttention = "needs_attention", nights, early, late, missed, skipped, wellness, wellnessBefore = "wellness_before"
            case daysSinceLastNight = "days_since_last_night"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, email, name, grants, since, routes, latestNight = "latest_night", recent = "on_target_30", concern = "last_7_nights"
    }

    /// A share received, with what its grants show.
    public init(_ overview: SharedPersonOverview) {
        let share = overview.share
        id = share.owner.id
        email = share.owner.email
        name = share.owner.name
        grants = share.grants
        since = share.createdAt
        routes = "/v1/people/\(share.owner.id)/"
        latestNight = overview.latest.map { LatestNight(date: $0.date.description, outcome: $0.timing, intervalMinutes: $0.intervalMinutes) }
        recent = overview.recent.map {
            OnTarget(nights: SharedPersonOverview.recentNights, decided: $0.decided, onTarget: $0.count(.onTarget), percent: $0.percent(.onTarget))
        }
        concern = overview.concern.map {
            Concern(
                needsAttention: $0.needsAttention, nights: $0.nights, early: $0.early, late: $0.late, missed: $0.missed, skipped: $0.skipped,
                wellness: $0.wellness.map(NumberText.tenth), wellnessBefore: $0.wellnessBefore.map(NumberText.tenth),
                daysSinceLastNight: $0.daysSinceLastNight)
        }
    }
}

/// `GET /v1/audit`: who viewed, logged, acknowledged or changed a share, newest first.
public struct AuditResponse: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        var at: Date
        var actor: PersonResponse?
        var who: String
        var action: String
        var detail: String
    }

    var entries: [Entry]

    /// The entries of an audit; an actor removed since is "a person since removed".
    public init(_ entries: [AccessEntry]) {
        self.entries = entries.map { entry in
            Entry(
                at: entry.at, actor: entry.actor.map(PersonResponse.init), who: entry.actor?.shownName ?? "a person since removed",
                action: entry.action, detail: entry.detail)
        }
    }
}

/// `GET` and `PUT /v1/ladder`: the escalation ladder in order, each rung's person and minute after Dose 1.
public struct LadderResponse: Encodable, Sendable {
    struct Rung: Encodable, Sendable {
        var person: PersonResponse
        var minutesAfterDose1: Int

        enum CodingKeys: String, CodingKey { case person, minutesAfterDose1 = "minutes_after_dose1" }
    }

    var rungs: [Rung]

    /// The ladder's rungs.
    public init(_ rungs: [(share: ShareRecord, minutesAfterDose1: Int)]) {
        self.rungs = rungs.map { Rung(person: PersonResponse($0.share.grantee), minutesAfterDose1: $0.minutesAfterDose1) }
    }
}
