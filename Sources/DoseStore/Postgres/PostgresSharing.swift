public import DoseCore
public import Foundation
import PostgresNIO

/// An invitation to share a person's records (SPEC §5.6): for one address, with its grants, good once for 7 days.
public struct InvitationRecord: Sendable, Equatable {
    public enum State: String, Sendable { case pending, accepted, declined, cancelled }

    public var id: String
    /// Whose records it shares.
    public var owner: String
    public var email: String
    public var grants: [Grant]
    public var createdAt: Date
    public var expiresAt: Date
    public var state: State
    public var answeredAt: Date?

    /// An invitation from its parts.
    public init(
        id: String, owner: String, email: String, grants: [Grant], createdAt: Date, expiresAt: Date, state: State = .pending,
        answeredAt: Date? = nil
    ) {
        self.id = id
        self.owner = owner
        self.email = email
        self.grants = grants
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.state = state
        self.answeredAt = answeredAt
    }
}

/// What an accepted invitation made: `grantee` may do `grants` with `owner`'s records, until it is revoked.
public struct ShareRecord: Sendable, Equatable {
    /// The invitation it came from: the id `DELETE /v1/shares/{id}` revokes it by.
    public var id: String
    public var owner: PersonRecord
    public var grantee: PersonRecord
    public var grants: [Grant]
    public var createdAt: Date
}

/// One entry of a person's access audit: who did what with their records, and when.
public struct AccessEntry: Sendable, Equatable {
    public var at: Date
    /// The person who acted; nil when they were removed since.
    public var actor: PersonRecord?
    /// `viewed`, `logged`, `acknowledged`, `shared`, `revoked`, `accepted`, `declined`, `signed_in`.
    public var action: String
    public var detail: String
}

/// How answering an invitation went.
public enum InvitationAnswer: Sendable, Equatable {
    case accepted(ShareRecord)
    /// Declined the invitation of this person.
    case declined(owner: String)
    /// Used, expired, cancelled or unknown: one answer for all, so a token tells a stranger nothing.
    case unusable
    /// Made for another address than the one answering.
    case addressedToSomeoneElse
    /// Made by the person answering.
    case own
}

extension PostgresStore {
    /// Keeps a new invitation of `owner`'s. Refused, with nothing written, when the address already has a pending
    /// invitation or a share of theirs.
    public func invite(_ invitation: InvitationRecord, tokenHash: String) throws {
        try transaction(writingFor: invitation.owner) { session in
            let pending = try session.rows(
                """
                SELECT 1 FROM share_invitations
                WHERE person_id = \(invitation.owner) AND email = \(invitation.email) AND state = 'pending' AND expires_at > \(invitation.createdAt)
                """)
            guard pending.isEmpty else {
                throw DoseError.invalidInput(
                    field: "email", problem: "\(invitation.email) already has a pending invitation from you",
                    allowed: "that invitation's link, or cancel it (DELETE /v1/shares/{id}) and invite again")
            }
            let shared = try session.rows(
                """
                SELECT 1 FROM shares JOIN people ON people.id = shares.grantee_id
                WHERE shares.person_id = \(invitation.owner) AND people.email = \(invitation.email)
                """)
            guard shared.isEmpty else {
                throw DoseError.invalidInput(
                    field: "email", problem: "you already share with \(invitation.email)",
                    allowed: "revoke that share first (DELETE /v1/shares/{id}) to change its grants")
            }
            // An expired pending invitation to the same address gives way to the new one.
            try session.execute(
                """
                UPDATE share_invitations SET state = 'cancelled', answered_at = \(invitation.createdAt)
                WHERE person_id = \(invitation.owner) AND email = \(invitation.email) AND state = 'pending'
                """)
            try session.execute(
                """
                INSERT INTO share_invitations (id, person_id, email, grants, token_hash, created_at, expires_at)
                VALUES (\(invitation.id), \(invitation.owner), \(invitation.email), \(invitation.grants.map(\.rawValue)), \(tokenHash),
                    \(invitation.createdAt), \(invitation.expiresAt))
                """)
        }
    }

