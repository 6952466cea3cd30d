import DoseApp
import DoseCore
public import Foundation

/// One-time pairing codes: `dosetap serve` prints a link with one; opening it pairs that browser.
public actor PairingCodes {
    private var codes: [String: Date] = [:]
    /// How long a printed link works.
    public static let lifetime: TimeInterval = 15 * 60

    public init() {}

    /// A new code valid for fifteen minutes.
    public func issue(now: Date) -> String {
        let code = String(DeviceTokens.generate().dropFirst(4).prefix(32))
        codes[code] = now.addingTimeInterval(Self.lifetime)
        return code
    }

    /// Uses a code up: true once, if it was issued and has not expired.
    func redeem(_ code: String, now: Date) -> Bool {
        guard let expiry = codes.removeValue(forKey: code) else { return false }
        return now <= expiry
    }
}
