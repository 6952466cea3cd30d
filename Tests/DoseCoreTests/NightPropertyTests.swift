import DoseCore
import DoseTestSupport
import Foundation
import PropertyBased
import Testing

/// Invariants that must hold for every sequence of actions and times, not just the ones we thought of.
@Suite("Night invariants for any sequence of actions")
struct NightPropertyTests {
    /// One generated step: which action, how many seconds after the previous step, and which confirmations.
    struct Step: Sendable, CustomStringConvertible {
        let action: Int
        let secondsLater: Int
        let confirm: Int
        var description: String { "\(Self.names[action])+\(secondsLater)s/\(confirm)" }
        static let names = ["dose1", "dose2", "skip", "snooze", "undo", "bathroom", "nap_start", "nap_end", "wake", "dose2", "snooze", "checkin"]

        var kind: NightAction.Kind {
            switch Self.names[action] {
            case "dose1": .dose1
            case "dose2": .dose2
            case "skip": .skip(reason: nil)
            case "snooze": .snooze
            case "undo": .undo
            case "wake": .wake
            case "checkin": .checkIn(MorningCheckIn())
            default: .log(event: Self.names[action])
            }
        }

        /// Each bit of `confirm` turns on one confirmation.
        var confirmations: Set<ConfirmKind> {
            Set(ConfirmKind.allCases.enumerated().compactMap { confirm & (1 << $0.offset) != 0 ? $0.element : nil })
        }
    }

    static let steps = Gen.int(in: 0...11).array(of: 1...30)
    // Mostly short gaps (undo, cooldowns), sometimes long ones (windows, expiry).
    static let gaps = Gen.frequency((3, Gen.int(in: 0...20)), (3, Gen.int(in: 0...1800)), (1, Gen.int(in: 0...14_400))).array(of: 30...30)
    static let confirms = Gen.int(in: 0...31).array(of: 30...30)
    static let maxSnoozes = Gen.int(in: 1...5)

    /// Runs a generated night; calls `inspect` with the session before and after each step and the step's result.
    static func run(
        _ actions: [Int], _ gaps: [Int], _ confirms: [Int], maxSnoozes: Int,
        inspect: (NightSession?, Result<Decision, DoseError>, Date, DoseSettings) -> Void
    ) throws -> NightSession? {
        let settings = try Fixture.settings().setting("max_snoozes", to: String(maxSnoozes))
        let ids = TestClock(Fixture.dose1)
        var now = Fixture.dose1
        var session: NightSession?
        for (index, action) in actions.enumerated() {
            now = now.addingTimeInterval(TimeInterval(gaps[index]))
            let step = Step(action: action, secondsLater: gaps[index], confirm: confirms[index])
            if let open = session {
                session = SessionLifecycle.apply(
                    SessionLifecycle.evaluate(open, now: now, settings: settings, timeZone: Fixture.newYork, makeID: { ids.nextID() }), to: open)
                if session?.isOpen == false { session = nil }
            }
            let context = Fixture.context(at: now, settings: settings, ids: ids)
            let result = Result { () throws(DoseError) in
                try NightRules.decide(NightAction(step.kind, confirmations: step.confirmations), session: session, context: context)
            }
            inspect(session, result, now, settings)
            if case .success(let decision) = result { session = decision.session.isOpen ? decision.session : nil }
        }
        return session
    }

