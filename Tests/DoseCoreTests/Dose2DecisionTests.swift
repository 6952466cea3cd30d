import DoseCore
import Foundation
import Testing

@Suite("Dose 2 decisions (SPEC §3.3)")
struct Dose2DecisionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let minutes: Double
        let confirm: Set<ConfirmKind>
        let code: ErrorCode?
        let early: Bool
        let late: Bool
        var testDescription: String { "\(minutes) min \(confirm.map(\.rawValue).sorted()) → \(code.map { "\($0)" } ?? "recorded")" }
    }

    static let rows: [Row] = [
        Row(minutes: 0, confirm: [], code: .windowNotOpen, early: false, late: false),
        Row(minutes: 149, confirm: [], code: .windowNotOpen, early: false, late: false),
        Row(minutes: 149.99, confirm: [], code: .windowNotOpen, early: false, late: false),
        Row(minutes: 149, confirm: [.early], code: nil, early: true, late: false),
        Row(minutes: 149, confirm: [.late], code: .windowNotOpen, early: false, late: false),
        Row(minutes: 149, confirm: [.extra], code: .windowNotOpen, early: false, late: false),
        Row(minutes: 150, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 150, confirm: [.early], code: nil, early: false, late: false),
        Row(minutes: 165, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 224, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 225, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 239, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 239.99, confirm: [], code: nil, early: false, late: false),
        Row(minutes: 240, confirm: [], code: .windowExceeded, early: false, late: false),
        Row(minutes: 240, confirm: [.late], code: nil, early: false, late: true),
        Row(minutes: 240, confirm: [.early], code: .windowExceeded, early: false, late: false),
        Row(minutes: 269, confirm: [.late], code: nil, early: false, late: true),
        Row(minutes: 269.99, confirm: [], code: .windowExceeded, early: false, late: false),
    ]

    @Test("boundaries on both sides, and a confirmation for another situation does not pass", arguments: rows)
    func dose2(row: Row) throws {
        let session = try Fixture.afterDose1()
        let now = Fixture.minutes(row.minutes)
        let action = NightAction(.dose2, confirmations: row.confirm)
        if let code = row.code {
            #expect(Fixture.refusal(action, session: session, at: now)?.code == code)
        } else {
            let decision = try NightRules.decide(action, session: session, context: Fixture.context(at: now))
            let event = try #require(decision.event)
            #expect(event.kind == .dose2)
            #expect(event.metadata.isEarly == row.early)
            #expect(event.metadata.isLate == row.late)
            #expect(event.metadata.doseIndex == 2)
        }
    }

    @Test(
        "the early refusal says how long until the window opens and when",
        arguments: [(0.0, 150), (120, 30), (149, 1), (149.99, 1), (148.5, 2)] as [(Double, Int)])
    func earlyMessage(minutes: Double, until: Int) throws {
        let error = try #require(Fixture.refusal(NightAction(.dose2), session: try Fixture.afterDose1(), at: Fixture.minutes(minutes)))
        guard case .windowNotOpen(let minutesUntil, let opensAt, let local) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(minutesUntil == until)
        #expect(opensAt == Fixture.minutes(150))
        #expect(local == "01:00")
        #expect(error.confirm == .early)
        #expect(error.message.contains("01:00"))
        #expect(error.code == .windowNotOpen)
    }

    /// Tonight after Dose 1, with DoseTap's expiry recorded as it would be by `now`.
    static func expired(at now: Date) throws -> NightSession {
        let session = try Fixture.afterDose1()
        return SessionLifecycle.apply(
            SessionLifecycle.evaluate(session, now: now, settings: Fixture.settings(), timeZone: Fixture.newYork, makeID: { "expiry" }), to: session)
    }

    @Test("at 270 minutes the recorded expiry makes Dose 2 need after_skip, then late")
    func afterExpiry() throws {
        let now = Fixture.minutes(270)
        let session = try Self.expired(at: now)
        let skipped = Fixture.refusal(NightAction(.dose2), session: session, at: now)
        guard case .dose2Skipped(_, _, let sleptThrough) = skipped else {
            Issue.record("\(String(describing: skipped))")
            return
        }
        #expect(sleptThrough)
        #expect(Fixture.refusal(NightAction(.dose2, confirmations: [.afterSkip]), session: session, at: now)?.code == .windowExceeded)
        let decision = try NightRules.decide(
            NightAction(.dose2, confirmations: [.afterSkip, .late]), session: session, context: Fixture.context(at: now))
        #expect(decision.event?.metadata.isLate == true)
        #expect(
            NightStatus.derive(session: decision.session, at: now, settings: Fixture.settings(), timeZone: Fixture.newYork).outcome == .dose2Taken)
    }

    @Test("a forgotten Dose 2 logged after the expiry replaces the expiry instead of needing after_skip")
    func backdatedDose2SupersedesExpiry() throws {
        let now = Fixture.minutes(400)
        let session = try Self.expired(at: now)
        let decision = try NightRules.decide(NightAction(.dose2, at: Fixture.minutes(180)), session: session, context: Fixture.context(at: now))
        #expect(decision.removed.map(\.id) == [EventID(rawValue: "expiry")])
        #expect(decision.event?.occurredAt == Fixture.minutes(180))
        #expect(decision.event?.recordedAt == now)
        #expect(NightFacts(decision.session.events).outcome(at: now) == .dose2Taken)
    }

    @Test("guard order: no Dose 1, then finalizing, then already taken, then skipped, then window")
    func guardOrder() throws {
        #expect(Fixture.refusal(NightAction(.dose2, confirmations: [.early]), session: nil, at: Fixture.dose1)?.code == .dose1Required)

        let woke = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(100))], confirm: [.endNight]))
        #expect(Fixture.refusal(NightAction(.dose2), session: woke, at: Fixture.minutes(160))?.code == .sessionFinalizing)

        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))]))
        let again = Fixture.refusal(NightAction(.dose2), session: taken, at: Fixture.minutes(170))
        #expect(again?.code == .alreadyTaken)
        #expect(again?.confirm == .extra)

        let skipped = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.skip(reason: nil), Fixture.minutes(100))]))
        #expect(Fixture.refusal(NightAction(.dose2), session: skipped, at: Fixture.minutes(120))?.code == .dose2Skipped)
        // after_skip covers the skip only: before the window the dose is still early.
        #expect(Fixture.refusal(NightAction(.dose2, confirmations: [.afterSkip]), session: skipped, at: Fixture.minutes(120))?.code == .windowNotOpen)
        #expect(Fixture.refusal(NightAction(.dose2, confirmations: [.afterSkip]), session: skipped, at: Fixture.minutes(160)) == nil)
    }

    @Test("extra dose: index 3, never overwrites Dose 2, warns to stop; a second is refused whatever is confirmed (D20)")
    func extraDose() throws {
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))]))
        let third = try NightRules.decide(
            NightAction(.dose2, confirmations: [.extra]), session: taken, context: Fixture.context(at: Fixture.minutes(170)))
        #expect(third.event?.kind == .extraDose)
        #expect(third.event?.metadata.doseIndex == 3)
        #expect(third.event?.metadata.amountMilligrams == 2250)
        #expect(third.warnings.contains { $0.contains("Do not take any more") && $0.contains("6.75 g in all") })
        let facts = NightFacts(third.session.events)
        #expect(facts.dose2?.occurredAt == Fixture.minutes(160))
        // Once a night: the second is refused with every confirmation, and the plain refusal no longer offers one.
        for confirmations in [[], [ConfirmKind.extra], Set(ConfirmKind.nightKinds)] as [Set<ConfirmKind>] {
            let fourth = Fixture.refusal(NightAction(.dose2, confirmations: confirmations), session: third.session, at: Fixture.minutes(180))
            if confirmations.contains(.extra) {
                #expect(fourth?.code == .nightlyMaximum, "\(confirmations)")
                #expect(fourth?.details["reason"] == "second_extra")
                #expect(fourth?.message.contains("already recorded tonight (at 01:20)") == true, "\(fourth?.message ?? "")")
            } else {
                #expect(fourth?.code == .alreadyTaken && fourth?.confirm == nil, "\(String(describing: fourth))")
            }
        }
    }

    /// Settings with each dose's amount.
    static func amounts(_ dose1: Int, _ dose2: Int, product: String = "xywav") throws -> DoseSettings {
        try Fixture.settings().setting("medication_product", to: product).setting("dose1_mg", to: String(dose1)).setting(
            "dose2_mg", to: String(dose2))
    }

    struct MaximumRow: Sendable, CustomTestStringConvertible {
        let product: String
        let dose1: Int
        let dose2: Int
        /// nil: the extra is recorded; else the night's total the refusal names.
        let refusedTotal: Int?
        var testDescription: String { "\(product) \(dose1)+\(dose2) mg, extra \(dose2) mg" }
    }

    /// The nightly maximum on both sides: an extra that brings the night to exactly 9 g is recorded, 250 mg more is not.
    static let maximumRows: [MaximumRow] = [
        MaximumRow(product: "xywav", dose1: 3000, dose2: 3000, refusedTotal: nil),
        MaximumRow(product: "xywav", dose1: 2750, dose2: 3000, refusedTotal: nil),
        MaximumRow(product: "xywav", dose1: 3250, dose2: 3000, refusedTotal: 9250),
        MaximumRow(product: "xywav", dose1: 3000, dose2: 3250, refusedTotal: 9500),
        MaximumRow(product: "xyrem", dose1: 4500, dose2: 4500, refusedTotal: 13500),
        MaximumRow(product: "sodium_oxybate", dose1: 2250, dose2: 2250, refusedTotal: nil),
        MaximumRow(product: "sodium_oxybate", dose1: 4500, dose2: 250, refusedTotal: nil),
        MaximumRow(product: "sodium_oxybate", dose1: 4500, dose2: 4250, refusedTotal: 13000),
    ]

    @Test("D20: an extra past the nightly maximum is refused with 422_NIGHTLY_MAXIMUM and no confirmation", arguments: maximumRows)
    func nightlyMaximum(_ row: MaximumRow) throws {
        let settings = try Self.amounts(row.dose1, row.dose2, product: row.product)
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))], settings: settings))
        let result = Result {
            try NightRules.decide(
                NightAction(.dose2, confirmations: Set(ConfirmKind.nightKinds)), session: taken,
                context: Fixture.context(at: Fixture.minutes(170), settings: settings))
        }
        switch (result, row.refusedTotal) {
        case (.success(let decision), nil):
            #expect(decision.event?.kind == .extraDose)
            #expect(NightFacts(decision.session.events).takenMilligrams(regimen: try #require(NightFacts(taken.events).regimen)) <= 9000)
        case (.failure(let error as DoseError), let total?):
            #expect(error.code == .nightlyMaximum && error.confirm == nil)
            #expect(error.details["maximum_mg"] == "9000" && error.details["reason"] == "past_maximum")
            #expect(error.message.contains("would make \(RegimenWords.grams(total))"), "\(error.message)")
            // Each surface names its own way to record a dose already taken; the page, used half asleep, says to do it awake.
            #expect(error.message.contains("once you are awake") && !error.message.contains("dosetap"), "\(error.message)")
            let onTheCommandLine = error.message(confirmation: { _ in nil }, takenAnyway: "`dosetap event took-anyway`")
            #expect(onTheCommandLine.contains("(`dosetap event took-anyway`)") && onTheCommandLine.contains("emergency services"))
            // The plain second tap no longer offers an extra that would be refused.
            let plain = Fixture.refusal(NightAction(.dose2), session: taken, at: Fixture.minutes(170), settings: settings)
            #expect(plain?.code == .alreadyTaken && plain?.confirm == nil)
        default:
            Issue.record("\(row.testDescription): \(result)")
        }
    }

    @Test("D20: the maximum of each label: 9 g twice nightly and for Lumryz, 6 g for XYWAV once nightly")
    func labelMaximums() throws {
        let cases: [(String, DoseRegimen.Kind, Int)] = [
            ("xywav", .twiceNightly, 9000), ("xywav", .onceNightly, 6000), ("xyrem", .twiceNightly, 9000),
            ("sodium_oxybate", .twiceNightly, 9000), ("lumryz", .onceNightly, 9000), ("unknown", .twiceNightly, 9000),
        ]
        for (product, kind, maximum) in cases {
            let regimen = DoseRegimen(kind: kind, product: product, dosesMilligrams: [1000, 1000], targetMinutes: 165)
            #expect(regimen.nightlyMaximumMilligrams == maximum, "\(product) \(kind)")
        }
        #expect(RegimenCatalogue.nightlyMaximumMilligrams == 9000)
    }

    @Test("D20: a caregiver never confirms an extra; their plain second tap is not offered one; early and late stay theirs")
    func caregiverExtra() throws {
        let taken = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160))]))
        var extra = NightAction(.dose2, confirmations: [.extra])
        extra.actor = "bob@example.org"
        let refused = Fixture.refusal(extra, session: taken, at: Fixture.minutes(170))
        #expect(refused?.code == .forbidden && refused?.confirm == nil)
        #expect(refused?.message.contains("never a caregiver's") == true, "\(refused?.message ?? "")")
        var plain = NightAction(.dose2)
        plain.actor = "bob@example.org"
        #expect(Fixture.refusal(plain, session: taken, at: Fixture.minutes(170))?.confirm == nil)
        let night = try Fixture.afterDose1()
        for (minutes, confirm) in [(149.0, ConfirmKind.early), (240.0, .late)] {
            var action = NightAction(.dose2, confirmations: [confirm])
            action.actor = "bob@example.org"
            let decision = try NightRules.decide(action, session: night, context: Fixture.context(at: Fixture.minutes(minutes)))
            #expect(decision.event?.metadata.confirmations == [confirm])
        }
    }

    @Test("Dose 2 may not be dated before Dose 1")
    func dose2BeforeDose1() throws {
        let session = try Fixture.afterDose1()
        let error = Fixture.refusal(NightAction(.dose2, at: Fixture.minutes(-10), confirmations: [.early]), session: session, at: Fixture.minutes(5))
        #expect(error?.code == .invalidInput)
    }

    @Test("a wake-up logged after a forgotten Dose 2's time does not block recording it")
    func backdatedBeforeWake() throws {
        let woke = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.wake, Fixture.minutes(500))]))
        let decision = try NightRules.decide(
            NightAction(.dose2, at: Fixture.minutes(170)), session: woke, context: Fixture.context(at: Fixture.minutes(510)))
        #expect(decision.event?.kind == .dose2)
    }
}
