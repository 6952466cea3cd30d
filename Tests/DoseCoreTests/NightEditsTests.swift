import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("Corrections to the past (NightEdits)")
struct NightEditsTests {
    /// A closed night: Dose 1 at 22:30, Dose 2 at +165, a bathroom trip at +60, check-in at +540.
    static func closedNight() throws -> NightSession {
        var session = try #require(
            try Fixture.night([
                (.dose1, Fixture.dose1), (.log(event: "bathroom"), Fixture.minutes(60)), (.dose2, Fixture.minutes(165)),
                (.checkIn(MorningCheckIn()), Fixture.minutes(540)),
            ]))
        session.endedAt = Fixture.minutes(540)
        return session
    }

    static func context() -> NightContext { Fixture.context(at: Fixture.minutes(600)) }

    static func event(_ kind: EventKind, in session: NightSession) throws -> NightEvent {
        try #require(session.events.first { $0.kind == kind })
    }

    @Test(
        "moving Dose 2 re-flags it: 149.99 min early, 150 inside, 240 late",
        arguments: [(149.99, true, false), (150, false, false), (239.99, false, false), (240, false, true)])
    func reflagDose2(minutes: Double, early: Bool, late: Bool) throws {
        let session = try Self.closedNight()
        let dose2 = try Self.event(.dose2, in: session)
        let edit = try NightEdits.edit(dose2.id, in: session, occurredAt: Fixture.minutes(minutes), note: nil, context: Self.context())
        #expect(edit.after?.metadata.isEarly == early)
        #expect(edit.after?.metadata.isLate == late)
        #expect(edit.before.occurredAt == Fixture.minutes(165))
    }

    @Test("moving Dose 1 re-flags Dose 2")
    func moveDose1() throws {
        let session = try Self.closedNight()
        let dose1 = try Self.event(.dose1, in: session)
        let edit = try NightEdits.edit(dose1.id, in: session, occurredAt: Fixture.minutes(20), note: nil, context: Self.context())
        #expect(edit.reflagged.count == 1)
        #expect(edit.reflagged.first?.metadata.isEarly == true)
        #expect(NightFacts(edit.session.events).dose2?.metadata.isEarly == true)
    }

    @Test("a correction that would put Dose 2 before Dose 1 is refused")
    func orderKept() throws {
        let session = try Self.closedNight()
        let dose2 = try Self.event(.dose2, in: session)
        #expect(throws: DoseError.self) {
            try NightEdits.edit(dose2.id, in: session, occurredAt: Fixture.minutes(-10), note: nil, context: Self.context())
        }
    }

    @Test("a time in another night, or in the future, is refused")
    func boundaries() throws {
        let session = try Self.closedNight()
        let bathroom = try Self.event(.sleep(.bathroom), in: session)
        #expect(throws: DoseError.self) {
            try NightEdits.edit(bathroom.id, in: session, occurredAt: WallClock.date(2026, 3, 10, 17, 59), note: nil, context: Self.context())
        }
        #expect(throws: DoseError.self) {
            try NightEdits.edit(bathroom.id, in: session, occurredAt: Fixture.minutes(601.01), note: nil, context: Self.context())
        }
        let ok = try NightEdits.edit(bathroom.id, in: session, occurredAt: WallClock.date(2026, 3, 10, 18, 0), note: "moved", context: Self.context())
        #expect(ok.after?.note == "moved")
    }

    @Test("tonight's Dose 1 cannot move earlier while Dose 2 is pending; later is fine")
    func openNightDose1() throws {
        let session = try Fixture.afterDose1()
        let dose1 = try Self.event(.dose1, in: session)
        let context = Fixture.context(at: Fixture.minutes(30))
        #expect(throws: DoseError.self) { try NightEdits.edit(dose1.id, in: session, occurredAt: Fixture.minutes(-1), note: nil, context: context) }
        let later = try NightEdits.edit(dose1.id, in: session, occurredAt: Fixture.minutes(10), note: nil, context: context)
        #expect(later.after?.occurredAt == Fixture.minutes(10))
    }

    @Test("deleting: tonight's Dose 1 never; a past Dose 1 only after the doses counted from it")
    func deleting() throws {
        let open = try Fixture.afterDose1()
        #expect(throws: DoseError.self) {
            try NightEdits.delete(try Self.event(.dose1, in: open).id, in: open, context: Fixture.context(at: Fixture.minutes(5)))
        }
        var session = try Self.closedNight()
        #expect(throws: DoseError.self) { try NightEdits.delete(try Self.event(.dose1, in: session).id, in: session, context: Self.context()) }
        session = try NightEdits.delete(try Self.event(.dose2, in: session).id, in: session, context: Self.context()).session
        let removed = try NightEdits.delete(try Self.event(.dose1, in: session).id, in: session, context: Self.context())
        #expect(NightFacts(removed.session.events).dose1 == nil)
    }

    @Test("naps stay paired after a correction")
    func naps() throws {
        let session = try #require(
            try Fixture.night([
                (.log(event: "nap_start"), WallClock.date(2026, 3, 11, 13, 0)), (.log(event: "nap_end"), WallClock.date(2026, 3, 11, 14, 0)),
            ]))
        let end = try Self.event(.sleep(.napEnd), in: session)
        let context = Fixture.context(at: WallClock.date(2026, 3, 11, 15, 0))
        #expect(throws: DoseError.self) {
            try NightEdits.edit(end.id, in: session, occurredAt: WallClock.date(2026, 3, 11, 12, 0), note: nil, context: context)
        }
        #expect(throws: DoseError.self) { try NightEdits.delete(try Self.event(.sleep(.napStart), in: session).id, in: session, context: context) }
        #expect(try NightEdits.delete(end.id, in: session, context: context).after == nil)
    }

    @Test("an unknown id is 404")
    func unknown() throws {
        let session = try Self.closedNight()
        do {
            _ = try NightEdits.delete(EventID(rawValue: "nope"), in: session, context: Self.context())
            Issue.record("deleted an unknown event")
        } catch {
            #expect(error.code == .notFound)
        }
    }
}
