public import DoseCore
public import DoseStore
public import Foundation

/// The supply now with what it was worked out from, as every surface shows it.
public struct SupplyReport: Sendable {
    public let status: SupplyStatus
    public let entries: [InventoryEntry]
    public let settings: DoseSettings
    public let timeZone: TimeZone

    /// The product's name for people.
    public var productName: String { (try? MedicationCatalogue.medication(id: settings.medicationProduct))?.name ?? settings.medicationProduct }
}

/// The medication supply: its figures, refills, adjustments, and deleting an entry logged by mistake.
public struct SupplyService: Sendable {
    let app: UseCases

    /// An entry may be dated this far ahead of now at most (clocks disagree a little; the future does not happen).
    static let futureSlack: TimeInterval = 300

    /// The supply now.
    public func report() throws -> SupplyReport {
        let facts = try app.store.ledger.repository.read { night in try SupplyFacts(night, machineTimeZoneID: app.clock.machineTimeZoneID) }
        let zone = app.clock.zone(facts.settings)
        return SupplyReport(status: status(facts, timeZone: zone), entries: facts.entries, settings: facts.settings, timeZone: zone)
    }

    /// The supply's figures now, by DoseCore's rule.
    private func status(_ facts: SupplyFacts, timeZone: TimeZone) -> SupplyStatus {
        Supply.status(
            entries: facts.entries, taken: facts.taken, openNight: facts.openNight.map { ($0.date, $0.facts) }, at: app.clock.now,
            settings: facts.settings, timeZone: timeZone)
    }

    /// Logs a refill of `bottles` bottles (of the `bottle_ml` setting) or of `ml` mL: exactly one of them.
    public func logRefill(bottles: Int?, ml: Double?, at: Date?, reason: String?) throws -> InventoryEntry {
        let settings = try app.settings.current()
        let amount: Double
        switch (bottles, ml) {
        case (let bottles?, nil):
            guard InventoryEntry.bottlesRange.contains(bottles) else {
                throw DoseError.invalidInput(field: "bottles", problem: "\(bottles) bottles", allowed: "1–12")
            }
            amount = Double(bottles * settings.bottleML)
        case (nil, let ml?): amount = ml
        default:
            throw DoseError.invalidInput(
                field: "bottles", problem: bottles == nil ? "neither bottles nor mL was given" : "both bottles and mL were given",
                allowed: "bottles (of \(settings.bottleML) mL each) or ml, one of them")
        }
        return try log(
            InventoryEntry(
                id: app.clock.makeID(), kind: .refill, occurredAt: try instant(at), timeZoneID: "", changeML: amount, bottles: bottles, reason: reason
            ))
    }

    /// Logs an adjustment: a change of `changeML` (a spill is negative) or what a count found, with its reason.
    public func adjust(changeML: Double?, countedML: Double?, at: Date?, reason: String?) throws -> InventoryEntry {
        guard let reason = try TextLimits.validated(reason, field: "reason", limit: TextLimits.otherText) else {
            throw DoseError.invalidInput(
                field: "reason", problem: "an adjustment needs its reason", allowed: "a few words, e.g. \"spilled\" or \"counted the bottles\"")
        }
        return try log(
            InventoryEntry(
                id: app.clock.makeID(), kind: .adjustment, occurredAt: try instant(at), timeZoneID: "", changeML: changeML, countedML: countedML,
                reason: reason
            ))
    }

    /// Deletes an entry logged by mistake (the audit log keeps it).
    public func delete(_ id: String) throws -> InventoryEntry {
        try app.store.ledger.repository.write { night in
            guard let entry = try night.inventoryEntry(id: id) else { throw DoseError.notFound(what: "A supply entry with id \(id)") }
            try night.deleteInventory(id: id)
            try night.audit(
                .deleteInventory, id: app.clock.makeID(), at: app.clock.now, night: nil, entity: id, details: SupplyFacts.auditDetails(entry))
            return entry
        }
    }

