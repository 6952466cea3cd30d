import DoseApp
import DoseCore
public import DoseStore
public import Foundation

/// One-time pairing codes: `dosetap serve` prints a link with one; opening it pairs that browser. On a shared store one
/// set serves every person, and each code remembers whose device it makes.
public actor PairingCodes {
    private var codes: [String: (expiry: Date, person: String?)] = [:]
    /// How long a printed link works.
    public static let lifetime: TimeInterval = 15 * 60

    public init() {}

    /// How many unexpired codes each person may have; issuing past it retires their code that expires first (so one
    /// person asking again and again never retires another's).
    public static let outstandingLimit = 16

    /// A new code valid for fifteen minutes that pairs a device of `person` (nil: the store's one person). Expired
    /// codes are forgotten here, so the table never grows.
    public func issue(now: Date, random: RandomSource, for person: String? = nil) -> String {
        codes = codes.filter { now <= $0.value.expiry }
        let theirs = codes.filter { $0.value.person == person }
        if theirs.count >= Self.outstandingLimit, let first = theirs.min(by: { $0.value.expiry < $1.value.expiry })?.key { codes[first] = nil }
        let code = random.hex(16)
        codes[code] = (now.addingTimeInterval(Self.lifetime), person)
        return code
    }

    /// Codes held now (for tests of the bound).
    public var outstanding: Int { codes.count }

    /// The person a valid code pairs for (nil inside: the store's one person); nil when the code is unknown or expired.
    func owner(of code: String, now: Date) -> String?? {
        guard let held = codes[code], now <= held.expiry else { return nil }
        return .some(held.person)
    }

    /// Takes a valid code of `person` out of use while a pairing runs, so two browsers cannot both use it; nil if it is
    /// unknown, expired or another person's. Pass the returned expiry to `restore` if the pairing fails, so the link
    /// still works.
    func reserve(_ code: String, for person: String?, now: Date) -> Date? {
        guard let held = codes[code], held.person == person, now <= held.expiry else { return nil }
        codes[code] = nil
        return held.expiry
    }

    /// Puts back a code whose pairing failed.
    func restore(_ code: String, expiry: Date, for person: String?) {
        codes[code] = (expiry, person)
    }
}
