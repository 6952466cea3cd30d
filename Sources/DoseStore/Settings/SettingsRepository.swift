public import Foundation

/// One transaction over the settings: the stored values that differ from the defaults, and their changes with the
/// audit entry each gets. It knows no rule; DoseApp validates every value through DoseCore before it is saved.
public protocol SettingsTransaction {
    /// The stored key/value pairs, in key order.
    func storedSettings() throws -> [(key: String, value: String)]
    /// Stores a setting's canonical value under its canonical key.
    func saveSetting(key: String, value: String, at instant: Date) throws
    /// Keeps a setting's change (`from`, `to` and any `reason`) in the audit log under `auditID`.
    func auditSettingChange(key: String, details: [String: String], auditID: String, at instant: Date) throws
}

/// The settings of one store: every read and write in one transaction.
public protocol SettingsRepository: Sendable {
    /// Runs `body` in one write transaction: all of it is kept, or none.
    func write<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T
    /// Runs `body` in one read transaction.
    func read<T>(_ body: (any SettingsTransaction) throws -> T) throws -> T
}
