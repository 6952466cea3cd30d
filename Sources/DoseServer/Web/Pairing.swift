import DoseApp
import DoseCore
public import DoseStore
public import Foundation

/// One-time pairing codes: `dosetap serve` prints a link with one; opening it pairs that browser.
public actor PairingCodes {
    private var codes: [String: Date] = [:]
    /// How long a printed link works.
    public static let lifetime: TimeInterval = 15 * 60

    public init() {}

    /// How many unexpired codes are kept; issuing past it retires the one that expires first.
    public static let outstandingLimit = 16

    /// A new code valid for fifteen minutes. Expired codes are forgotten here, so the table never grows.
    public func issue(now: Date, random: RandomSource) -> String {
        codes = codes.filter { now <= $0.value }
        if codes.count >= Self.outstandingLimit, let first = codes.min(by: { $0.value < $1.value })?.key { codes[first] = nil }
        let code = random.hex(16)
        codes[code] = now.addingTimeInterval(Self.lifetime)
        return code
    }

    /// Codes held now (for tests of the bound).
    public var outstanding: Int { codes.count }

    /// Takes a valid code out of use while a pairing runs, so two browsers cannot both use it; nil if it is unknown
    /// or expired. Pass the returned expiry to `restore` if the pairing fails, so the link still works.
    func reserve(_ code: String, now: Date) -> Date? {
        guard let expiry = codes.removeValue(forKey: code), now <= expiry else { return nil }
        return expiry
    }

    /// Puts back a code whose pairing failed.
    func restore(_ code: String, expiry: Date) {
        codes[code] = expiry
    }
}
