public import DoseCore
public import DoseStore
public import Foundation

/// The mail DoseTap sends (SPEC §5.7): plain text with an HTML part, the link the only thing to act on, no tracking.
/// Each is queued in the shared store and sent by whichever `serve` instance has `--smtp`.
public enum OutgoingMail {
    /// Messages one address may be sent in an hour; past it, more are held back, so DoseTap cannot be made to flood
    /// someone's inbox.
    public static let hourlyLimit = 5

    /// A sign-in link, good once until `expiresAt`.
    public static func signIn(to address: String, link: String, expiresAt: Date, id: String) -> MailJob {
        let until = minute(expiresAt)
        let text = """
            Open this link on the phone or computer you want to use DoseTap on, and press Sign in:

            \(link)

            The link works once, until \(until) UTC. If you did not expect it, ignore this mail: nothing happens unless \
            the link is used.
            """
        let html = """
            <p>Open this link on the phone or computer you want to use DoseTap on, and press Sign in:</p>
            <p><a href="\(escaped(link))">Sign in to DoseTap</a></p>
            <p>The link works once, until \(until) UTC. If you did not expect it, ignore this mail: nothing happens unless \
            the link is used.</p>
            """
        return MailJob(id: id, recipient: address, kind: .signIn, subject: "Your DoseTap sign-in link", text: text, html: html)
    }

    /// A link from the sign-up page, good once until `expiresAt`: it signs in to the address's account, made by the link
    /// if there is none yet. One text for both, since the page that mailed it must not know which.
    public static func signUp(to address: String, link: String, expiresAt: Date, id: String) -> MailJob {
        let until = minute(expiresAt)
        let text = """
            Someone, probably you, asked DoseTap's sign-up page for a link for \(address).

            Open this link on the phone or computer you want to use DoseTap on, and press its button. If you have no \
            account yet, it makes one for \(address); if you have one, it signs you in to it. There is no password:

            \(link)

            The link works once, until \(until) UTC. If you did not ask for it, ignore this mail: nothing happens unless \
            the link is used.
            """
        let html = """
            <p>Someone, probably you, asked DoseTap's sign-up page for a link for \(escaped(address)).</p>
            <p>Open this link on the phone or computer you want to use DoseTap on, and press its button. If you have no \
            account yet, it makes one for \(escaped(address)); if you have one, it signs you in to it. There is no password:</p>
            <p><a href="\(escaped(link))">Open DoseTap</a></p>
            <p>The link works once, until \(until) UTC. If you did not ask for it, ignore this mail: nothing happens unless \
            the link is used.</p>
            """
        return MailJob(id: id, recipient: address, kind: .signIn, subject: "Your DoseTap link", text: text, html: html)
    }

    /// An alarm ladder's alert, mailed as well as rung on the grantee's own channels: the same words, and nothing to act
    /// on in DoseTap (they wake the person, who decides).
    public static func alert(to address: String, message: String, id: String) -> MailJob {
        let text = message + "\n\nThis mail is a copy of the alarm DoseTap rang on your own channels. Mail can arrive late: never rely on it alone."
        let html =
            "<p>\(escaped(message))</p><p>This mail is a copy of the alarm DoseTap rang on your own channels. Mail can arrive late: never "
            + "rely on it alone.</p>"
        let subject = message.hasPrefix("DoseTap: ") ? String(message.dropFirst(9).prefix(120)) : String(message.prefix(120))
        return MailJob(id: id, recipient: address, kind: .alert, subject: "DoseTap alert: " + subject, text: text, html: html)
    }

    /// Who an invitation's mail is for, which decides only what it asks of them.
    public enum Reader: Sendable, Equatable {
        /// Someone who signs in here: accept where signed in.
        case hasAccount
        /// Someone without an account whom the sign-up policy lets make one from the link.
        case mayJoin
        /// Someone without an account who must be added by the operator first.
        case mustAskOperator
    }

    /// An invitation from `inviter` to share `grants`. Whether the address has an account here changes only what the
    /// mail asks of its reader, never what the inviter is told.
    public static func invitation(
        to address: String, from inviter: String, grants: String, link: String, expiresAt: Date, reader: Reader, id: String
    ) -> MailJob {
        let until = minute(expiresAt)
        let step =
            switch reader {
            case .hasAccount: "Open this link where you are signed in to DoseTap to accept:"
            case .mayJoin: "Open this link to make your DoseTap account for \(address) and accept, in one step. There is no password to choose:"
            case .mustAskOperator:
                "You have no account on this DoseTap yet. Ask whoever runs it to add \(address), then open this link to accept:"
            }
        let text = """
            \(inviter) invited you to \(grants) their DoseTap record of split-night doses.

            \(step)

            \(link)

            The invitation works once, until \(until) UTC. If you do not know \(inviter), ignore this mail.
            """
        let html = """
            <p>\(escaped(inviter)) invited you to \(escaped(grants)) their DoseTap record of split-night doses.</p>
            <p>\(escaped(step))</p>
            <p><a href="\(escaped(link))">Open the invitation</a></p>
            <p>The invitation works once, until \(until) UTC. If you do not know \(escaped(inviter)), ignore this mail.</p>
            """
        return MailJob(
            id: id, recipient: address, kind: .invitation, subject: "\(inviter) invited you to DoseTap", text: text, html: html)
    }

    /// "2026-11-30 23:00", in UTC: a mail is read in any zone.
    static func minute(_ date: Date) -> String {
        String(ISO8601.string(date).prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `text` safe inside HTML, attribute values included.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }
}

extension PeopleService {
    /// Mails `named` a new sign-in link (their older unused link stops working), for whichever instance sends mail.
    /// The link is not returned: only the person's mailbox ever holds it. An address sent the hour's limit already is
    /// refused before anything changes, so their current link still works.
    public func mailSignInLink(for named: String, base: String) throws -> (person: PersonRecord, expiresAt: Date) {
        let person = try self.person(named)
        guard let address = person.email else {
            throw DoseError.invalidInput(
                field: "person", problem: "\(person.shownName) has no address to mail", allowed: "`dosetap person address` gives them one")
        }
        guard try store.mailQueued(to: address, inHourBefore: clock.now) < OutgoingMail.hourlyLimit else {
            throw DoseError.tooManyRequests(retryAfterSeconds: 3_600)
        }
        let (_, url, expiresAt) = try signInLink(for: person.id, base: base, audited: "link_mailed")
        let job = OutgoingMail.signIn(to: address, link: url, expiresAt: expiresAt, id: clock.makeID())
        // Another message to the address in the instant since the check: the new link is made but not sent, so say so.
        guard try store.queueMail(job, at: clock.now, hourlyLimit: OutgoingMail.hourlyLimit) else {
            throw DoseError.tooManyRequests(retryAfterSeconds: 3_600)
        }
        return (person, expiresAt)
    }

    /// The mail queue, newest first with what is pending or failed before what was sent: never a message's body.
    public func mailQueue(limit: Int = 100) throws -> [MailQueueEntry] { try store.mailQueue(limit: limit) }
}
