public import DoseCore
public import DoseStore
public import Foundation

/// Making an account from an invitation (SPEC §5.7, issue 56): someone invited at an address no one signs in with may
/// make the account for that address when the operator's sign-up policy allows it; accepting makes the account, pairs
/// this browser as its first device and makes the share, in one step. No password: the invitation, good once and
/// for 7 days, is the proof of the address.
public struct JoinService: Sendable {
    let app: UseCases

    /// The address an invitee without an account opens to make one: `base` and the invitation's token.
    public static func url(base: String, token: String) -> String {
        SignInLinks.address(base: base, path: "/join", token: token)
    }

    /// What the page an invitation's join link opens shows before anything is done.
    public struct Preview: Sendable {
        public var invitation: InvitationRecord
        public var from: PersonRecord
    }

    /// The invitation `token` for someone without an account, when the policy lets them make one; refused, with what
    /// to do instead, when an account already has the address or the policy does not allow it.
    public func preview(token: String) throws -> Preview {
        let (invitation, from) = try app.sharing.invitation(token: token)
        try checkAllowed(invitation)
        return Preview(invitation: invitation, from: from)
    }

    /// Makes the account for the invitation's address, pairs this browser as `deviceName`, and accepts the invitation, in
    /// one transaction: a failure anywhere leaves no account, no device and the invitation pending. Returns the new
    /// person, their device's token and the share.
    public func join(token: String, deviceName: String) throws -> (person: PersonRecord, deviceToken: String, share: ShareRecord) {
        guard let store = app.store.shared else { throw SharingService.unshared }
        let (invitation, inviter) = try app.sharing.invitation(token: token)
        try checkAllowed(invitation)
        let (device, deviceToken) = try app.devices.firstOfNewAccount(named: deviceName)
        guard
            let (person, share) = try store.join(
                invitationTokenHash: DeviceTokens.hash(token), person: app.clock.makeID(), device: device, at: app.clock.now,
                by: OperatorActor(id: nil, name: "sign-up from an invitation"),
                audited: (
                    own: "made this account from \(inviter.shownName)'s invitation", inviter: "accepted \(SharingService.words(invitation.grants))"
                ))
        else { throw SharingService.unusable }
        return (person, deviceToken, share)
    }

    /// Refuses an invitation whose address has an account (sign in first) or that the sign-up policy does not allow.
    func checkAllowed(_ invitation: InvitationRecord) throws {
        guard let store = app.store.shared else { throw SharingService.unshared }
        guard try store.person(named: invitation.email) == nil else {
            throw DoseError.invalidInput(
                field: "token", problem: "\(invitation.email) already has an account here",
                allowed: "sign in with your own link, then open the invitation's link again to accept it")
        }
        guard let address = try? EmailAddress(invitation.email), app.signUp.allowsInvitee(address) else {
            throw DoseError.forbidden(
                why: "whoever runs this DoseTap adds its people, so no account can be made here; ask them to add \(invitation.email), "
                    + "then open the invitation again")
        }
    }
}

extension UseCases {
    /// Making an account from an invitation.
    public var join: JoinService { JoinService(app: self) }
}
