import DoseCore
import DoseTestSupport
import Foundation
import PropertyBased
import Testing

/// A night keeps its facts and folds each new event into them (issue 55): for any events, in any order, what the folds
/// give must be what reading every event again gives, after every step.
@Suite("Facts folded event by event are the facts read off the whole night")
struct NightFactsFoldTests {
    /// The kinds a night's events take, the sleep-through expiry and a once-nightly Dose 1 among them.
    static let kinds = [
        "dose1", "dose1_once", "dose2", "extra_dose", "skip", "slept_through", "snooze", "wake_final", "checkin", "bathroom", "nap_start",
        "water",
    ]

    /// An event of kind `kinds[kind]`, `seconds` after 22:00, recorded `late` seconds after it; `n` makes its id.
    static func event(kind: Int, seconds: Int, late: Int, n: Int) -> NightEvent {
        let at = Fixture.dose1.addingTimeInterval(TimeInterval(seconds))
        var metadata = EventMetadata()
        var source = EventSource.user
        let eventKind: EventKind
        switch kinds[kind] {
        case "dose1", "dose1_once":
            eventKind = .dose1
            if kinds[kind] == "dose1_once" {
                metadata.regimen = DoseRegimen(kind: .onceNightly, product: "lumryz", dosesMilligrams: [6000], targetMinutes: nil)
            }
        case "dose2": eventKind = .dose2
        case "extra_dose": eventKind = .extraDose
        case "skip":
            eventKind = .dose2Skipped
            metadata.skipReason = "felt fine"
        case "slept_through":
            eventKind = .dose2Skipped
            metadata.skipReason = NightFacts.sleptThroughReason
            source = .system
        case "snooze": eventKind = .snooze
        case "wake_final": eventKind = .sleep(.wakeFinal)
        case "checkin": eventKind = .checkIn
        default: eventKind = .sleep(SleepEventType(rawValue: kinds[kind]))
        }
        return NightEvent(
            id: EventID(rawValue: String(format: "e-%03d", (n * 37) % 1000)), kind: eventKind, occurredAt: at,
            recordedAt: at.addingTimeInterval(TimeInterval(late)), timeZone: Fixture.newYork, source: source, metadata: metadata)
    }

    static let kindsOf = Gen.int(in: 0...(kinds.count - 1)).array(of: 0...40)
    /// Mostly forward in time, sometimes back (a forgotten log), sometimes at the same instant.
    static let steps = Gen.frequency((6, Gen.int(in: 0...900)), (2, Gen.int(in: -7200...0)), (1, Gen.always(0))).array(of: 40...40)
    static let lates = Gen.frequency((4, Gen.always(0)), (1, Gen.int(in: 0...30))).array(of: 40...40)

    @Test("adding events one by one, then removing some, keeps the facts equal to the facts of all the events; brief wakes counted alike")
    func foldEqualsDerivation() async {
        await propertyCheck(count: 500, input: Self.kindsOf, Self.steps, Self.lates) { kinds, steps, lates in
            var session = NightSession(id: SessionID(rawValue: "night"), date: SessionKey(year: 2026, month: 3, day: 10)!, startedAt: Fixture.dose1)
            var seconds = 0
            for (n, kind) in kinds.enumerated() {
                seconds += steps[n]
                session = session.adding(Self.event(kind: kind, seconds: seconds, late: lates[n], n: n))
                let read = NightFacts(session.events)
                #expect(session.facts == read, "after \(n + 1) events: \(kinds.prefix(n + 1).map { Self.kinds[$0] })")
                #expect(session.events == session.events.sorted(by: NightSession.chronological))
            }
            // The brief wakes between two instants, found by halving, are the ones a walk of the night counts.
            for event in session.events {
                for (start, end) in [
                    (event.occurredAt, Date.distantFuture), (Date.distantPast, event.occurredAt), (event.occurredAt, event.occurredAt),
                ] {
                    let walked = session.events.filter {
                        guard case .sleep(let type) = $0.kind, Adherence.awakeEvents.contains(type) else { return false }
                        return $0.occurredAt > start && $0.occurredAt < end
                    }
                    #expect(session.facts.awakenings(after: start, before: end) == walked.count)
                }
            }
            for (n, event) in session.events.enumerated() where n.isMultiple(of: 3) {
                session = session.removing(event.id)
                #expect(session.facts == NightFacts(session.events))
            }
        }
    }

    @Test("the fold is tried on the hard orders: a skip after Dose 2, Dose 2 after a skip, two Dose 1s, an event before all others")
    func hardOrders() {
        let cases: [[(String, Int)]] = [
            [("dose1", 0), ("skip", 9000), ("dose2", 9100)], [("dose1", 0), ("dose2", 9000), ("skip", 9100)],
            [("dose1", 0), ("dose1_once", 10)], [("dose1_once", 0), ("dose1", 10)], [("snooze", 100), ("dose1", 0)],
            [("dose1", 0), ("slept_through", 14400), ("wake_final", 15000), ("checkin", 15000), ("wake_final", 15100)],
            [("extra_dose", 0), ("extra_dose", 0), ("dose2", 0)],
        ]
        for steps in cases {
            var session = NightSession(id: SessionID(rawValue: "night"), date: SessionKey(year: 2026, month: 3, day: 10)!, startedAt: Fixture.dose1)
            for (n, (kind, seconds)) in steps.enumerated() {
                session = session.adding(Self.event(kind: Self.kinds.firstIndex(of: kind) ?? 0, seconds: seconds, late: 0, n: n))
            }
            #expect(session.facts == NightFacts(session.events), "\(steps)")
        }
    }
}
