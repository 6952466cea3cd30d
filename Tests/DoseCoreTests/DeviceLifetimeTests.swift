import DoseCore
import Foundation
import Testing

/// When a paired device stops working (SPEC §5.6): boundaries on both sides, a chosen date, revocation, and the open
/// night that defers an expiry but never a revocation.
@Suite("Device lifetime: idle and chosen expiry, never during an open night")
struct DeviceLifetimeTests {
    static let paired = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400
    static let idle = DeviceLifetime.idleLimit

    @Test(
        "the idle limit counts from the last use, or from pairing when never used",
        arguments: [
            // (last use after pairing in days, seconds after pairing asked, usable)
            (nil as Double?, idle - 1, true), (nil, idle, false),
            (10, 10 * day + idle - 1, true), (10, 10 * day + idle, false),
            (0, idle - 1, true), (0, idle, false),
        ])
    func idleBoundary(lastUseDays: Double?, at seconds: TimeInterval, usable: Bool) {
        let state = DeviceLifetime.state(
            createdAt: Self.paired, lastUsedAt: lastUseDays.map { Self.paired.addingTimeInterval($0 * Self.day) }, expiresAt: nil,
            revokedAt: nil, now: Self.paired.addingTimeInterval(seconds), nightOpen: false)
        #expect((state == .usable) == usable, "\(state)")
        if !usable { #expect(state == .expired(since: Self.paired.addingTimeInterval(seconds), chosen: false)) }
    }

    @Test("a chosen date ends it on the second, before the idle limit; the earlier of the two wins")
    func chosenDate() {
        let chosen = Self.paired.addingTimeInterval(Self.day)
        func state(_ seconds: TimeInterval, expiresAt: Date? = chosen) -> DeviceLifetime.State {
            DeviceLifetime.state(
                createdAt: Self.paired, lastUsedAt: Self.paired.addingTimeInterval(seconds - 60), expiresAt: expiresAt, revokedAt: nil,
                now: Self.paired.addingTimeInterval(seconds), nightOpen: false)
        }
        #expect(state(Self.day - 1) == .usable)
        #expect(state(Self.day) == .expired(since: chosen, chosen: true))
        // A chosen date past the idle limit: the idle limit comes first for a device left unused.
        let late = Self.paired.addingTimeInterval(200 * Self.day)
        #expect(DeviceLifetime.expiry(createdAt: Self.paired, lastUsedAt: nil, expiresAt: late) == Self.paired.addingTimeInterval(Self.idle))
    }

    @Test("an open night defers an expiry, never a revocation")
    func openNight() {
        let now = Self.paired.addingTimeInterval(Self.idle + 60)
        #expect(
            DeviceLifetime.state(createdAt: Self.paired, lastUsedAt: nil, expiresAt: nil, revokedAt: nil, now: now, nightOpen: true)
                == .expiryDeferred(since: Self.paired.addingTimeInterval(Self.idle)))
        #expect(
            DeviceLifetime.state(createdAt: Self.paired, lastUsedAt: nil, expiresAt: nil, revokedAt: now - 1, now: now, nightOpen: true) == .revoked)
        #expect(
            DeviceLifetime.state(createdAt: Self.paired, lastUsedAt: now, expiresAt: nil, revokedAt: nil, now: now, nightOpen: true) == .usable)
    }

    @Test(
        "a use is written when none was, or a day or more after the last",
        arguments: [(nil as TimeInterval?, true), (0, false), (86_399, false), (86_400, true), (200_000, true)])
    func recordUse(sinceLast: TimeInterval?, writes: Bool) {
        let now = Self.paired.addingTimeInterval(300_000)
        #expect(DeviceLifetime.shouldRecordUse(lastUsedAt: sinceLast.map { now - $0 }, now: now) == writes)
    }

    @Test("a chosen lifetime is 1–365 days; outside it the refusal names the option and the range", arguments: [0, 1, 365, 366, -5])
    func chosenRange(days: Int) throws {
        if (1...365).contains(days) {
            #expect(try DeviceLifetime.chosenExpiry(days: days, from: Self.paired) == Self.paired.addingTimeInterval(Double(days) * Self.day))
        } else {
            #expect(throws: DoseError.invalidInput(field: "expires-in-days", problem: "\(days) days", allowed: "1–365 days, or leave it out")) {
                try DeviceLifetime.chosenExpiry(days: days, from: Self.paired)
            }
        }
        #expect(try DeviceLifetime.chosenExpiry(days: nil, from: Self.paired) == nil)
    }
}