    /// Every invitation `owner` made, newest first.
    public func invitations(of owner: String) throws -> [InvitationRecord] {
        try transaction(readOnly: true, seeing: .person(owner)) { session in
            try session.rows(
                """
                SELECT \(unescaped: Self.invitationColumns) FROM share_invitations
                WHERE person_id = \(owner) ORDER BY created_at DESC, id
                """
            ).map(Self.invitation)
        }
    }

    /// The shares `owner` gave (`given`), or the shares given to `grantee` (`received`), oldest first.
    public func shares(owner: String? = nil, grantee: String? = nil) throws -> [ShareRecord] {
        // Both people of a share see it; asked for neither, no one's shares are seen.
        try transaction(readOnly: true, seeing: RowScope(person: owner ?? grantee)) { session in
            try session.rows(
                """
                SELECT s.invitation_id, s.grants, s.created_at, o.id, o.email, o.name, o.created_at, g.id, g.email, g.name, g.created_at
                FROM shares s JOIN people o ON o.id = s.person_id JOIN people g ON g.id = s.grantee_id
                WHERE (\(owner)::text IS NULL OR s.person_id = \(owner)) AND (\(grantee)::text IS NULL OR s.grantee_id = \(grantee))
                ORDER BY s.created_at, s.invitation_id
                """
            ).map { row in
                let (id, grants, created, ownerID, ownerEmail, ownerName, ownerCreated, granteeID, granteeEmail, granteeName, granteeCreated) =
                    try row.decode((String, [String], Date, String, String?, String?, Date, String, String?, String?, Date).self)
                return ShareRecord(
                    id: id, owner: PersonRecord(id: ownerID, email: ownerEmail, name: ownerName, createdAt: ownerCreated),
                    grantee: PersonRecord(id: granteeID, email: granteeEmail, name: granteeName, createdAt: granteeCreated),
                    grants: grants.compactMap(Grant.init(rawValue:)).sorted(), createdAt: created)
            }
        }
    }

    /// The grants `grantee` holds on `owner`'s records now (empty: none). Read on every request and before every alarm,
    /// so a revocation holds at once.
    public func grants(of grantee: String, on owner: String) throws -> [Grant] {
        try transaction(readOnly: true, seeing: .person(grantee)) { session in
            try session.rows("SELECT grants FROM shares WHERE person_id = \(owner) AND grantee_id = \(grantee)").first
                .map { try $0.decode([String].self).compactMap(Grant.init(rawValue:)).sorted() } ?? []
        }
    }

    /// `owner`'s escalation ladder, in order: each rung's share and its minute after Dose 1.
    public func ladder(of owner: String) throws -> [(share: ShareRecord, minutesAfterDose1: Int)] {
        let minutes = try transaction(readOnly: true, seeing: .person(owner)) { session in
            try session.rows(
                "SELECT grantee_id, ladder_minutes FROM shares WHERE person_id = \(owner) AND ladder_rank IS NOT NULL ORDER BY ladder_rank"
            ).map { try $0.decode((String, Int).self) }
        }
        let shares = try self.shares(owner: owner)
        return minutes.compactMap { grantee, minutes in shares.first { $0.grantee.id == grantee }.map { ($0, minutes) } }
    }

    /// Replaces `owner`'s ladder with `rungs` (grantee ids in order, with their minutes). Refused, with nothing changed,
    /// when a rung's person does not hold `alarms` from them.
    public func setLadder(of owner: String, _ rungs: [(grantee: String, minutesAfterDose1: Int)]) throws {
        try transaction(writingFor: owner) { session in
            try session.execute("UPDATE shares SET ladder_rank = NULL, ladder_minutes = NULL WHERE person_id = \(owner)")
            for (index, rung) in rungs.enumerated() {
                let placed = try session.rows(
                    """
                    UPDATE shares SET ladder_rank = \(index + 1), ladder_minutes = \(rung.minutesAfterDose1)
                    WHERE person_id = \(owner) AND grantee_id = \(rung.grantee) AND 'alarms' = ANY (grants) RETURNING 1
                    """)
                guard !placed.isEmpty else {
                    throw DoseError.invalidInput(
                        field: "rungs[\(index)]", problem: "that person does not hold alarms from you",
                        allowed: "someone you share alarms with (POST /v1/shares with \"alarms\")")
                }
            }
        }
    }

