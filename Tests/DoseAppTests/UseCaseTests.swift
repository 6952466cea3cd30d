import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Testing

/// The use cases every surface calls, on an in-memory database with a clock moved by hand: what the CLI, the API and the
/// pages share is tested once here, below any edge.
struct AppFixture {
    let time: TestClock
    let environment: AppEnvironment

    init(at now: Date, allowLoopbackTargets: Bool = false) throws {
        let time = TestClock(now)
        var environment = AppEnvironment(
            database: try AppDatabase.inMemory(), now: { time.now }, machineTimeZoneID: time.zone, makeID: { time.nextID() }, random: .system)
        environment.outbound.allowLoopback = allowLoopbackTargets
        self.time = time
        self.environment = environment
    }

    /// The use cases at the clock's instant.
    var app: UseCases { environment.useCases() }

    /// Performs a night action at `date`, as the API does.
    @discardableResult
    func perform(_ kind: NightAction.Kind, at date: Date, confirming: Set<ConfirmKind> = []) throws -> ActionOutcome {
        time.set(date)
        return try app.night.perform(NightAction(kind, confirmations: confirming), from: .api)
    }

    /// The number of events of tonight's open night.
    func eventCount() throws -> Int { try app.night.status().session?.events.count ?? 0 }
}

@Suite("Use cases on an in-memory database")
struct UseCaseTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)

    /// SPEC §3.1: Dose 2 is taken from 150 minutes to 240 minutes after Dose 1; before, it needs `early`, after, `late`.
    static let dose2Boundaries: [(minutes: Double, refusal: ErrorCode?)] = [
        (149, .windowNotOpen), (149.99, .windowNotOpen), (150, nil), (224, nil), (225, nil), (239, nil), (239.99, nil), (240, .windowExceeded),
    ]

    @Test(
        "Dose 2 through the night service: taken inside 150–240 minutes, refused either side, and a refusal writes nothing",
        arguments: dose2Boundaries)
    func dose2Window(minutes: Double, refusal: ErrorCode?) throws {
        let fixture = try AppFixture(at: Self.dose1)
        try fixture.perform(.dose1, at: Self.dose1)
        let at = Self.dose1.addingTimeInterval(minutes * 60)
        if let refusal {
            #expect {
                try fixture.perform(.dose2, at: at)
            } throws: { ($0 as? DoseError)?.code == refusal }
            #expect(try fixture.eventCount() == 1, "the refusal wrote nothing")
        } else {
            let outcome = try fixture.perform(.dose2, at: at)
            #expect(outcome.decision.event?.kind == .dose2)
            // Instants are kept to the whole millisecond.
            let taken = try #require(try fixture.app.night.status().status.dose2At)
            #expect(abs(taken.timeIntervalSince(at)) < 0.001)
        }
    }

    @Test("a second Dose 1 is refused while the night is open, and within 8 hours of the first after it ended (D14)")
    func dose1Guard() throws {
        let fixture = try AppFixture(at: Self.dose1)
        try fixture.perform(.dose1, at: Self.dose1)
        #expect {
            try fixture.perform(.dose1, at: Self.dose1.addingTimeInterval(60 * 60))
        } throws: { ($0 as? DoseError)?.code == .alreadyTaken }
        try fixture.perform(.dose2, at: Self.dose1.addingTimeInterval(165 * 60))
        try fixture.perform(.checkIn(MorningCheckIn()), at: Self.dose1.addingTimeInterval(7 * 3600))
        #expect {
            try fixture.perform(.dose1, at: Self.dose1.addingTimeInterval(7.9 * 3600))
        } throws: { ($0 as? DoseError)?.code == .recentDose }
        #expect(try fixture.app.night.status().session == nil, "no night was opened by the refusal")
    }

    @Test("a settings change is validated before it is stored: an escalation contact on this machine is refused and nothing changes")
    func settingsRefusal() throws {
        let fixture = try AppFixture(at: Self.dose1)
        let before = try fixture.app.settings.current()
        #expect {
            try fixture.app.settings.update(SettingKey.escalationContact.rawValue, to: "http://127.0.0.1:9/hook")
        } throws: { error in
            guard let error = error as? DoseError, error.code == .invalidInput else { return false }
            return error.message.contains("escalation_contact")
        }
        #expect(try fixture.app.settings.current() == before)
        let changed = try fixture.app.settings.update(SettingKey.targetInterval.rawValue, to: "180")
        #expect(changed.targetIntervalMinutes == 180)
    }

    @Test("the same medication twice within the duplicate guard asks for `duplicate`, writes nothing until confirmed, then keeps both")
    func medicationDuplicate() throws {
        let fixture = try AppFixture(at: Self.dose1)
        let entry = MedicationInput(medicationID: "adderall_ir", amount: 10)
        _ = try fixture.app.medications.log([entry], confirmations: [])
        fixture.time.advance(seconds: 120)
        #expect {
            try fixture.app.medications.log([entry], confirmations: [])
        } throws: { ($0 as? DoseError)?.code == .duplicateMedication }
        #expect(try fixture.app.medications.list().count == 1)
        let second = try fixture.app.medications.log([entry], confirmations: [.duplicate])
        #expect(second.first?.confirmedDuplicate == true)
        #expect(try fixture.app.medications.list().count == 2)
    }

    @Test("tonight's open night cannot be deleted through the record service; nothing is deleted")
    func openNightIsKept() throws {
        let fixture = try AppFixture(at: Self.dose1)
        try fixture.perform(.dose1, at: Self.dose1)
        let tonight = try #require(try fixture.app.night.status().session?.date)
        #expect(throws: DoseError.self) { try fixture.app.records.deleteNights(.dates([tonight]), surface: "test") }
        #expect(try fixture.eventCount() == 1)
    }

    @Test("Clear All without the exact phrase is refused and keeps every night")
    func clearAllNeedsThePhrase() throws {
        let fixture = try AppFixture(at: Self.dose1)
        try fixture.perform(.dose1, at: Self.dose1)
        #expect {
            try fixture.app.transfer.clearAll(confirmation: "delete")
        } throws: { ($0 as? DoseError)?.code == .invalidInput }
        #expect(try fixture.eventCount() == 1)
        let report = try fixture.app.transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(report.deleted.values.reduce(0, +) > 0)
        #expect(try fixture.eventCount() == 0)
    }
}
