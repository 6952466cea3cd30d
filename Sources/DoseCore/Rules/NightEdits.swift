public import Foundation

/// A change to a recorded event: what it was and what it becomes (nil when deleted).
public struct EventEdit: Sendable {
    /// The night after the change.
    public var session: NightSession
    /// The event as it was.
    public var before: NightEvent
    /// The event as it is now; nil when deleted.
    public var after: NightEvent?
    /// Other events whose derived flags changed (Dose 2's early/late flags after a Dose 1 move).
    public var reflagged: [NightEvent]
}

/// Corrections to the past (issue 4 "Editing the past"). A correction may not make the record contradict
/// itself, and on tonight's open night it may not make an unsafe dose look allowed.
public enum NightEdits {
    /// Changes the time and/or note of an event.
    public static func edit(_ id: EventID, in session: NightSession, occurredAt: Date?, note: String??, context: NightContext) throws(DoseError)
        -> EventEdit
    {
        guard let before = session.events.first(where: { $0.id == id }) else { throw .notFound(what: "An event with id \(id)") }
        var after = before
        if let note { after.note = try TextLimits.validated(note, field: "note", limit: TextLimits.note) }
        if let occurredAt {
            try NightRules.refuseFuture(occurredAt, now: context.now)
            let zone = TimeZone(identifier: before.timeZoneID) ?? context.timeZone
            guard SessionKey(for: occurredAt, in: zone) == SessionKey(for: before.occurredAt, in: zone) else {
                throw .invalidInput(
                    field: "at", problem: "\(LocalClock.hourMinute(occurredAt, in: zone)) on that day belongs to another night",
                    allowed: "a time in the same night (after 18:00 and before 18:00 the next day); delete and log it again instead")
            }
            after.occurredAt = occurredAt
            after.utcOffsetMinutes = LocalClock.offsetMinutes(zone, at: occurredAt)
            let facts = session.facts
            if session.isOpen, before.kind == .dose1, occurredAt < before.occurredAt, facts.dose2Pending(at: context.now) {
                throw .invalidInput(
                    field: "at", problem: "moving tonight's Dose 1 earlier would open the Dose 2 window sooner",
                    allowed: "a later time, or the same; if Dose 1 was really earlier, wait for the window the later time gives")
            }
        }
        var updated = session.removing(id).adding(after)
        let reflagged = try checkConsistency(&updated, zone: context.timeZone)
        let final = updated.events.first { $0.id == id } ?? after
        return EventEdit(session: updated, before: before, after: final, reflagged: reflagged.filter { $0.id != id })
    }

    /// Deletes an event. Tonight's Dose 1 cannot be deleted (a second Dose 1 would then be allowed), nor a Dose 1
    /// that other doses count from.
    public static func delete(_ id: EventID, in session: NightSession, context: NightContext) throws(DoseError) -> EventEdit {
        guard let before = session.events.first(where: { $0.id == id }) else { throw .notFound(what: "An event with id \(id)") }
        if before.kind == .dose1 {
            if session.isOpen {
                throw .invalidInput(
                    field: "event", problem: "tonight's Dose 1 cannot be deleted while the night is open",
                    allowed: "undo within the undo window, or delete it after the night has ended")
            }
            if session.events.contains(where: { [.dose2, .extraDose, .snooze].contains($0.kind) }) {
                throw .invalidInput(
                    field: "event", problem: "Dose 2, extra doses and snoozes of that night count from this Dose 1",
                    allowed: "delete those first")
            }
        }
        var updated = session.removing(id)
        let reflagged = try checkConsistency(&updated, zone: context.timeZone)
        return EventEdit(session: updated, before: before, after: nil, reflagged: reflagged)
    }

    /// Refuses a record that contradicts itself and recomputes Dose 2's early/late flags from the times.
    private static func checkConsistency(_ session: inout NightSession, zone: TimeZone) throws(DoseError) -> [NightEvent] {
        let facts = session.facts
        if let dose1 = facts.dose1 {
            let dependants = session.events.filter { [.dose2, .extraDose, .snooze, .dose2Skipped].contains($0.kind) }
            if let early = dependants.first(where: { $0.occurredAt < dose1.occurredAt }) {
                throw .invalidInput(
                    field: "at", problem: "\(early.kind.label) at \(LocalClock.hourMinute(early.occurredAt, in: zone)) would come before Dose 1",
                    allowed: "times that keep Dose 1 first")
            }
        }
        let naps = session.events.filter { $0.kind == .sleep(.napStart) || $0.kind == .sleep(.napEnd) }
        for (index, nap) in naps.enumerated() where (nap.kind == .sleep(.napStart)) != index.isMultiple(of: 2) {
            throw .napState(
                problem: "That change would leave naps out of order (a nap end without a start, or two starts). Change the other nap event first.")
        }
        guard let dose1 = facts.dose1, var dose2 = facts.dose2 else { return [] }
        let before = dose2.metadata
        dose2.metadata.classifyDose2(at: dose2.occurredAt, dose1: dose1.occurredAt, window: facts.window ?? .label)
        guard dose2.metadata != before else { return [] }
        session = session.removing(dose2.id).adding(dose2)
        return [dose2]
    }
}
