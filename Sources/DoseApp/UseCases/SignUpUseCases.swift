import Crypto
public import DoseCore
public import DoseStore
public import Foundation

/// One link of the sign-up page, as mailed: the address it is for, until when, and a nonce that makes it unlike any
/// other. It is signed, not stored, until used.
public struct SignUpLink: Sendable, Equatable {
    public var email: String
    public var expiresAt: Date
    public var nonce: String

    public init(email: String, expiresAt: Date, nonce: String) {
        self.email = email
        self.expiresAt = expiresAt
        self.nonce = nonce
    }
}

/// Signs and checks the sign-up page's links with HMAC-SHA256 under the store's own `sign_up` key: the link is the
/// proof that its reader holds the mailbox of its address.
public struct SignUpLinkSigner: Sendable {
    /// How long a mailed link works: as long as a sign-in link.
    public static let lifetime = SignInLinks.lifetime
    /// What every sign-up link's token begins with.
    static let prefix = "dtu_"

    private let key: SymmetricKey

    /// `secretHex` is the 64 hex digits kept in the database.
    public init(secretHex: String) { key = ActionLinkSigner.key(secretHex) }

    /// `dtu_` then the address (base64url), the expiry (Unix seconds) and the nonce, then the signature; all URL-safe.
    public func token(for link: SignUpLink) -> String {
        let payload = Self.payload(link)
        return payload + "." + ActionLinkSigner.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)))
    }

    /// The link `token` stands for, if this DoseTap signed it unchanged and it has not expired at `now`; otherwise the one
    /// refusal of a link that cannot be used, which says nothing of why.
    public func link(from token: String, now: Date) throws(DoseError) -> SignUpLink {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard token.utf8.count <= 500, token.hasPrefix(Self.prefix), parts.count == 4, let signature = ActionLinkSigner.data(base64URL: parts[3])
        else { throw SignUpService.unusable }
        let payload = parts.dropLast().joined(separator: ".")
        // The comparison inside isValidAuthenticationCode does not stop at the first differing byte.
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(payload.utf8), using: key),
            let email = ActionLinkSigner.data(base64URL: String(parts[0].dropFirst(Self.prefix.count))), let expiry = TimeInterval(parts[1])
        else { throw SignUpService.unusable }
        let link = SignUpLink(email: String(decoding: email, as: UTF8.self), expiresAt: Date(timeIntervalSince1970: expiry), nonce: parts[2])
        guard now < link.expiresAt else { throw SignUpService.unusable }
        return link
    }

    static func payload(_ link: SignUpLink) -> String {
        [
            prefix + ActionLinkSigner.base64URL(Data(link.email.utf8)), String(Int(link.expiresAt.timeIntervalSince1970.rounded(.down))),
            link.nonce,
        ].joined(separator: ".")
    }
}

/// The sign-up page of a DoseTap served with `--sign-up domain=DOMAIN` and `--smtp` (SPEC §5.7, issue 56): anyone with an
/// address at the domain asks for a link by mail. The answer is the same whether or not the address has an account,
/// and the request reads no account, so neither the answer nor its time tells anyone who this DoseTap's people are.
/// The mailed link signs its reader in: to the account of the address, made by the link if there is none yet. No
/// password; the link works once, for a day.
public struct SignUpService: Sendable {
    let app: UseCases

    /// A second request for the same address this soon mails nothing more (a double tap, a reload): the first mail is
    /// on its way, and its link works.
    public static let quietSeconds = 120

    /// The refusal of a link that cannot be used, whatever the reason: used, expired, changed, or another DoseTap's.
    static let unusable = DoseError.invalidInput(
        field: "token", problem: "this link does not work here: it was used, it expired, or it was made for another DoseTap",
        allowed: "a new link from this DoseTap's sign-up page (/signup)")

    /// The address a mailed link opens: `base` and the link's token.
    public static func url(base: String, token: String) -> String {
        SignInLinks.address(base: base, path: "/signup/confirm", token: token)
    }

    /// The domain whose addresses may ask for a link here; refused, saying who adds people, when the page is closed.
    public func openDomain() throws -> String {
        guard app.store.shared != nil, let domain = app.signUp.openDomain else {
            throw DoseError.forbidden(
                why: "this DoseTap does not take sign-ups: whoever runs it adds its people. Ask them for a sign-in link for your address")
        }
        guard app.sendsMail else {
            throw DoseError.forbidden(
                why: "this DoseTap cannot send mail, so it cannot mail you a link: ask whoever runs it for a sign-in link for your address")
        }
        return domain
    }

    /// What a request was answered with: the address (as kept) and until when its link works. `mailed` is false when
    /// nothing more was queued (the address's hourly limit, or a link mailed moments ago); the page says the same either
    /// way.
    public struct Requested: Sendable {
        public var email: String
        public var expiresAt: Date
        public var mailed: Bool
    }

