import Crypto
public import DoseCore
public import DoseStore
public import Foundation

/// One signed action link of a reminder (SPEC §1: the notification's Take / Snooze / Skip buttons). The link is its
/// own credential, for one action, on one night, until it expires; it never carries a confirmation, so a risky dose
/// asked for by a link is refused like any other.
public struct ActionLink: Sendable, Hashable {
    /// What a link may do.
    public enum Action: String, Sendable, CaseIterable {
        case take, snooze, skip

        /// The button's words.
        public var label: String {
            switch self {
            case .take: "Take Dose 2"
            case .snooze: "Snooze"
            case .skip: "Skip Dose 2"
            }
        }
    }

    public var action: Action
    public var sessionID: String
    public var expiresAt: Date
    /// Random, and the key under which the link is spent (so it works once).
    public var nonce: String
    /// The paired device the link was sent to (its page or its push subscription), so revoking the device voids it;
    /// nil for the operator's own channels (webhooks, a local command).
    public var deviceID: String?

    public init(action: Action, sessionID: String, expiresAt: Date, nonce: String, deviceID: String? = nil) {
        self.action = action
        self.sessionID = sessionID
        self.expiresAt = expiresAt
        self.nonce = nonce
        self.deviceID = deviceID
    }

    /// The same link, issued to one device: the nonce is kept, so whichever copy is tapped first spends them all.
    public func issued(to device: String) -> ActionLink {
        var copy = self
        copy.deviceID = device
        return copy
    }

    /// The night action the link asks for, from the `link` source and without confirmations.
    public var nightAction: NightAction {
        switch action {
        case .take: NightAction(.dose2, source: .link)
        case .snooze: NightAction(.snooze, source: .link)
        case .skip: NightAction(.skip(reason: nil), source: .link)
        }
    }
}

/// Signs and checks action links with HMAC-SHA256 under the server's stored secret.
public struct ActionLinkSigner: Sendable {
    /// How long a reminder's links work after it fires: past the latest close of the window that rings it.
    public static let lifetime: TimeInterval = 2 * 3600

    private let key: SymmetricKey

    /// `secret` is the 64 hex digits kept in the database.
    public init(secretHex: String) { key = Self.key(secretHex) }

    static func key(_ secretHex: String) -> SymmetricKey { SymmetricKey(data: [UInt8](hexDigits: secretHex) ?? []) }

    /// A fresh nonce: 128 random bits, hex.
    public static func nonce(_ random: RandomSource) -> String { random.hex(16) }

    /// The link's URL path segment: `action.session.expiry.nonce.signature`, or with the device it was issued to
    /// `action.session.expiry.nonce.device.signature`; all URL-safe.
    public func token(for link: ActionLink) -> String {
        let payload = Self.payload(link)
        return payload + "." + Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)))
    }

    /// The refusal of a token that is not a link this DoseTap signed, or was changed.
    public static let forged = DoseError.invalidInput(
        field: "link", problem: "this is not a DoseTap reminder link, or it was changed",
        allowed: "a link from a DoseTap reminder, or the Tonight page")

    /// The night a token says it is for, unchecked: on a shared store it only chooses whose key then checks the token.
    public static func claimedNight(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 400, [5, 6].contains(parts.count), let night = data(base64URL: String(parts[1])), !night.isEmpty else { return nil }
        return String(decoding: night, as: UTF8.self)
    }

    /// The link a token stands for, if its signature holds and it has not expired.
    public func link(from token: String, now: Date) throws(DoseError) -> ActionLink {
        let invalid = Self.forged
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard token.utf8.count <= 400, [5, 6].contains(parts.count), let signature = Self.data(base64URL: parts[parts.count - 1]) else {
            throw invalid
        }
        let payload = parts.dropLast().joined(separator: ".")
        // The comparison inside isValidAuthenticationCode does not stop at the first differing byte.
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(payload.utf8), using: key),
            let action = ActionLink.Action(rawValue: parts[0]), let session = Self.data(base64URL: parts[1]),
            let expiry = TimeInterval(parts[2])
        else { throw invalid }
        var device: String?
        if parts.count == 6 {
            guard let bytes = Self.data(base64URL: parts[4]), !bytes.isEmpty else { throw invalid }
            device = String(decoding: bytes, as: UTF8.self)
        }
        let link = ActionLink(
            action: action, sessionID: String(decoding: session, as: UTF8.self), expiresAt: Date(timeIntervalSince1970: expiry), nonce: parts[3],
            deviceID: device)
        guard now < link.expiresAt else {
            throw .invalidInput(field: "link", problem: "this reminder link has expired", allowed: "the newest reminder's link, or the Tonight page")
        }
        return link
    }

    static func payload(_ link: ActionLink) -> String {
        let parts = [
            link.action.rawValue, base64URL(Data(link.sessionID.utf8)), String(Int(link.expiresAt.timeIntervalSince1970.rounded(.down))), link.nonce,
        ]
        return (parts + (link.deviceID.map { [base64URL(Data($0.utf8))] } ?? [])).joined(separator: ".")
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes only the canonical form: the last character of a 32-byte signature carries two unused bits, and a
    /// decoder that ignored them would accept four spellings of one link.
    static func data(base64URL text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base += String(repeating: "=", count: (4 - base.count % 4) % 4)
        guard let data = Data(base64Encoded: base), base64URL(data) == text else { return nil }
        return data
    }
}

/// CSRF tokens of paired browsers: HMAC-SHA256, under the server's stored secret, of the device id and a 12-hour
/// period. A token is bound to one device, changes twice a day and needs no storage; a page's token is still taken in
/// the following period, so a Tonight left open all night keeps working. Clear All Data (a new secret) voids them all.
public struct CSRFTokens: Sendable {
    /// How long one token is issued for; it is accepted for twice that.
    public static let period: TimeInterval = 12 * 3600
    private let key: SymmetricKey

    /// `secretHex` is the same stored secret that signs action links; the inputs differ, so the tokens do too.
    public init(secretHex: String) { key = ActionLinkSigner.key(secretHex) }

    /// The token a page shown to `device` at `now` carries.
    public func token(device: String, at now: Date) -> String { token(device: device, period: Self.periodIndex(now)) }

    /// Whether `sent` is this device's token of the current or the previous period.
    public func accepts(_ sent: String, device: String, at now: Date) -> Bool {
        let current = Self.periodIndex(now)
        return [current, current - 1].contains { DeviceTokens.constantTimeEqual(sent, token(device: device, period: $0)) }
    }

    static func periodIndex(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / period).rounded(.down)) }

    func token(device: String, period: Int) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("csrf\n\(device)\n\(period)".utf8), using: key)
        return String(Data(code).hexString.prefix(40))
    }
}
