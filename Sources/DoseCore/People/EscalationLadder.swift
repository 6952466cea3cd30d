public import Foundation

/// The escalation ladder (SPEC §5.6, issue 35): the people a person shares `alarms` with, in their order, each told at
/// a minute of the Dose 2 window that Dose 2 is still pending ("partner at the 15-minute warning, parent 5 minutes
/// later"). A pure function of the night, the settings, the rungs and who answered.
public enum EscalationLadder {
    /// One rung: the person told, how they are named to the sleeper's audit, and when, in minutes after Dose 1.
    public struct Rung: Sendable, Hashable {
        public let person: String
        public let minutesAfterDose1: Int

        public init(person: String, minutesAfterDose1: Int) {
            self.person = person
            self.minutesAfterDose1 = minutesAfterDose1
        }
    }

    /// A rung's place in tonight's night: when it goes off.
    public struct Step: Sendable, Hashable {
        public let rung: Rung
        public let fireAt: Date
        /// The window's close: after it a rung is no use (a late Dose 2 is the person's own decision, with its question).
        public let usefulUntil: Date
    }

    /// Minutes after Dose 1 a rung may be set to: inside the label's window, before its close. Once nightly the ladder
    /// has nothing to tell: the plan it follows is empty.
    public static let minutes = DoseWindow.label.opensAfterMinutes..<DoseWindow.label.closesAfterMinutes
    /// The most rungs a ladder has.
    public static let maxRungs = 5

    /// Checks a ladder as the person orders it: at most `maxRungs`, each person once, each minute inside the window, and
    /// never earlier than the rung before (a later rung is someone told after, not before).
    public static func check(_ rungs: [Rung]) throws(DoseError) {
        guard rungs.count <= maxRungs else {
            throw DoseError.invalidInput(field: "rungs", problem: "\(rungs.count) rungs", allowed: "at most \(maxRungs)")
        }
        var seen = Set<String>()
        for (index, rung) in rungs.enumerated() {
            guard minutes.contains(rung.minutesAfterDose1) else {
                throw DoseError.invalidInput(
                    field: "rungs[\(index)].minutes_after_dose1", problem: "\(rung.minutesAfterDose1)",
                    allowed: "\(minutes.lowerBound)–\(minutes.upperBound - 1): inside the Dose 2 window, before it closes")
            }
            guard seen.insert(rung.person).inserted else {
                throw DoseError.invalidInput(field: "rungs[\(index)]", problem: "the same person twice", allowed: "each person once")
            }
            if index > 0, rung.minutesAfterDose1 < rungs[index - 1].minutesAfterDose1 {
                throw DoseError.invalidInput(
                    field: "rungs[\(index)].minutes_after_dose1", problem: "\(rung.minutesAfterDose1) is before the rung above it",
                    allowed: "\(rungs[index - 1].minutesAfterDose1) or later: the ladder goes in order")
            }
        }
    }

    /// Tonight's steps: empty once Dose 2 is settled, the night has ended, or reminders are off (the sleeper's own plan is
    /// empty then). Like the contact's escalation, a rung never goes off before the sleeper's own wake alarm (a snooze
    /// moves it), and one that would fall at or after the window's close is dropped.
    public static func steps(for session: NightSession?, settings: DoseSettings, rungs: [Rung]) -> [Step] {
        let plan = ReminderPlan.plan(for: session, settings: settings)
        guard let wake = plan.first(where: { $0.kind == .wakeAlarm })?.fireAt,
            let facts = session.map({ $0.facts }), let dose1 = facts.dose1?.occurredAt, let window = facts.window
        else { return [] }
        let closes = window.closes(after: dose1)
        return rungs.compactMap { rung in
            let fireAt = max(dose1.addingTimeInterval(Double(rung.minutesAfterDose1) * 60), wake)
            return fireAt < closes ? Step(rung: rung, fireAt: fireAt, usefulUntil: closes) : nil
        }
    }

    /// The steps due at `now`: gone off, still useful, and not stopped. An answer by anyone on the ladder once it has
    /// begun (at or after the first step) stops every step after it: someone is dealing with it.
    public static func due(_ steps: [Step], answeredAt answers: [Date], now: Date) -> [Step] {
        guard let first = steps.map(\.fireAt).min() else { return [] }
        let stop = answers.filter { $0 >= first }.min()
        return steps.filter { step in step.fireAt <= now && now < step.usefulUntil && (stop.map { step.fireAt <= $0 } ?? true) }
    }
}
