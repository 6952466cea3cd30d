public import Foundation

/// How long a paired device keeps working: a browser signed in (its cookie) or an API token (SPEC §5.6: sessions and
/// tokens can be revoked and expire). A pure function of the device's dates, the instant and whether the person's night
/// is open.
///
/// A device expires when it has not been used for `idleLimit`, or at the date the person chose when they made the token
/// (`expiresAt`, for a script's token). A revoked device stops at once, whatever the hour. An expiry never signs anyone
/// out during a night: while the person's night is open (Dose 1 taken and the night not closed), an expired device keeps
/// working until the night ends, so a half-asleep person is never sent to sign in between their doses.
public enum DeviceLifetime {
    /// A device unused this many days stops working.
    public static let idleDays = 90
    /// `idleDays` in seconds.
    public static let idleLimit = TimeInterval(idleDays) * 86_400
    /// How stale the recorded last use may grow before a request writes it again: a day, so a device in use costs one
    /// write a day and is never within a day of its idle limit unnoticed.
    public static let useRecordedEvery: TimeInterval = 86_400
    /// The days a token's chosen lifetime may run.
    public static let chosenDays = 1...365

    /// What a device may do now.
    public enum State: Sendable, Equatable {
        /// It works.
        case usable
        /// It expired at `since` but works until the person's open night ends.
        case expiryDeferred(since: Date)
        /// It expired at `since`: unused for `idleLimit`, or at its chosen date (`chosen`).
        case expired(since: Date, chosen: Bool)
        /// It was revoked.
        case revoked
    }

    /// The state of a device made at `createdAt`, last used at `lastUsedAt` (nil: never since it was made), expiring at
    /// `expiresAt` (nil: only when idle) and revoked at `revokedAt`, at `now`. `nightOpen` is asked only of an expired
    /// device, so a caller reads the night only then.
    public static func state(
        createdAt: Date, lastUsedAt: Date?, expiresAt: Date?, revokedAt: Date?, now: Date, nightOpen: @autoclosure () -> Bool
    ) -> State {
        if let revokedAt, revokedAt <= now { return .revoked }
        guard let since = expiry(createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt), since <= now else { return .usable }
        return nightOpen() ? .expiryDeferred(since: since) : .expired(since: since, chosen: expiresAt == since)
    }

    /// When the device expires if it is not used again: the earlier of its idle limit and its chosen date.
    public static func expiry(createdAt: Date, lastUsedAt: Date?, expiresAt: Date?) -> Date? {
        let idle = max(createdAt, lastUsedAt ?? createdAt).addingTimeInterval(idleLimit)
        return min(idle, expiresAt ?? idle)
    }

    /// Whether a request at `now` should record the device's use: never recorded, or recorded a day or more ago.
    public static func shouldRecordUse(lastUsedAt: Date?, now: Date) -> Bool {
        guard let lastUsedAt else { return true }
        return now.timeIntervalSince(lastUsedAt) >= useRecordedEvery
    }

    /// The chosen lifetime of a new token, checked: `days` from `now`, or nil for a token that expires only when idle.
    public static func chosenExpiry(days: Int?, from now: Date) throws(DoseError) -> Date? {
        guard let days else { return nil }
        guard chosenDays.contains(days) else {
            throw DoseError.invalidInput(
                field: "expires-in-days", problem: "\(days) days", allowed: "\(chosenDays.lowerBound)–\(chosenDays.upperBound) days, or leave it out")
        }
        return now.addingTimeInterval(TimeInterval(days) * 86_400)
    }
}