    /// Claims rung `grantee`'s step of night `session` at `fireAt` in the night's reminder log, once: true for the one
    /// caller that logs it, and only while the share still holds `alarms` (the grant is read at the moment of sending).
    public func claimRung(owner: String, grantee: String, session: String, fireAt: Date, at now: Date) throws -> Bool {
        try transaction(writingFor: owner) { connection in
            try !connection.rows(
                """
                INSERT INTO reminder_log (session_id, kind, fire_at, outcome, recorded_at)
                SELECT \(session), \("ladder:" + grantee), \(fireAt), 'fired', \(now)
                WHERE EXISTS (
                    SELECT 1 FROM shares WHERE person_id = \(owner) AND grantee_id = \(grantee) AND 'alarms' = ANY (grants)
                        AND ladder_rank IS NOT NULL)
                    AND EXISTS (SELECT 1 FROM sleep_sessions WHERE id = \(session) AND person_id = \(owner))
                ON CONFLICT DO NOTHING RETURNING 1
                """
            ).isEmpty
        }
    }

    /// When anyone of `actors` acknowledged an alarm of `owner`'s since `since` (read from the owner's access audit).
    public func acknowledgements(of owner: String, by actors: [String], since: Date) throws -> [Date] {
        try transaction(readOnly: true, seeing: .person(owner)) { session in
            try session.rows(
                """
                SELECT at FROM access_audit WHERE person_id = \(owner) AND action = 'acknowledged' AND actor_id = ANY (\(actors))
                    AND at >= \(since)
                """
            ).map { try $0.decode(Date.self) }
        }
    }

    /// Ends `owner`'s invitation or share `id`: a pending invitation is cancelled, an accepted one's share deleted.
    /// Returns the invitation as it was, or nil when `owner` has none of that id (or it had already ended).
    public func revoke(_ id: String, owner: String, at now: Date) throws -> InvitationRecord? {
        try transaction(writingFor: owner) { session in
            guard
                let invitation = try session.rows(
                    """
                    SELECT \(unescaped: Self.invitationColumns) FROM share_invitations
                    WHERE person_id = \(owner) AND id = \(id) FOR UPDATE
                    """
                ).first.map(Self.invitation)
            else { return nil }
            switch invitation.state {
            case .pending:
                try session.execute("UPDATE share_invitations SET state = 'cancelled', answered_at = \(now) WHERE id = \(id)")
            case .accepted:
                guard try !session.rows("DELETE FROM shares WHERE person_id = \(owner) AND invitation_id = \(id) RETURNING 1").isEmpty else {
                    return nil
                }
            case .declined, .cancelled:
                return nil
            }
            return invitation
        }
    }

    /// The pending, unexpired invitation of `tokenHash` at `now` and the person who made it; nil for any other (read
    /// only, so showing an invitation uses nothing).
    public func pendingInvitation(tokenHash: String, at now: Date) throws -> (invitation: InvitationRecord, owner: PersonRecord)? {
        try transaction(readOnly: true, seeing: RowScope(tokenHash: tokenHash)) { session in
            guard
                let invitation = try session.rows(
                    """
                    SELECT \(unescaped: Self.invitationColumns) FROM share_invitations
                    WHERE token_hash = \(tokenHash) AND state = 'pending' AND expires_at > \(now)
                    """
                ).first.map(Self.invitation),
                let owner = try session.rows("SELECT id, email, name, created_at FROM people WHERE id = \(invitation.owner)").first.map(Self.person)
            else { return nil }
            return (invitation, owner)
        }
    }

