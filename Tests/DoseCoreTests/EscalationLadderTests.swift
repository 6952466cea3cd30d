import DoseCore
import Foundation
import Testing

@Suite("Escalation ladder (SPEC §5.6): rungs in order inside the window, stopped by an answer from anyone on it")
struct EscalationLadderTests {
    typealias Rung = EscalationLadder.Rung

    /// The refusal of a ladder, or nil when it is accepted.
    static func refusal(_ rungs: [Rung]) -> DoseError? {
        do {
            try EscalationLadder.check(rungs)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a rung's minute is inside the window, before its close",
        arguments: [(149, false), (150, true), (224, true), (225, true), (239, true), (240, false), (0, false), (-5, false)])
    func minuteBounds(minutes: Int, accepted: Bool) {
        let refusal = Self.refusal([Rung(person: "bob", minutesAfterDose1: minutes)])
        #expect((refusal == nil) == accepted, "\(minutes): \(refusal?.message ?? "accepted")")
        if let refusal { #expect(refusal.message.contains("150–239")) }
    }

    @Test("a ladder goes in order, names each person once, and has at most 5 rungs")
    func shape() {
        #expect(Self.refusal([Rung(person: "a", minutesAfterDose1: 225), Rung(person: "b", minutesAfterDose1: 225)]) == nil)
        let backwards = Self.refusal([Rung(person: "a", minutesAfterDose1: 230), Rung(person: "b", minutesAfterDose1: 225)])
        #expect(backwards?.message.contains("before the rung above it") == true)
        let twice = Self.refusal([Rung(person: "a", minutesAfterDose1: 200), Rung(person: "a", minutesAfterDose1: 230)])
        #expect(twice?.message.contains("the same person twice") == true)
        let six = (0..<6).map { Rung(person: "p\($0)", minutesAfterDose1: 200 + $0) }
        #expect(Self.refusal(six)?.message.contains("at most 5") == true)
        #expect(Self.refusal(Array(six.prefix(5))) == nil)
        #expect(Self.refusal([]) == nil, "an empty ladder is none")
    }

    @Test("steps: at the rung's minute, never before the sleeper's own wake alarm (a snooze moves it), dropped at the close")
    func steps() throws {
        let rungs = [
            Rung(person: "partner", minutesAfterDose1: 160), Rung(person: "parent", minutesAfterDose1: 225),
            Rung(person: "late", minutesAfterDose1: 239),
        ]
        let session = try Fixture.afterDose1()
        let offsets = EscalationLadder.steps(for: session, settings: Fixture.settings(), rungs: rungs).map {
            $0.fireAt.timeIntervalSince(Fixture.dose1) / 60
        }
        #expect(offsets == [165, 225, 239], "160 waits for the wake alarm at the target, 165")
        let snoozed = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.snooze, Fixture.minutes(166))]))
        let afterSnooze = EscalationLadder.steps(for: snoozed, settings: Fixture.settings(), rungs: rungs).map {
            $0.fireAt.timeIntervalSince(Fixture.dose1) / 60
        }
        #expect(afterSnooze == [176, 225, 239])
        #expect(
            EscalationLadder.steps(for: session, settings: Fixture.settings(), rungs: rungs).allSatisfy { $0.usefulUntil == Fixture.minutes(240) })
    }

    @Test("no steps once Dose 2 is taken or skipped, before Dose 1, or with reminders off")
    func noSteps() throws {
        let rungs = [Rung(person: "partner", minutesAfterDose1: 225)]
        let taken = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))])
        let skipped = try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(170))])
        let off = try Fixture.settings().setting("reminders_enabled", to: "false")
        #expect(EscalationLadder.steps(for: taken, settings: Fixture.settings(), rungs: rungs).isEmpty)
        #expect(EscalationLadder.steps(for: skipped, settings: Fixture.settings(), rungs: rungs).isEmpty)
        #expect(EscalationLadder.steps(for: nil, settings: Fixture.settings(), rungs: rungs).isEmpty)
        #expect(EscalationLadder.steps(for: try Fixture.afterDose1(settings: off), settings: off, rungs: rungs).isEmpty)
    }

    @Test(
        "due: each rung from its minute to the close; an answer on the ladder stops every later rung, one before it began does not",
        arguments: [(Double, [Double], [String])](
            arrayLiteral:  // (now, answers, people due)
            (224.0, [] as [Double], [] as [String]), (225, [], ["partner"]), (229.9, [], ["partner"]), (230, [], ["partner", "parent"]),
            (239.9, [], ["partner", "parent"]), (240, [], []), (230, [227], ["partner"]), (230, [230], ["partner", "parent"]),
            (230, [200], ["partner", "parent"]),
        ))
    func due(now: Double, answers: [Double], people: [String]) throws {
        let rungs = [Rung(person: "partner", minutesAfterDose1: 225), Rung(person: "parent", minutesAfterDose1: 230)]
        let steps = EscalationLadder.steps(for: try Fixture.afterDose1(), settings: Fixture.settings(), rungs: rungs)
        let due = EscalationLadder.due(steps, answeredAt: answers.map { Fixture.minutes($0) }, now: Fixture.minutes(now))
        #expect(due.map(\.rung.person) == people)
    }
}