    @Test("the phase never goes backwards as time passes")
    func phaseMonotone() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { _, result, now, _ in
                guard case .success(let decision) = result else { return }
                let facts = NightFacts(decision.session.events)
                var previous = NightPhase.noDose1
                for minute in stride(from: 0.0, through: 720, by: 7.5) {
                    let phase = facts.phase(at: now.addingTimeInterval(minute * 60 - 3600))
                    #expect(phase >= previous, "phase went from \(previous) to \(phase)")
                    previous = phase
                }
            }
        }
    }

    @Test("is_early and is_late always agree with the phase at the dose's time")
    func flagsAgreeWithPhase() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { before, result, _, _ in
                guard case .success(let decision) = result, let event = decision.event, event.kind == .dose2 else { return }
                let dose1 = NightFacts(decision.session.events).dose1!.occurredAt
                let phaseBefore = NightFacts((before?.events ?? []).filter { $0.kind == .dose1 }).phase(at: event.occurredAt)
                #expect(event.metadata.isEarly == (phaseBefore == .beforeWindow))
                #expect(event.metadata.isLate == (phaseBefore == .closed || phaseBefore == .completed))
                #expect(event.metadata.isEarly == (event.occurredAt.timeIntervalSince(dose1) < 150 * 60))
                #expect(event.metadata.isLate == (event.occurredAt.timeIntervalSince(dose1) >= 240 * 60))
            }
        }
    }

    /// What a decision did, without ids and recording times (which depend on how many ids were drawn).
    static func signature(_ decision: Decision) -> [String] {
        decision.recorded.map { "+\($0.kind.wireName)@\($0.occurredAt.timeIntervalSince1970)/\($0.metadata)" }
            + decision.removed.map { "-\($0.kind.wireName)@\($0.occurredAt.timeIntervalSince1970)" }
            + [decision.closure.map { "close \($0.reason) \($0.terminalState)" } ?? ""]
    }

    @Test("a refused action leaves no trace: the night replayed without it records exactly the same")
    func refusalChangesNothing() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            var refused: Set<Int> = []
            var withRefusals: [[String]] = []
            var index = 0
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { _, result, _, _ in
                switch result {
                case .success(let decision): withRefusals.append(Self.signature(decision))
                case .failure: refused.insert(index)
                }
                index += 1
            }
            // Same steps at the same instants, minus the refused ones: each removed step's gap moves to the next step.
            var keptActions: [Int] = []
            var keptGaps: [Int] = []
            var keptConfirms: [Int] = []
            var carried = 0
            for position in actions.indices {
                carried += gaps[position]
                if refused.contains(position) { continue }
                keptActions.append(actions[position])
                keptGaps.append(carried)
                keptConfirms.append(confirms[position])
                carried = 0
            }
            var withoutRefusals: [[String]] = []
            var refusedAgain = 0
            _ = try? Self.run(keptActions, keptGaps + Array(repeating: 0, count: 30), keptConfirms + Array(repeating: 0, count: 30), maxSnoozes: max)
            {
                _, result, _, _ in
                switch result {
                case .success(let decision): withoutRefusals.append(Self.signature(decision))
                case .failure: refusedAgain += 1
                }
            }
            #expect(refusedAgain == 0)
            #expect(withRefusals == withoutRefusals)
        }
    }

    @Test("reminders are sorted, unique and inside the window except the expiry notice")
    func remindersWellFormed() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { _, result, _, settings in
                guard case .success(let decision) = result else { return }
                let plan = ReminderPlan.plan(for: decision.session, settings: settings)
                #expect(plan.map(\.fireAt) == plan.map(\.fireAt).sorted())
                #expect(Set(plan.map(\.fireAt)).count == plan.count)
                if let dose1 = NightFacts(decision.session.events).dose1?.occurredAt {
                    let closes = DoseWindow.label.closes(after: dose1)
                    for reminder in plan where reminder.fireAt >= closes {
                        #expect(reminder.kind == .windowExpired && reminder.fireAt == closes)
                    }
                } else {
                    #expect(plan.isEmpty)
                }
            }
        }
    }

    @Test("the snooze count never exceeds the maximum")
    func snoozeCountBounded() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { _, result, now, settings in
                guard case .success(let decision) = result else { return }
                let status = NightStatus.derive(session: decision.session, at: now, settings: settings, timeZone: Fixture.newYork)
                #expect(status.snoozeCount <= max)
                #expect(status.snoozesRemaining == max - status.snoozeCount)
            }
        }
    }

    @Test("a session never holds two Dose 1s or two Dose 2s, and extra doses follow Dose 2")
    func doseUniqueness() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps, Self.confirms, Self.maxSnoozes) { actions, gaps, confirms, max in
            _ = try? Self.run(actions, gaps, confirms, maxSnoozes: max) { _, result, _, _ in
                guard case .success(let decision) = result else { return }
                let events = decision.session.events
                #expect(events.filter { $0.kind == .dose1 }.count <= 1)
                #expect(events.filter { $0.kind == .dose2 }.count <= 1)
                if events.contains(where: { $0.kind == .extraDose }) { #expect(events.contains { $0.kind == .dose2 }) }
            }
        }
    }
}
