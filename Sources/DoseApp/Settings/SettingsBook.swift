public import DoseCore
public import DoseStore
import Foundation

/// The settings over a repository: read (every stored value re-validated, so a hand-edited store cannot smuggle in an
/// unsafe one) and changed one or several at a time — each value checked by DoseCore, stored under its canonical key
/// and value, and audited with its reason — all of them, or none when any is refused (SPEC §3.1: never a silent reset).
public struct SettingsBook: Sendable {
    /// The settings of the store.
    public let repository: any SettingsRepository

    /// The settings book of a store's settings.
    public init(repository: any SettingsRepository) { self.repository = repository }

    /// The settings in force; the `time_zone` default is the machine's zone.
    public func current(machineTimeZoneID: String) throws -> DoseSettings {
        try repository.read { settings in try SettingsStore.settings(from: settings.storedSettings(), machineTimeZoneID: machineTimeZoneID) }
    }

    /// Changes several settings in one transaction. `reason`, when given, is kept in each audit entry (the weekly
    /// planner's suggestion, say).
    /// A titration step faster than the product's label is refused unless `confirmations` holds `fast_titration`; a
    /// step confirmed before is not asked about again.
    public func update(
        _ changes: [(key: String, value: String)], reason: String? = nil, confirmations: Set<ConfirmKind> = [], clock: StoreClock
    ) throws -> DoseSettings {
        try repository.write { settings in
            let before = try SettingsStore.settings(from: settings.storedSettings(), machineTimeZoneID: clock.machineTimeZoneID)
            var current = before
            for (key, value) in changes {
                let updated = try current.setting(key, to: value)
                let canonical = try DoseSettings.canonicalKey(key)
                // A change may bring another with it (Lumryz brings once nightly): each key whose value moved is kept.
                let brought = try SettingKey.allCases.map(\.rawValue).filter { try $0 != canonical && current.value(of: $0) != updated.value(of: $0) }
                for changed in [canonical] + brought {
                    let newValue = try updated.value(of: changed)
                    var details = ["from": try current.value(of: changed), "to": newValue]
                    details["reason"] = changed == canonical ? reason : "brought by \(canonical)"
                    try settings.saveSetting(key: changed, value: newValue, at: clock.now)
                    try settings.auditSettingChange(key: changed, details: details, auditID: clock.makeID(), at: clock.now)
                }
                current = updated
            }
            // Checked once all are applied, so a product and its amounts can change in one step.
            if let conflict = current.regimenConflict { throw conflict }
            let fastNow = current.fastTitrationSteps(newSince: before)
            if !fastNow.isEmpty {
                guard confirmations.contains(.fastTitration) else { throw DoseError.titrationTooFast(steps: fastNow) }
                let details = ["confirmed": ConfirmKind.fastTitration.rawValue, "reason": fastNow.map(\.reason).joined(separator: " ")]
                try settings.auditSettingChange(key: SettingKey.titration.rawValue, details: details, auditID: clock.makeID(), at: clock.now)
            }
            return current
        }
    }
}

extension AppDatabase {
    /// The settings of this database.
    public var settingsBook: SettingsBook { SettingsBook(repository: settingsRepository) }
}
