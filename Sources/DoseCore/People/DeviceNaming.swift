public import Foundation

/// The names of paired devices and how many push subscriptions each may hold.
public enum DeviceNaming {
    /// Push subscriptions a device may hold: a browser makes one, so more means something is wrong.
    public static let subscriptionsPerDevice = 5

    /// A device name as stored: trimmed, 1–60 code points.
    public static func validated(_ name: String) throws(DoseError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...60).contains(TextLimits.length(trimmed)) else {
            throw .invalidInput(
                field: "name", problem: "it has \(TextLimits.length(trimmed)) characters (Unicode code points)", allowed: "1–60 characters")
        }
        return trimmed
    }

    /// Refuses a name another paired device has: names are unique among paired devices.
    public static func refuseTaken(_ name: String, pairedNames: Set<String>) throws(DoseError) {
        guard !pairedNames.contains(name) else {
            throw .invalidInput(
                field: "name", problem: "a device named '\(name)' is already paired", allowed: "another name, or revoke that one first")
        }
    }

    /// `base`, or `base 2`, `base 3`, … — the first name no paired device has, so two browsers paired in the same
    /// minute never collide.
    public static func unused(_ base: String, pairedNames taken: Set<String>) -> String {
        let stem = TextLimits.truncated(base, limit: 56)
        return ([stem] + (2...999).map { "\(stem) \($0)" }).first { !taken.contains($0) } ?? "\(stem) \(taken.count + 1)"
    }

    /// Refuses a new subscription for a device that holds `held` already.
    public static func refuseSubscription(held: Int) throws(DoseError) {
        guard held < subscriptionsPerDevice else {
            throw .invalidInput(
                field: "endpoint", problem: "this device already has \(held) push subscriptions",
                allowed: "at most \(subscriptionsPerDevice) per device; remove one on Settings first")
        }
    }
}
