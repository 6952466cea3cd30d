import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// The regimen as data (D19, issue 37): once nightly has one dose and no window; each night keeps the regimen of its
/// Dose 1; the product, the regimen and the amounts are checked together.
@Suite("Regimens: once and twice nightly, each night under its own")
struct RegimenTests {
    static func settings(_ changes: [(String, String)]) throws(DoseError) -> DoseSettings {
        var settings = Fixture.settings()
        for (key, value) in changes { settings = try settings.setting(key, to: value) }
        return settings
    }

    static var onceNightly: DoseSettings { get throws { try settings([("regimen", "once_nightly"), ("dose1_mg", "6000")]) } }
    static var lumryz: DoseSettings { get throws { try settings([("medication_product", "lumryz"), ("dose1_mg", "7500")]) } }

    /// Both sides of every edge the twice-nightly window has, and well past the expiry.
    static let minutes: [Double] = [0, 149, 150, 224, 225, 239, 240, 269, 270, 600]

    @Test(
        "once nightly: at every minute, Dose 2, its skip and its snooze are refused by the regimen's words, and nothing is recorded",
        arguments: minutes)
    func onceNightlyRefusesDose2(minutes: Double) throws {
        let settings = try Self.onceNightly
        let night = try Fixture.afterDose1(settings: settings)
        let at = Fixture.minutes(minutes)
        for action in [NightAction(.dose2), NightAction(.skip(reason: nil)), NightAction(.snooze)] {
            for confirmations in [Set<ConfirmKind>(), Set(ConfirmKind.allCases)] {
                let refusal = Fixture.refusal(
                    NightAction(action.kind, confirmations: confirmations), session: night, at: at, settings: settings)
                #expect(refusal?.code == .notInRegimen, "\(action.kind) at \(minutes) min")
                #expect(refusal?.confirm == nil, "no confirmation lets a Dose 2 through once nightly")
                #expect(refusal?.message.contains("XYWAV once nightly: there is no Dose 2") == true, "\(refusal?.message ?? "")")
            }
        }
        let status = NightStatus.derive(session: night, at: at, settings: settings, timeZone: Fixture.newYork)
        #expect(status.phase == .completed && status.outcome == .doseTaken && status.dose2Timing == .oneDose)
        #expect(status.windowOpensAt == nil && status.windowClosesAt == nil && status.targetAt == nil && status.expiresAt == nil)
        #expect(status.dose2Periods.isEmpty && status.nextReminder == nil && !status.dose2Undecided && !status.canSkip && !status.canSnooze)
        #expect(status.regimen.kind == .onceNightly && status.regimen.dosesMilligrams == [6000])
        #expect(ReminderPlan.plan(for: night, settings: settings).isEmpty, "no Dose 2 reminder once nightly")
        let lifecycle = SessionLifecycle.evaluate(night, now: at, settings: settings, timeZone: Fixture.newYork, makeID: { "expiry" })
        #expect(lifecycle.expiry == nil, "a once-nightly night never sleeps through a Dose 2")
    }