    /// Mails the address `raw` a link, made at `base`, for someone asking from `address`: refused by name when it is not
    /// an address, or not one at the domain. Nothing about the address's account is read. Each request counts against
    /// `address` as a failed sign-in does, so no one can make DoseTap mail a whole domain.
    public func request(email raw: String, base: String, from address: String) throws -> Requested {
        let domain = try openDomain()
        let store = try sharedStore()
        let now = app.clock.now
        try SignInService.refuseIfFailing(address, app)
        let email = try EmailAddress(raw)
        guard app.signUp.allowsSignUp(email) else {
            throw DoseError.invalidInput(
                field: "email", problem: "\(email) is not an address at \(domain)",
                allowed: "an address at \(domain); anyone else is added by whoever runs this DoseTap")
        }
        let base = try SignInLinks.checkedBase(base)
        let link = SignUpLink(
            email: email.text, expiresAt: now.addingTimeInterval(SignUpLinkSigner.lifetime), nonce: ActionLinkSigner.nonce(app.clock.random))
        let url = Self.url(base: base, token: try signer().token(for: link))
        let mail = OutgoingMail.signUp(to: email.text, link: url, expiresAt: link.expiresAt, id: app.clock.makeID())
        try store.recordSignInFailure(from: address, at: now)
        let mailed = try store.queueMail(mail, at: now, hourlyLimit: OutgoingMail.hourlyLimit, quietSeconds: Self.quietSeconds)
        return Requested(email: email.text, expiresAt: link.expiresAt, mailed: mailed)
    }

    /// What the page a mailed link opens shows before anything is done: whose link, until when, and whether pressing
    /// its button signs in to an account or makes one.
    public struct Preview: Sendable {
        public var email: String
        public var expiresAt: Date
        public var hasAccount: Bool
    }

    /// The link `token`, checked: signed here, unexpired, unused, and at the domain still open.
    public func preview(token: String) throws -> Preview {
        let link = try checked(token)
        let store = try sharedStore()
        guard try store.owner(of: .signInLink(hash: DeviceTokens.hash(token))) == nil else { throw Self.unusable }
        return Preview(email: link.email, expiresAt: link.expiresAt, hasAccount: try store.person(named: link.email) != nil)
    }

    /// What pressing the button did: the person, this browser's device token, and whether the account was made now.
    public struct Confirmed: Sendable {
        public var person: PersonRecord
        public var deviceToken: String
        public var made: Bool
    }

    /// Uses the link `token` from `address` and pairs this browser, named `deviceName`: as a new device of the address's
    /// person, or as the first device of the account made now, in one transaction with it. Failures count against
    /// `address`, as failed sign-ins do, so links cannot be guessed at.
    public func confirm(token: String, from address: String, deviceName: String) throws -> Confirmed {
        let store = try sharedStore()
        let now = app.clock.now
        try SignInService.refuseIfFailing(address, app)
        do {
            let link = try checked(token)
            let hash = DeviceTokens.hash(token)
            if let person = try store.person(named: link.email) {
                guard try store.spendSignUpLink(linkHash: hash, person: person.id, expiresAt: link.expiresAt, at: now) else { throw Self.unusable }
                let theirs = app.acting(as: person.id)
                let paired = try theirs.devices.pair(name: deviceName, uniqued: true)
                try theirs.sharing.record(
                    to: person.id, by: person.id, "signed_in", "signed in on \(paired.device.name) with a link from the sign-up page")
                return Confirmed(person: person, deviceToken: paired.token, made: false)
            }
            let (device, deviceToken) = try app.devices.firstOfNewAccount(named: deviceName)
            guard
                let person = try store.signUp(
                    email: try EmailAddress(link.email), person: app.clock.makeID(), device: device, linkHash: hash, expiresAt: link.expiresAt,
                    at: now, by: OperatorActor(id: nil, name: "the sign-up page (\(app.signUp))"),
                    audited: "made this account with a link from the sign-up page",
                    taken: DoseError.invalidInput(
                        field: "token", problem: "an account for \(link.email) was made a moment ago, by another use of a link",
                        allowed: "this link again: it now signs in to that account"))
            else { throw Self.unusable }
            return Confirmed(person: person, deviceToken: deviceToken, made: true)
        } catch let error as DoseError where error == Self.unusable {
            try store.recordSignInFailure(from: address, at: now)
            throw error
        }
    }

    /// The link of `token` if it can be used at the domain now open.
    func checked(_ token: String) throws -> SignUpLink {
        _ = try openDomain()
        let link = try signer().link(from: token, now: app.clock.now)
        // The domain may have changed since the link was mailed: the policy of now decides.
        guard let email = try? EmailAddress(link.email), app.signUp.allowsSignUp(email) else {
            throw DoseError.forbidden(
                why: "addresses like \(link.email) can no longer make an account here: whoever runs this DoseTap adds its people. Ask them")
        }
        return link
    }

    func sharedStore() throws -> PostgresStore {
        guard let store = app.store.shared else { throw SharingService.unshared }
        return store
    }

    func signer() throws -> SignUpLinkSigner {
        SignUpLinkSigner(secretHex: try sharedStore().serverSecret(purpose: "sign_up", at: app.clock.now) { app.clock.random.hex(32) })
    }
}

extension UseCases {
    /// The sign-up page and its mailed links.
    public var signUpPage: SignUpService { SignUpService(app: self) }
}
