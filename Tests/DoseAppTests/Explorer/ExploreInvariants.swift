import DoseApp
import DoseCore
import Foundation
import GRDB

@testable import DoseStore

extension NightExplorer {
    /// Every invariant a step that was let through must keep, in words for each one it broke.
    fileprivate static func recordedViolations(
        _ step: ExploreStep, _ event: NightEvent, night: String, facts: NightFacts, doses: [StoredDose]
    ) -> [String] {
        var problems: [String] = []
        let confirmed = Set(event.metadata.confirmations)
        let canConfirm = !(step.surface == .push || step.surface == .link)
        if !canConfirm, !confirmed.isEmpty {
            problems.append("a \(step.surface.rawValue) recorded \(event.kind.wireName) with a confirmation (\(confirmed.map(\.rawValue).sorted()))")
        }
        switch event.kind {
        case .dose1:
            // D14, D17: no Dose 1 within 8 h of another night's dose but by the person's new_night, awake.
            let near = doses.filter { $0.night != night && abs($0.at.timeIntervalSince(event.occurredAt)) < 8 * 3600 }
            // The API may confirm a new night (D17), a caregiver's included: the surfaces that correct records.
            if !near.isEmpty, !(step.confirmations.contains(.newNight) && [.cli, .api, .caregiver].contains(step.surface)) {
                problems.append(
                    "a Dose 1 \(minutes(near[0].at, event.occurredAt)) min from another night's dose, without new_night from the CLI or API")
            }
        case .dose2:
            guard let dose1 = facts.dose1 else { return problems + ["a Dose 2 without Dose 1"] }
            if facts.window == nil { problems.append("a Dose 2 on a once-nightly night") }
            let elapsed = event.occurredAt.timeIntervalSince(dose1.occurredAt) / 60
            if (elapsed < 150) != event.metadata.isEarly || (elapsed >= 240) != event.metadata.isLate {
                problems.append(
                    "Dose 2 at \(NumberText.plain(elapsed)) min is flagged early \(event.metadata.isEarly), late \(event.metadata.isLate) (D2)")
            }
            if elapsed < 150, !step.confirmations.contains(.early) { problems.append("Dose 2 before the window without early") }
            if elapsed >= 240, !step.confirmations.contains(.late) { problems.append("Dose 2 after the window without late") }
        case .snooze:
            // A snooze only while the window is open with more than 15 min left, and never past the limit (§3.3).
            guard let dose1 = facts.dose1 else { return problems + ["a snooze without Dose 1"] }
            let elapsed = event.occurredAt.timeIntervalSince(dose1.occurredAt) / 60
            if elapsed < 150 || elapsed >= 225 { problems.append("a snooze at \(NumberText.plain(elapsed)) min, outside 150–225") }
            // §3.1's default limit, written here rather than read from the settings under test.
            if facts.snoozes.count > 3 {
                problems.append("\(facts.snoozes.count) snoozes in one night, past the limit")
            }
        case .extraDose:
            if event.metadata.takenAnyway {
                if ![.cli, .api].contains(step.surface) { problems.append("a dose taken anyway recorded from \(step.surface.rawValue)") }
            } else if !step.confirmations.contains(.extra) {
                problems.append("a third dose without extra")
            }
            if event.metadata.actedBy != nil { problems.append("an extra dose recorded by a caregiver (D20)") }
        default:
            break
        }
        return problems
    }