    @Test("once nightly without Dose 1: Dose 2 is refused by the regimen, not with 'take Dose 1 first'")
    func onceNightlyBeforeDose1() throws {
        let refusal = Fixture.refusal(NightAction(.dose2), session: nil, at: Fixture.dose1, settings: try Self.lumryz)
        #expect(refusal?.code == .notInRegimen)
        #expect(
            refusal?.message == "Dose 2 is not part of tonight. Tonight's regimen is Lumryz once nightly: there is no Dose 2 to take, skip or snooze."
        )
        #expect(Fixture.refusal(NightAction(.dose2), session: nil, at: Fixture.dose1)?.code == .dose1Required, "twice nightly as before")
    }

    @Test("once nightly: a check-in or wake-up needs no end_night (nothing is pending), wake-up within 2 h of the dose asks (D15)")
    func onceNightlyEndsWithoutConfirmation() throws {
        let settings = try Self.onceNightly
        let night = try Fixture.afterDose1(settings: settings)
        #expect(Fixture.refusal(NightAction(.wake), session: night, at: Fixture.minutes(30), settings: settings) == nil)
        let status = NightStatus.derive(session: night, at: Fixture.minutes(30), settings: settings, timeZone: Fixture.newYork)
        #expect(status.wakeAsksUntil == Fixture.minutes(120))
        #expect(status.earlyWakeQuestion(in: Fixture.newYork)?.hasPrefix("Tonight's dose was taken at 22:30, 30 min ago.") == true)
        #expect(status.outcomeSentence(in: Fixture.newYork) == "Tonight's dose taken at 22:30 — once nightly, no Dose 2")
    }

    @Test("D14 holds once nightly: a new Dose 1 under 8 hours after the last one is refused, at 8 hours it is not", arguments: [479.0, 480])
    func onceNightlyRedoseSpacing(minutes: Double) throws {
        let settings = try Self.onceNightly
        let previous = RecordedDose(kind: .dose1, at: Fixture.dose1)
        let context = NightContext(
            now: Fixture.minutes(minutes), settings: settings, timeZone: Fixture.newYork, nearbyDoses: [previous], makeID: { UUID().uuidString })
        let refusal: DoseError?
        do {
            _ = try NightRules.decide(NightAction(.dose1), session: nil, context: context)
            refusal = nil
        } catch { refusal = error }
        #expect((refusal?.code == .recentDose) == (minutes < 480))
    }

    @Test("a night keeps the regimen of its Dose 1: a change of settings afterwards is for later nights")
    func nightKeepsItsRegimen() throws {
        // Twice nightly at Dose 1, once nightly chosen afterwards: tonight keeps its window, and Dose 2 its amount.
        let twice = try Self.settings([("dose1_mg", "3000"), ("dose2_mg", "2500")])
        let night = try Fixture.afterDose1(settings: twice)
        let once = try Self.settings([("regimen", "once_nightly"), ("dose1_mg", "6000"), ("dose2_mg", "4000")])
        let dose2 = try NightRules.decide(NightAction(.dose2), session: night, context: Fixture.context(at: Fixture.minutes(170), settings: once))
        #expect(dose2.recorded.first?.kind == .dose2 && dose2.recorded.first?.metadata.amountMilligrams == 2500)
        #expect(night.events.first?.metadata.regimen == twice.regimen && night.events.first?.metadata.amountMilligrams == 3000)
        // Once nightly at Dose 1, twice nightly chosen afterwards: no window opens tonight.
        let onceNight = try Fixture.afterDose1(settings: once)
        #expect(Fixture.refusal(NightAction(.dose2), session: onceNight, at: Fixture.minutes(170), settings: twice)?.code == .notInRegimen)
        #expect(ReminderPlan.plan(for: onceNight, settings: twice).isEmpty)
        #expect(onceNight.events.first?.metadata.amountMilligrams == 6000)
    }

    @Test("past nights keep their judgement: timing and adherence read the night's own regimen and target")
    func pastNightsKeepTheirJudgement() throws {
        let then = try Self.settings([("target_interval", "165")])
        let twiceNight = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))], settings: then)!
        let onceNight = try Fixture.night([(.dose1, Fixture.minutes(24 * 60))], settings: try Self.onceNightly)!
        let now = try Self.settings([("target_interval", "225"), ("regimen", "once_nightly"), ("dose1_mg", "6000")])
        #expect(DoseTiming.of(NightFacts(twiceNight.events), targetMinutes: now.targetIntervalMinutes) == .onTarget, "judged by its own 165")
        #expect(DoseTiming.of(NightFacts(onceNight.events), targetMinutes: now.targetIntervalMinutes) == .oneDose)
        let adherence = Adherence([twiceNight, onceNight], targetMinutes: now.targetIntervalMinutes)
        #expect(adherence.nights.count == 1 && adherence.nights[0].timing == .onTarget && adherence.nights[0].targetMinutes == 165)
        #expect(adherence.insideWindowPercent == 100)
        #expect(NightSummary(onceNight).window == nil && NightSummary(twiceNight).window == .label)
        // A night recorded before nights kept their regimen was twice nightly, in the label's window.
        var legacy = twiceNight
        for event in legacy.events where event.kind == .dose1 {
            var bare = event
            bare.metadata.regimen = nil
            legacy = legacy.removing(event.id).adding(bare)
        }
        #expect(NightFacts(legacy.events).window == .label && NightFacts(legacy.events).regimenKind == .twiceNightly)
    }

    static let combinations: [([(String, String)], String?)] = [
        ([("medication_product", "lumryz")], nil),
        ([("medication_product", "lumryz"), ("regimen", "twice_nightly")], "regimen"),
        ([("medication_product", "xyrem"), ("regimen", "once_nightly")], "regimen"),
        ([("medication_product", "sodium_oxybate"), ("regimen", "once_nightly")], "regimen"),
        ([("regimen", "once_nightly"), ("dose1_mg", "6000")], nil),
        ([("regimen", "once_nightly"), ("dose1_mg", "6001")], "dose1_mg"),
        ([("dose1_mg", "4500"), ("dose2_mg", "4500")], nil),
        ([("dose1_mg", "4501")], "dose1_mg"),
        ([("dose2_mg", "4501")], "dose2_mg"),
        // Once nightly, Dose 2's amount waits unused for a twice-nightly regimen; it is checked when that comes back.
        ([("regimen", "once_nightly"), ("dose1_mg", "3000"), ("dose2_mg", "9000")], nil),
        ([("medication_product", "lumryz"), ("dose1_mg", "9000")], nil),
        ([("medication_product", "lumryz"), ("dose1_mg", "9001")], nil),
    ]

    @Test("the product, its regimen and the amounts are checked together; a refusal names the setting and what is allowed", arguments: combinations)
    func combinationsAreChecked(changes: [(String, String)], refused field: String?) {
        do {
            let settings = try Self.settings(changes)
            let conflict = settings.regimenConflict
            #expect(conflict.flatMap { if case .invalidInput(let name, _, _) = $0 { name } else { nil } } == field, "\(changes)")
            if let conflict { #expect(conflict.message.contains("Allowed:")) }
        } catch {
            // 9001 mg is more than any single dose of any regimen: refused by the setting itself.
            #expect(changes.last?.1 == "9001" && error.message.contains("250–9000"), "\(error.message)")
        }
    }

    @Test("Lumryz brings once nightly; XYWAV keeps the regimen chosen; dose 2 is ignored once nightly")
    func productsBringTheirRegimen() throws {
        let lumryz = try Self.lumryz
        #expect(lumryz.regimenKind == .onceNightly && lumryz.regimen.dosesMilligrams == [7500] && lumryz.regimen.targetMinutes == nil)
        #expect(lumryz.nightlyMilligrams == 7500)
        let xywav = try lumryz.setting("medication_product", to: "xywav")
        #expect(xywav.regimenKind == .onceNightly, "XYWAV allows once nightly: the person's choice stays")
        let xyrem = try lumryz.setting("medication_product", to: "xyrem")
        #expect(xyrem.regimenKind == .twiceNightly, "Xyrem is twice nightly only")
        #expect(throws: DoseError.self) { try Fixture.settings().setting("regimen", to: "thrice_nightly") }
    }

    @Test("the window and the regimen in words: one formatter, from the regimen's own numbers")
    func words() throws {
        #expect(RegimenWords.minutes(.label) == "150–240" && RegimenWords.hours(.label) == "2½–4 hours")
        #expect(RegimenWords.summary(Fixture.settings().regimen) == "XYWAV, twice nightly: 2.25 g at bedtime, 2.25 g 150–240 minutes later")
        #expect(RegimenWords.summary(try Self.lumryz.regimen) == "Lumryz, once nightly: 7.5 g at bedtime, one dose a night")
        #expect(RegimenWords.amounts(try Self.lumryz.regimen) == "7.5 g once")
    }

    @Test("insights once nightly: the nights count toward the figures, the bedtime dose is read, the Dose 2 figures leave them out")
    func insightsOnceNightly() throws {
        let settings = try Self.onceNightly
        // Bedtime doses at 22:30, 22:40, 22:50 and 23:00 on four nights.
        let nights = try (0..<4).map { day in
            try Fixture.night([(.dose1, Fixture.minutes(Double(day) * 24 * 60 + Double(day) * 10))], settings: settings)!
        }
        let period = try InsightsPeriod.custom(from: SessionKey(year: 2026, month: 3, day: 10)!, to: SessionKey(year: 2026, month: 3, day: 13)!)
        let insights = Insights(nights.map { InsightNight(summary: NightSummary($0)) }, period: period, targetMinutes: 165)
        #expect(insights.state == .ready && insights.nightsWithDose1 == 4 && insights.onceNightlyNights == 4)
        #expect(insights.adherence.nights.isEmpty && insights.adherence.decided == 0, "no Dose 2 to judge once nightly")
        #expect(insights.bedtime?.clock == "22:45" && insights.bedtime?.spreadMinutes == 10 && insights.bedtime?.nights == 4)
        #expect(insights.notable.isEmpty)
    }
}
