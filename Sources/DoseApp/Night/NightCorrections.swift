public import DoseCore
public import DoseStore
public import Foundation

extension NightLedger {
    /// Changes the time and/or note of any recorded event. DoseCore checks the night's rules again; the audit log
    /// keeps both versions, and the night's derived columns (and outcome, if closed) follow.
    public func editEvent(_ id: EventID, occurredAt: Date?, note: String??, clock: StoreClock) throws -> EventEdit {
        guard occurredAt != nil || note != nil else {
            throw DoseError.invalidInput(field: "edit", problem: "nothing to change", allowed: "--at TIME and/or --note TEXT")
        }
        return try repository.write { night in
            let (session, context) = try Self.night(holding: id, clock: clock, night)
            let edit = try NightEdits.edit(id, in: session, occurredAt: occurredAt, note: note, context: context)
            try Self.save(edit, clock: clock, night)
            return edit
        }
    }

    /// Deletes one recorded event, keeping it in the audit log.
    public func deleteEvent(_ id: EventID, clock: StoreClock) throws -> EventEdit {
        try repository.write { night in
            let (session, context) = try Self.night(holding: id, clock: clock, night)
            let edit = try NightEdits.delete(id, in: session, context: context)
            try Self.save(edit, clock: clock, night)
            return edit
        }
    }

    private static func night(holding id: EventID, clock: StoreClock, _ night: any NightTransaction) throws -> (NightSession, NightContext) {
        guard let session = try night.night(holding: id) else { throw DoseError.notFound(what: "An event with id \(id)") }
        let settings = try night.settings(machineTimeZoneID: clock.machineTimeZoneID)
        return (session, NightContext(now: clock.now, settings: settings, timeZone: clock.zone(settings), makeID: clock.makeID))
    }

    private static func save(_ edit: EventEdit, clock: StoreClock, _ night: any NightTransaction) throws {
        let change: EventChange
        if let after = edit.after {
            try night.update(after)
            change = .edited(occurredAt: after.occurredAt, note: after.note)
        } else {
            try night.delete(edit.before)
            change = .deleted
        }
        for event in edit.reflagged { try night.update(event) }
        try night.audit(change, of: edit.before, night: edit.session.id, auditID: clock.makeID(), at: clock.now)
        try night.saveNight(edit.session, closure: nil)
    }
}
