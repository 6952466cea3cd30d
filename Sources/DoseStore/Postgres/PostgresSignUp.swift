public import DoseCore
public import Foundation
import PostgresNIO

/// Accounts made by people themselves (issue 56): from an invitation (`join`) or from the sign-up page's mailed link
/// (`signUp`). A sign-up page's link is signed, not stored, until it is used: its hash is then kept in `sign_in_links`,
/// already used, so the same link never works twice.
extension PostgresStore {
    /// Makes the account for `email` from a sign-up page's link, in one transaction: the person, `device` as their first
    /// paired device, the link kept as used (its hash, `linkHash`, good until `expiresAt`), their access audit
    /// (`audited`) and the operators' audit. Nil when the link was used already; `taken` is thrown when the address has
    /// an account by now. All of it, or on any refusal or failure none.
    public func signUp(
        email: EmailAddress, person id: String, device: DeviceRecord, linkHash: String, expiresAt: Date, at now: Date, by actor: OperatorActor,
        audited: String, taken: DoseError
    ) throws -> PersonRecord? {
        try transaction(seeing: RowScope(person: id, tokenHash: linkHash)) { session in
            guard try session.rows("SELECT 1 FROM sign_in_links WHERE token_hash = \(linkHash)").isEmpty else { return nil }
            let person = try Self.makeAccount(session, id: id, email: email.text, device: device, at: now, by: actor, audited: audited, taken: taken)
            try Self.keepUsed(session, linkHash: linkHash, person: id, expiresAt: expiresAt, at: now)
            return person
        }
    }

    /// Keeps a sign-up page's link of `person`, who has an account, as used: true once, false for a link used already
    /// (whichever instance asks). The caller pairs the browser only on true.
    public func spendSignUpLink(linkHash: String, person: String, expiresAt: Date, at now: Date) throws -> Bool {
        try transaction(writingFor: person) { session in
            try Self.keepUsed(session, linkHash: linkHash, person: person, expiresAt: expiresAt, at: now)
        }
    }

    /// Inserts the used link, unless its hash is kept already (by anyone: the unique key decides, whoever's row it is).
    @discardableResult
    static func keepUsed(_ session: PostgresSession, linkHash: String, person: String, expiresAt: Date, at now: Date) throws -> Bool {
        try !session.rows(
            """
            INSERT INTO sign_in_links (token_hash, person_id, created_at, expires_at, used_at)
            VALUES (\(linkHash), \(person), \(now), \(expiresAt), \(now)) ON CONFLICT (token_hash) DO NOTHING RETURNING 1
            """
        ).isEmpty
    }

    /// The new person `id` with `email` (which no one here may have: `taken` is thrown), `device` as their first paired
    /// device, their own access audit entry (`audited`) and the operators' audit entry, inside the caller's transaction.
    static func makeAccount(
        _ session: PostgresSession, id: String, email: String, device: DeviceRecord, at now: Date, by actor: OperatorActor, audited: String,
        taken: DoseError
    ) throws -> PersonRecord {
        guard try session.rows("SELECT 1 FROM people WHERE email = \(email)").isEmpty else { throw taken }
        let person = PersonRecord(id: id, email: email, name: nil, createdAt: now)
        try session.execute("INSERT INTO people (id, email, name, created_at) VALUES (\(id), \(email), NULL, \(now))")
        try session.execute(
            """
            INSERT INTO devices (id, person_id, name, token_hash, created_at, expires_at)
            VALUES (\(device.id), \(id), \(device.name), \(device.tokenHash), \(now), \(device.expiresAt))
            """)
        try session.execute(
            "INSERT INTO access_audit (person_id, actor_id, at, action, detail) VALUES (\(id), \(id), \(now), 'signed_in', \(audited))")
        try audit(session, by: actor, "added", person.longName, at: now)
        return person
    }
}