    private func log(_ entry: InventoryEntry) throws -> InventoryEntry {
        var entry = entry
        entry.timeZoneID = try app.settings.zone().identifier
        return try record(entry)
    }

    /// Keeps a ledger entry as given once it is valid, audited with its reason (imports and tests give their own zone).
    public func record(_ entry: InventoryEntry) throws -> InventoryEntry {
        let valid = try entry.validated()
        return try app.store.ledger.repository.write { night in
            try night.insertInventory(valid, recordedAt: app.clock.now)
            try night.audit(
                valid.kind == .refill ? .refillLogged : .inventoryAdjustment, id: app.clock.makeID(), at: app.clock.now, night: nil, entity: valid.id,
                details: SupplyFacts.auditDetails(valid))
            return valid
        }
    }

    private func instant(_ at: Date?) throws -> Date {
        let now = app.clock.now
        guard let at else { return now }
        guard at <= now.addingTimeInterval(Self.futureSlack) else {
            throw DoseError.invalidInput(field: "at", problem: "\(ISO8601.string(at)) is in the future", allowed: "now or a time before it")
        }
        return ISO8601.wholeMilliseconds(at)
    }

    /// Claims today's refill reminder when it is due (at most one a day); the reminder engine sends it.
    public func claimRefillReminder() throws -> (status: SupplyStatus, settings: DoseSettings)? {
        // Asked every minute by the reminder engine, and nearly always nothing is due: decided on a read first, so the
        // check never writes; then again in the write that records it, so two servers never send a day's reminder twice.
        let due = { (facts: SupplyFacts) -> (day: SessionKey, nightsLeft: Int, status: SupplyStatus)? in
            guard facts.settings.remindersEnabled else { return nil }
            let zone = app.clock.zone(facts.settings)
            let status = status(facts, timeZone: zone)
            guard
                let day = Supply.refillReminderDue(
                    status, at: app.clock.now, settings: facts.settings, timeZone: zone, lastSentOn: facts.lastReminderDay)
            else { return nil }
            return (day, status.nightsLeft, status)
        }
        let machineZone = app.clock.machineTimeZoneID
        guard try app.store.ledger.repository.read({ night in try due(SupplyFacts(night, machineTimeZoneID: machineZone)) }) != nil else {
            return nil
        }
        return try app.store.ledger.repository.write { night in
            let facts = try SupplyFacts(night, machineTimeZoneID: machineZone)
            guard let found = due(facts) else { return nil }
            try night.recordRefillReminder(day: found.day, sentAt: app.clock.now, nightsLeft: found.nightsLeft)
            return (found.status, facts.settings)
        }
    }
}

extension UseCases {
    /// The medication supply and refills.
    public var supply: SupplyService { SupplyService(app: self) }
}

/// What the supply's figures are worked out from: the ledger, the doses taken since it began, the open night, the
/// settings, and the last day a refill reminder went out.
struct SupplyFacts {
    var entries: [InventoryEntry]
    var taken: [TakenDose]
    var openNight: NightSession?
    var settings: DoseSettings
    var lastReminderDay: SessionKey?

    /// The facts as `night`'s transaction reads them.
    init(_ night: any NightTransaction, machineTimeZoneID: String) throws {
        entries = try night.inventoryEntries()
        taken = try entries.first.map { try night.dosesTaken(since: $0.occurredAt) } ?? []
        openNight = try night.openNight()
        settings = try night.settings(machineTimeZoneID: machineTimeZoneID)
        lastReminderDay = try night.lastRefillReminderDay()
    }

    /// What the audit log keeps of a ledger entry logged or deleted.
    static func auditDetails(_ entry: InventoryEntry) -> [String: String] {
        var details = ["kind": entry.kind.rawValue, "occurred_at": ISO8601.string(entry.occurredAt), "time_zone": entry.timeZoneID]
        details["change_ml"] = entry.changeML.map(NumberText.plain)
        details["counted_ml"] = entry.countedML.map(NumberText.plain)
        details["bottles"] = entry.bottles.map(String.init)
        details["reason"] = entry.reason
        return details
    }
}
