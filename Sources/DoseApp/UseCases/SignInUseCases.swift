public import DoseCore
public import DoseStore
public import Foundation

/// One-time sign-in links of a shared store (SPEC §5.6): the operator makes one (`dosetap person add`, `person link`),
/// the person opens it on a new browser and presses Sign in, and that browser becomes a paired device of theirs.
/// A link is 256 random bits, kept only as its hash, good once and for a day; opening it changes nothing, so a mail
/// scanner that follows links cannot use it up.
public enum SignInLinks {
    /// How long a link stays good.
    public static let lifetime: TimeInterval = 24 * 3600
    /// Failed sign-ins an address may have in `failureWindow` before it must wait. A person's own used or expired link
    /// tried again counts against the address that tried it, never her account, so a replay cannot lock her out.
    public static let failuresAllowed = 10
    /// The window failed sign-ins are counted in, in seconds.
    public static let failureWindow = 15 * 60

    /// A new link's secret: `dts_` and 64 hex digits.
    public static func token(_ random: RandomSource) -> String { "dts_" + random.hex(32) }

    /// Whether `token` has a link's shape (before any lookup).
    public static func isWellFormed(_ token: String) -> Bool {
        token.count == 68 && token.hasPrefix("dts_") && token.dropFirst(4).allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// The address a person opens: `base` (this DoseTap's own address) and the token.
    public static func url(base: String, token: String) -> String { address(base: base, path: "/signin", token: token) }

    /// `base` (this DoseTap's own address) with `path` and a one-time `token`: a sign-in, invitation or join link.
    static func address(base: String, path: String, token: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + path + "?token=" + token
    }

    /// `base` checked: an http(s) address with a host and nothing after its path.
    public static func checkedBase(_ base: String) throws(DoseError) -> String {
        guard let url = URLComponents(string: base), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
            url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw .invalidInput(
                field: "link-base", problem: "'\(base.prefix(100))' is not this DoseTap's address",
                allowed: "the http(s) address people open DoseTap at, such as https://dosetap.example.org")
        }
        return base
    }
}

extension PeopleService {
    /// A new sign-in link for the person `named`, at `base`; their older unused link stops working.
    public func signInLink(for named: String, base: String) throws -> (person: PersonRecord, url: String, expiresAt: Date) {
        try signInLink(for: named, base: base, audited: "link_shown")
    }

    /// The same, audited as `audited` (`link_shown`, or `link_mailed` for a link only the mail carries).
    func signInLink(for named: String, base: String, audited: String) throws -> (person: PersonRecord, url: String, expiresAt: Date) {
        let base = try SignInLinks.checkedBase(base)
        let person = try self.person(named)
        let token = SignInLinks.token(clock.random)
        let expiresAt = clock.now.addingTimeInterval(SignInLinks.lifetime)
        try store.issueSignInLink(
            person: person.id, tokenHash: DeviceTokens.hash(token), at: clock.now, expiresAt: expiresAt, audited: (actor, audited, person.longName))
        return (person, SignInLinks.url(base: base, token: token), expiresAt)
    }
}

/// Signing a browser in with a link made for this store's person.
public struct SignInService: Sendable {
    let app: UseCases

    /// The refusal of a link that cannot be used, whatever the reason: it says nothing about whose it was.
    static let invalid = DoseError.invalidInput(
        field: "token", problem: "this sign-in link does not work here: it was used, it expired, or it was made for another DoseTap",
        allowed: "a new link from whoever runs this DoseTap (`dosetap person link EMAIL`)")

    /// Uses `token` and pairs this browser as a device of the person, named `deviceName`; returns its device token.
    /// An address with too many failures in the window waits, whichever instance it asks. Failures count against the
    /// address alone, never the person whose (used or expired) link was tried: a replay must not lock her out.
    public func signIn(token: String, from address: String, deviceName: String) throws -> (device: DeviceRecord, token: String) {
        let now = app.clock.now
        try Self.refuseIfFailing(address, app)
        guard SignInLinks.isWellFormed(token), try app.store.useSignInLink(tokenHash: DeviceTokens.hash(token), at: now) else {
            try app.store.recordSignInFailure(from: address, at: now)
            throw Self.invalid
        }
        let paired = try app.devices.pair(name: deviceName, uniqued: true)
        if let person = app.store.personID { try app.sharing.record(to: person, by: person, "signed_in", "signed in on \(paired.device.name)") }
        return paired
    }
}

extension SignInService {
    /// Refuses `address` for a while once it has failed `SignInLinks.failuresAllowed` times in the window, whichever
    /// instance it asked; failures older than a day are forgotten.
    static func refuseIfFailing(_ address: String, _ app: UseCases) throws {
        let now = app.clock.now
        let failures = try app.store.signInFailures(
            from: address, since: now - TimeInterval(SignInLinks.failureWindow), forgetBefore: now - 24 * 3600)
        guard failures < SignInLinks.failuresAllowed else { throw DoseError.tooManyRequests(retryAfterSeconds: SignInLinks.failureWindow) }
    }
}

extension UseCases {
    /// Sign-in links.
    public var signIn: SignInService { SignInService(app: self) }
}