    /// The invariants after an accepted step: what it recorded, the night it leaves, and what the status offers next.
    static func violations(
        of step: ExploreStep, at instant: Date, outcome: ActionOutcome, world: ExploreWorld, node: Node, checkOffer: Bool
    ) throws -> [String] {
        var problems: [String] = []
        let doses = try StoredDose.all(world)
        let session = outcome.decision.session
        let facts = NightFacts(session.events)
        for event in outcome.decision.recorded {
            problems += recordedViolations(step, event, night: session.id.rawValue, facts: facts, doses: doses)
        }
        // D20: within every night's maximum and one extra, unless a dose was recorded as taken anyway.
        for night in Set(doses.map(\.night)) {
            let theirs = doses.filter { $0.night == night }
            guard !theirs.contains(where: \.takenAnyway) else { continue }
            let total = theirs.reduce(0) { $0 + $1.milligrams }
            let maximum = theirs.compactMap(\.maximum).first ?? 9000
            if total > maximum { problems.append("a night holds \(total) mg, past its \(maximum) mg maximum (D20)") }
            if theirs.filter(\.isExtra).count > 1 { problems.append("a night holds \(theirs.filter(\.isExtra).count) extra doses (D20)") }
        }
        // D16: a night ends with Dose 2 undecided only by end_night.
        if let end = facts.wake ?? facts.checkIn, outcome.decision.recorded.contains(where: { $0.id == end.id }),
            let dose1 = facts.dose1, facts.window != nil, facts.dose2 == nil, facts.skip.map({ $0.occurredAt > end.occurredAt }) ?? true,
            end.occurredAt < dose1.occurredAt.addingTimeInterval(270 * 60), !step.confirmations.contains(.endNight)
        {
            problems.append("the night ended with Dose 2 undecided without end_night (D16)")
        }
        // Undo restores the record as it was before the action it undid.
        if step.action == .undo, let before = node.rowsBeforeLast, node.path.last?.step.action != .undo {
            let after = try world.canonicalRows(userEventsOnly: true)
            if after != before { problems.append("undo left \(after) instead of \(before)") }
        }
        // What the status offers depends on the state alone: checked once for each state.
        if checkOffer { problems += try offeredViolations(outcome.status, at: instant, world: world) }
        // D18: the words of a decided night agree with its interval.
        if let dose1 = facts.dose1, let dose2 = facts.dose2, let timing = outcome.status.dose2Timing {
            let elapsed = dose2.occurredAt.timeIntervalSince(dose1.occurredAt) / 60
            let expected: DoseTiming? = elapsed < 150 ? .early : elapsed >= 240 ? .late : nil
            if let expected, timing != expected { problems.append("Dose 2 at \(NumberText.plain(elapsed)) min is worded \(timing) (D18)") }
            if expected == nil, timing == .early || timing == .late { problems.append("Dose 2 in the window is worded \(timing) (D18)") }
        }
        // The reminder plan follows the night: nothing for a decided Dose 2, something while it is pending.
        let settings = outcome.settings
        let plan = ReminderPlan.plan(for: session.isOpen ? session : nil, settings: settings).filter { $0.fireAt > instant }
        let decided = facts.dose2 != nil || facts.skip != nil || facts.wake != nil || facts.checkIn != nil || !session.isOpen
        if decided, !plan.isEmpty { problems.append("\(plan.count) reminders planned for a night whose Dose 2 is decided: \(plan.map(\.kind))") }
        if let dose1 = facts.dose1, let window = facts.window, !decided, instant < window.closes(after: dose1.occurredAt), plan.isEmpty {
            problems.append("Dose 2 is pending and no reminder is planned")
        }
        return problems
    }

    /// The status never offers, as the one next step, what the rules would refuse at that instant.
    private static func offeredViolations(_ status: NightStatus, at instant: Date, world: ExploreWorld) throws -> [String] {
        let offered: (ExploreStep.Action, Set<ConfirmKind>)? =
            switch status.primaryAction {
            case .takeDose1: (.dose1, [])
            case .takeDose2: (.dose2, [])
            case .takeDose2Late: (.dose2, [.late])
            case .checkIn: (.checkIn, [])
            default: nil
            }
        guard let (action, confirmations) = offered else { return [] }
        let trial = try world.copy()
        if case .refused(let error) = try trial.perform(
            ExploreStep(action: action, confirmations: confirmations, instant: 0, surface: .page), at: instant)
        {
            return ["the status offers \(status.primaryAction.rawValue), and the page's tap on it is refused: \(error.code)"]
        }
        return []
    }
}

/// One oxybate dose as stored, with what D14 and D20 ask of it.
struct StoredDose {
    let night: String
    let at: Date
    let milligrams: Int
    let isExtra: Bool
    let takenAnyway: Bool
    /// From a Dose 1: its regimen's nightly maximum, from the labels as D20 states them, not from the code under test
    /// (a mutated maximum must not move the invariant with it).
    let maximum: Int?

    /// D20's maximum for a regimen: 9 g twice nightly (XYWAV, Xyrem, the generic); once nightly the label's one dose,
    /// 6 g for XYWAV and 9 g for Lumryz; 9 g for anything else.
    static func labelMaximum(_ regimen: DoseRegimen?) -> Int? {
        guard let regimen else { return nil }
        switch (regimen.kind, regimen.product) {
        case (.onceNightly, "xywav"): return 6000
        default: return 9000
        }
    }

    static func all(_ world: ExploreWorld) throws -> [StoredDose] {
        try world.database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT session_id, occurred_at, event_type, metadata FROM dose_events WHERE event_type IN ('dose1', 'dose2', 'extra_dose')"
            ).map { row in
                let metadata = try JSONDecoder().decode(EventMetadata.self, from: Data((row["metadata"] as String? ?? "{}").utf8))
                return StoredDose(
                    night: row["session_id"], at: ISO8601.parse(row["occurred_at"]) ?? .distantPast, milligrams: metadata.amountMilligrams ?? 0,
                    isExtra: row["event_type"] == "extra_dose", takenAnyway: metadata.takenAnyway, maximum: labelMaximum(metadata.regimen)
                )
            }
        }
    }
}

private func minutes(_ a: Date, _ b: Date) -> String { NumberText.plain((abs(b.timeIntervalSince(a)) / 60 * 100).rounded() / 100) }
