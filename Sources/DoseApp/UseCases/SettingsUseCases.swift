public import DoseCore
public import DoseStore
public import Foundation

/// The settings: read them, the zone this call shows times in, and validated, audited changes.
public struct SettingsService: Sendable {
    let app: UseCases

    /// The settings in force.
    public func current() throws -> DoseSettings {
        try app.store.settingsBook.current(machineTimeZoneID: app.clock.machineTimeZoneID)
    }

    /// The zone this call works in: `--tz` when given, else the `time_zone` setting.
    public func zone() throws -> TimeZone {
        app.clock.zone(try current())
    }

    /// Changes one setting; a refused value changes nothing.
    public func update(_ key: String, to value: String, confirmations: Set<ConfirmKind> = []) throws -> DoseSettings {
        try update([(key, value)], confirmations: confirmations)
    }

    /// Changes several settings at once: all of them, or none.
    public func update(_ changes: [(key: String, value: String)], confirmations: Set<ConfirmKind> = []) throws -> DoseSettings {
        try checkTargets(changes)
        return try app.store.settingsBook.update(changes, confirmations: confirmations, clock: app.clock)
    }

    /// The escalation contact is a URL the server will call: it must be a public https target (`OutboundTargets`).
    private func checkTargets(_ changes: [(key: String, value: String)]) throws {
        for change in changes where change.key == SettingKey.escalationContact.rawValue {
            let url = change.value.trimmingCharacters(in: .whitespaces)
            guard !url.isEmpty, let problem = app.outbound.refusal(of: url) else { continue }
            throw DoseError.invalidInput(
                field: change.key, problem: "'\(url.prefix(80))': \(problem)", allowed: app.outbound.allowed + ", or empty for none")
        }
    }
}
