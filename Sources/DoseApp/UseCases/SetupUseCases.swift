public import DoseCore
public import DoseStore
public import Foundation

/// First-run setup: each step's answers become settings (validated by the settings), and accepting the disclaimer
/// completes it. The night's safety rules never depend on it.
public struct SetupService: Sendable {
    let app: UseCases

    /// The notice a night command shows once on a database never set up.
    public static let hintNotice = "setup_hint"

    /// Whether setup has been completed.
    public func isComplete() throws -> Bool {
        try app.store.setupComplete()
    }

    /// Applies one step's answers; the privacy step, once its disclaimer is accepted, completes setup from `surface`.
    @discardableResult
    public func apply(_ step: SetupStep, answers: [String: String], surface: String) throws -> DoseSettings {
        try run([(step, answers)], surface: surface)
    }

    /// Applies several steps' answers in order, all of them or none; completes setup when the privacy step is among them.
    @discardableResult
    public func run(_ steps: [(step: SetupStep, answers: [String: String])], surface: String) throws -> DoseSettings {
        var settings = try app.settings.current()
        var changes: [(key: String, value: String)] = []
        var confirmations: Set<ConfirmKind> = []
        for (step, answers) in steps {
            let result = try SetupWizard.changes(for: step, answers: answers, applyingTo: settings)
            changes += result.changes
            settings = result.settings
            confirmations.formUnion(result.confirmations)
        }
        if !changes.isEmpty {
            settings = try app.store.settingsBook.update(changes, reason: "setup", confirmations: confirmations, clock: app.clock)
        }
        if steps.contains(where: { $0.step == .privacy }) { try complete(surface: surface) }
        return settings
    }

    /// Records that setup was completed from `surface` (`web`, `cli`, `api`), audited.
    public func complete(surface: String) throws {
        try app.store.ledger.repository.write { night in
            let id = app.clock.makeID()
            try night.insertSetupRun(id: id, surface: surface, at: app.clock.now)
            try night.audit(.setup, id: app.clock.makeID(), at: app.clock.now, night: nil, entity: id, details: ["surface": surface])
        }
    }

    /// Whether setup must come before the first Dose 1: never completed, no dose ever recorded, and no night open.
    public func isRequiredBeforeDose1() throws -> Bool {
        guard try !isComplete(), try !app.store.ledger.repository.read({ night in try night.hasAnyDose() }) else { return false }
        return try app.night.status().session == nil
    }

    /// True once per database while setup has never been completed: the moment to say how to run it.
    public func shouldShowHint() throws -> Bool {
        try !isComplete() && app.store.firstShowing(of: Self.hintNotice, at: app.clock.now)
    }
}

extension UseCases {
    /// First-run setup.
    public var setup: SetupService { SetupService(app: self) }
}