    /// Accepts or declines the invitation of `tokenHash` as `person` at `now`. Only a pending, unexpired invitation for
    /// the person's own address can be answered, and only once.
    public func answerInvitation(tokenHash: String, as person: PersonRecord, accept: Bool, at now: Date) throws -> InvitationAnswer {
        // The invitation is the inviter's row, which its token's holder may read and answer; the share it makes names the
        // person answering as its grantee.
        try transaction(seeing: RowScope(person: person.id, tokenHash: tokenHash)) { session in
            guard
                let invitation = try session.rows(
                    """
                    SELECT \(unescaped: Self.invitationColumns) FROM share_invitations
                    WHERE token_hash = \(tokenHash) FOR UPDATE
                    """
                ).first.map(Self.invitation), invitation.state == .pending, invitation.expiresAt > now
            else { return .unusable }
            guard invitation.owner != person.id else { return .own }
            guard invitation.email == person.email else { return .addressedToSomeoneElse }
            let state = accept ? "accepted" : "declined"
            try session.execute(
                "UPDATE share_invitations SET state = \(state), answered_at = \(now), grantee_id = \(person.id) WHERE id = \(invitation.id)")
            guard accept else { return .declined(owner: invitation.owner) }
            try session.execute(
                """
                INSERT INTO shares (person_id, grantee_id, invitation_id, grants, created_at)
                VALUES (\(invitation.owner), \(person.id), \(invitation.id), \(invitation.grants.map(\.rawValue)), \(now))
                ON CONFLICT (person_id, grantee_id) DO UPDATE SET invitation_id = excluded.invitation_id, grants = excluded.grants,
                    created_at = excluded.created_at
                """)
            let owner = try session.rows("SELECT id, email, name, created_at FROM people WHERE id = \(invitation.owner)").map(Self.person)
            return .accepted(
                ShareRecord(
                    id: invitation.id, owner: try owner.first ?? { throw DoseError.notFound(what: "the person who invited you") }(),
                    grantee: person, grants: invitation.grants, createdAt: now))
        }
    }

    /// Adds an entry to `person`'s access audit.
    public func recordAccess(to person: String, by actor: String?, action: String, detail: String, at now: Date) throws {
        // The column's limit counts code points, as `char_length` does.
        let detail = String(String.UnicodeScalarView(detail.unicodeScalars.prefix(300)))
        try transaction(seeing: .person(person)) { session in
            try session.execute(
                "INSERT INTO access_audit (person_id, actor_id, at, action, detail) VALUES (\(person), \(actor), \(now), \(action), \(detail))")
        }
    }

    /// Whether `actor` already has an entry `action` with `detail` in `person`'s audit since `since` (so a page that
    /// polls does not fill it).
    public func recentlyRecorded(to person: String, by actor: String, action: String, detail: String, since: Date) throws -> Bool {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try !session.rows(
                """
                SELECT 1 FROM access_audit WHERE person_id = \(person) AND actor_id = \(actor) AND action = \(action) AND detail = \(detail)
                    AND at >= \(since) LIMIT 1
                """
            ).isEmpty
        }
    }

    /// `person`'s access audit, newest first, at most `limit` entries.
    public func accessAudit(of person: String, limit: Int) throws -> [AccessEntry] {
        try transaction(readOnly: true, seeing: .person(person)) { session in
            try session.rows(
                """
                SELECT a.at, a.action, a.detail, p.id, p.email, p.name, p.created_at FROM access_audit a LEFT JOIN people p ON p.id = a.actor_id
                WHERE a.person_id = \(person) ORDER BY a.at DESC, a.id DESC LIMIT \(limit)
                """
            ).map { row in
                let (at, action, detail, id, email, name, created) = try row.decode((Date, String, String, String?, String?, String?, Date?).self)
                let actor = id.map { PersonRecord(id: $0, email: email, name: name, createdAt: created ?? at) }
                return AccessEntry(at: at, actor: actor, action: action, detail: detail)
            }
        }
    }

    /// The columns `invitation(_:)` reads, in its order (a constant, never input).
    static let invitationColumns = "id, person_id, email, grants, created_at, expires_at, state, answered_at"

    static func invitation(_ row: PostgresRow) throws -> InvitationRecord {
        let (id, owner, email, grants, created, expires, state, answered) = try row.decode(
            (String, String, String, [String], Date, Date, String, Date?).self)
        return InvitationRecord(
            id: id, owner: owner, email: email, grants: grants.compactMap(Grant.init(rawValue:)).sorted(), createdAt: created, expiresAt: expires,
            state: InvitationRecord.State(rawValue: state) ?? .cancelled, answeredAt: answered)
    }
}

