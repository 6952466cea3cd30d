import DoseApp
import DoseCore
public import DoseStore
public import Foundation

/// One-time pairing codes: `dosetap serve` prints a link with one; opening it pairs that browser. On a shared store one
/// set serves every person, and each code remembers whose device it makes.
///
/// On PostgreSQL the codes of a person live in the database (their hashes), so a link one instance showed pairs at
/// whichever instance it reaches, once. A code made while the database cannot be written is kept here instead, and
/// works at this instance only.
public actor PairingCodes {
    private var codes: [String: (expiry: Date, person: String?)] = [:]
    /// Where a person's codes are kept on a shared store (nil: here, in this process).
    private let store: PostgresStore?
    /// How long a printed link works.
    public static let lifetime: TimeInterval = 15 * 60

    /// Codes kept in this process, or with `store`, in PostgreSQL for every instance.
    public init(store: PostgresStore? = nil) {
        self.store = store
    }

    /// How many unexpired codes each person may have; issuing past it retires their code that expires first (so one
    /// person asking again and again never retires another's).
    public static let outstandingLimit = 16

    /// The database that keeps `person`'s codes: only on a shared store, for a named person.
    private func shared(_ person: String?) -> (store: PostgresStore, person: String)? {
        guard let store, let person, !person.isEmpty else { return nil }
        return (store, person)
    }

    /// A new code valid for fifteen minutes that pairs a device of `person` (nil: the store's one person). Expired
    /// codes are forgotten here, so the table never grows.
    public func issue(now: Date, random: RandomSource, for person: String? = nil) async -> String {
        codes = codes.filter { now <= $0.value.expiry }
        let code = random.hex(16)
        let expiry = now.addingTimeInterval(Self.lifetime)
        if let (store, person) = shared(person),
            (try? await BlockingWork.run({
                try store.issuePairingCode(hash: DeviceTokens.hash(code), person: person, expiresAt: expiry, now: now, keep: Self.outstandingLimit)
            })) != nil
        {
            return code
        }
        let theirs = codes.filter { $0.value.person == person }
        if theirs.count >= Self.outstandingLimit, let first = theirs.min(by: { $0.value.expiry < $1.value.expiry })?.key { codes[first] = nil }
        codes[code] = (expiry, person)
        return code
    }

    /// Codes held in this process now (for tests of the bound).
    public var outstanding: Int { codes.count }

    /// The person a valid code pairs for (nil inside: the store's one person); nil when the code is unknown or expired.
    func owner(of code: String, now: Date) async -> String?? {
        if let held = codes[code], now <= held.expiry { return .some(held.person) }
        guard let store, code.count == 32, code.allSatisfy(\.isHexDigit),
            let person = try? await BlockingWork.run({ try store.pairingCodeOwner(hash: DeviceTokens.hash(code), now: now) })
        else { return nil }
        return .some(person)
    }

    /// Takes a valid code of `person` out of use while a pairing runs, so two browsers (at any instances) cannot both
    /// use it; nil if it is unknown, expired or another person's. Pass the returned expiry to `restore` if the pairing
    /// fails, so the link still works.
    func reserve(_ code: String, for person: String?, now: Date) async -> Date? {
        if let held = codes[code], held.person == person, now <= held.expiry {
            codes[code] = nil
            return held.expiry
        }
        guard let (store, person) = shared(person) else { return nil }
        return (try? await BlockingWork.run { try store.takePairingCode(hash: DeviceTokens.hash(code), person: person, now: now) }) ?? nil
    }

    /// Puts back a code whose pairing failed.
    func restore(_ code: String, expiry: Date, for person: String?) async {
        if let (store, person) = shared(person),
            (try? await BlockingWork.run({ try store.restorePairingCode(hash: DeviceTokens.hash(code), person: person, expiresAt: expiry) })) != nil
        {
            return
        }
        codes[code] = (expiry, person)
    }
}