extension PostgresStore {
    /// Makes the account of an invitation's invitee in one transaction (issue 56): the person with the invitation's
    /// address (none may have it yet), `device` as their first paired device, the invitation accepted and its share
    /// made, each side's audit (`audited`: the words of the new person's entry and the inviter's), and the operators'
    /// audit; all of it or, on any refusal or failure, none. Nil when the invitation cannot be used (answered,
    /// cancelled, expired, never made); the caller refuses that in its words.
    public func join(
        invitationTokenHash: String, person id: String, device: DeviceRecord, at now: Date, by actor: OperatorActor,
        audited: (own: String, inviter: String)
    ) throws -> (person: PersonRecord, share: ShareRecord)? {
        try transaction(seeing: RowScope(person: id, tokenHash: invitationTokenHash)) { session in
            guard
                let invitation = try session.rows(
                    "SELECT \(unescaped: Self.invitationColumns) FROM share_invitations WHERE token_hash = \(invitationTokenHash) FOR UPDATE"
                ).first.map(Self.invitation), invitation.state == .pending, invitation.expiresAt > now
            else { return nil }
            let person = try Self.makeAccount(
                session, id: id, email: invitation.email, device: device, at: now, by: actor, audited: audited.own,
                taken: DoseError.invalidInput(
                    field: "token", problem: "\(invitation.email) already has an account here",
                    allowed: "sign in with your own link, then open the invitation's link again to accept it"))
            try session.execute(
                "UPDATE share_invitations SET state = 'accepted', answered_at = \(now), grantee_id = \(id) WHERE id = \(invitation.id)")
            try session.execute(
                """
                INSERT INTO shares (person_id, grantee_id, invitation_id, grants, created_at)
                VALUES (\(invitation.owner), \(id), \(invitation.id), \(invitation.grants.map(\.rawValue)), \(now))
                """)
            guard let owner = try session.rows("SELECT id, email, name, created_at FROM people WHERE id = \(invitation.owner)").map(Self.person).first
            else { return nil }
            // The inviter's audit is theirs: written under their own scope, as any entry of theirs is.
            try session.execute("SELECT set_config('dosetap.person', \(owner.id), true)")
            try session.execute(
                "INSERT INTO access_audit (person_id, actor_id, at, action, detail) VALUES (\(owner.id), \(id), \(now), 'accepted', \(audited.inviter))"
            )
            return (person, ShareRecord(id: invitation.id, owner: owner, grantee: person, grants: invitation.grants, createdAt: now))
        }
    }
}

extension PostgresStore {
    /// Whether `grantee` chose to have `owner`'s ladder alerts mailed too.
    public func mailsAlerts(owner: String, grantee: String) throws -> Bool {
        try transaction(readOnly: true, seeing: .person(grantee)) { session in
            try session.rows("SELECT mail_alerts FROM shares WHERE person_id = \(owner) AND grantee_id = \(grantee)").first?.decode(Bool.self)
                ?? false
        }
    }

    /// The owners whose ladder alerts `grantee` has mailed.
    public func mailedAlertOwners(of grantee: String) throws -> Set<String> {
        try transaction(readOnly: true, seeing: .person(grantee)) { session in
            Set(try session.rows("SELECT person_id FROM shares WHERE grantee_id = \(grantee) AND mail_alerts").map { try $0.decode(String.self) })
        }
    }

    /// Sets whether `grantee` has `owner`'s ladder alerts mailed too; false when they hold no `alarms` share from them.
    public func setMailAlerts(owner: String, grantee: String, _ on: Bool) throws -> Bool {
        try transaction(seeing: .person(grantee)) { session in
            try !session.rows(
                """
                UPDATE shares SET mail_alerts = \(on) WHERE person_id = \(owner) AND grantee_id = \(grantee) AND 'alarms' = ANY(grants) RETURNING 1
                """
            ).isEmpty
        }
    }
}
