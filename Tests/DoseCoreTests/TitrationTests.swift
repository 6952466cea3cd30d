import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// Titration plans (D19, issue 37): dated steps of amounts, each night taking the step of its date, the supply counting
/// them, a step faster than the label asking for confirmation, and the insights telling the steps apart.
@Suite("Titration: dated steps of amounts")
struct TitrationTests {
    static let plan = "2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g"

    static func settings(_ changes: [(String, String)]) throws(DoseError) -> DoseSettings {
        var settings = Fixture.settings()
        for (key, value) in changes { settings = try settings.setting(key, to: value) }
        return settings
    }

    static func key(_ text: String) -> SessionKey { SessionKey(parsing: text)! }

    // (typed, the plan as stored)
    static let accepted: [(String, String)] = [
        ("2026-12-01 3 g + 3 g", "2026-12-01 3 g + 3 g"),
        ("from 2026-12-01: 3g+3g", "2026-12-01 3 g + 3 g"),
        ("2026-12-08 3750 + 3000\n2026-12-01 3000mg + 3 g", "2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g"),
        ("2026-12-01 2.125 g + 2.25 g;", "2026-12-01 2.125 g + 2.25 g"),
        ("  none ", ""),
        ("", ""),
    ]

    @Test("a plan is read in grams or mg, in any order, and stored one way", arguments: accepted)
    func parses(typed: String, stored: String) throws {
        let settings = try Self.settings([("titration", typed)])
        #expect(try settings.value(of: "titration") == stored)
        #expect(try Self.settings([("titration", stored)]) == settings, "the stored form reads back the same")
    }

    // (typed, words the refusal must contain)
    static let refused: [(String, String)] = [
        ("2026-13-01 3 g + 3 g", "does not start with a date"),
        ("tomorrow 3 g", "does not start with a date"),
        ("2026-12-01", "has 0 amounts"),
        ("2026-12-01 3 g + 3 g + 1 g", "has 3 amounts"),
        ("2026-12-01 3 kg + 3 g", "is not an amount"),
        ("2026-12-01 3.0001 g + 3 g", "is not an amount"),
        ("2026-12-01 -3 g + 3 g", "is not an amount"),
        ("2026-12-01 0.249 g + 3 g", "0.249 g in the step of 2026-12-01 is outside"),
        ("2026-12-01 9.001 g", "9.001 g in the step of 2026-12-01 is outside"),
        ("2026-12-01 3 g + 3 g; 2026-12-01 4 g + 4 g", "two steps start on 2026-12-01"),
    ]

    @Test("a plan that is not one is refused, naming the step and the form, and nothing changes", arguments: refused)
    func refuses(typed: String, words: String) {
        #expect {
            _ = try Self.settings([("titration", Self.plan), ("titration", typed)])
        } throws: { error in
            guard case .invalidInput(let field, let problem, let allowed) = error as? DoseError else { return false }
            return field == "titration" && problem.contains(words) && allowed?.contains("YYYY-MM-DD") == true
        }
    }

    // (night, amounts, step)
    static let nights: [(String, [Int], String?)] = [
        ("2026-11-30", [2250, 2250], nil),
        ("2026-12-01", [3000, 3000], "2026-12-01"),
        ("2026-12-07", [3000, 3000], "2026-12-01"),
        ("2026-12-08", [3750, 3000], "2026-12-08"),
        ("2027-06-01", [3750, 3000], "2026-12-08"),
    ]

    @Test("each night takes the step of its date; before the first the profile's amounts, after the last the last's", arguments: nights)
    func regimenByNight(night: String, amounts: [Int], step: String?) throws {
        let regimen = try Self.settings([("titration", Self.plan)]).regimen(on: Self.key(night))
        #expect(regimen.dosesMilligrams == amounts)
        #expect(regimen.titrationStep?.description == step)
        #expect(regimen.kind == .twiceNightly && regimen.targetMinutes == 165)
    }

    // (Dose 1 local time on 1 December, its night, Dose 1's amount)
    static let rollover: [(Int, Int, String, Int)] = [
        (17, 59, "2026-11-30", 2250),
        (18, 0, "2026-12-01", 3000),
        (23, 30, "2026-12-01", 3000),
    ]

    @Test("Dose 1 records its night's step: the night, not the calendar day, decides (both sides of the 18:00 rollover)", arguments: rollover)
    func dose1RecordsTheStep(hour: Int, minute: Int, night: String, amount: Int) throws {
        let settings = try Self.settings([("titration", Self.plan)])
        let at = WallClock.date(2026, 12, 1, hour, minute)
        let session = try Fixture.afterDose1(at: at, settings: settings)
        #expect(session.date.description == night)
        let dose1 = try #require(NightFacts(session.events).dose1)
        #expect(dose1.metadata.amountMilligrams == amount)
        #expect(dose1.metadata.regimen?.titrationStep?.description == (amount == 3000 ? "2026-12-01" : nil))
        let withDose2 = try #require(try Fixture.night([(.dose1, at), (.dose2, at.addingTimeInterval(170 * 60))], settings: settings))
        #expect(NightFacts(withDose2.events).dose2?.metadata.amountMilligrams == amount, "Dose 2 is the night's step's")
        let status = NightStatus.derive(session: nil, at: at, settings: settings, timeZone: Fixture.newYork)
        #expect(status.regimen.milligrams(ofDose: 1) == amount, "Tonight before Dose 1 shows the step's amounts")
    }

    @Test("a later plan never changes a night already taken")
    func pastNightsKeepTheirAmounts() throws {
        let before = try Self.settings([("titration", Self.plan)])
        let session = try Fixture.afterDose1(at: WallClock.date(2026, 12, 2, 22, 0), settings: before)
        let after = try before.setting("titration", to: "2026-12-01 4 g + 4 g")
        let status = NightStatus.derive(session: session, at: WallClock.date(2026, 12, 2, 22, 5), settings: after, timeZone: Fixture.newYork)
        #expect(status.regimen.dosesMilligrams == [3000, 3000])
    }

    // (settings, words of the refusal)
    static let conflictCases: [([(String, String)], String)] = [
        ([("regimen", "once_nightly"), ("dose1_mg", "6000"), ("titration", "2026-12-01 3 g + 3 g")], "has two amounts, but once nightly"),
        ([("titration", "2026-12-01 6 g")], "has one amount, but twice nightly"),
        ([("titration", "2026-12-01 5 g + 4 g")], "5 g in the step of 2026-12-01 is more than one dose of XYWAV twice nightly"),
        ([("medication_product", "xyrem"), ("titration", "2026-12-01 4.75 g + 4 g")], "4.75 g in the step"),
    ]

    @Test("steps are held to the regimen: one amount a step once nightly, two twice nightly, within the label's dose", arguments: conflictCases)
    func conflicts(changes: [(String, String)], words: String) throws {
        let settings = try Self.settings(changes)
        guard case .invalidInput(let field, let problem, _) = settings.regimenConflict else {
            Issue.record("no conflict for \(changes)")
            return
        }
        #expect(field == "titration" && problem.contains(words), "\(problem)")
    }

    @Test("Lumryz steps in one amount up to 9 g are accepted")
    func lumryzSteps() throws {
        let settings = try Self.settings([
            ("medication_product", "lumryz"), ("dose1_mg", "4500"), ("titration", "2026-12-01 6 g; 2026-12-08 7.5 g; 2026-12-15 9 g"),
        ])
        #expect(settings.regimenConflict == nil)
        #expect(settings.fastTitrationSteps.isEmpty)
        #expect(settings.regimen(on: Self.key("2026-12-20")).dosesMilligrams == [9000])
    }

    // (plan from 2.25 g + 2.25 g, the steps the label finds too fast, words of the first reason)
    static let speeds: [(String, [String], String?)] = [
        ("2026-12-01 3 g + 3 g", [], nil),
        ("2026-12-01 3 g + 3.001 g", ["2026-12-01"], "by 1.501 g at once, from 4.5 g to 6.001 g"),
        ("2026-12-01 3.5 g + 3 g", ["2026-12-01"], "by 2 g at once"),
        ("2026-12-01 3 g + 3 g; 2026-12-07 3.75 g + 3 g", ["2026-12-07"], "6 days after the last rise"),
        ("2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g", [], nil),
        ("2026-12-01 3 g + 3 g; 2026-12-02 2.5 g + 2.5 g; 2026-12-08 3 g + 3 g", [], nil),
        ("2026-12-01 2 g + 2 g; 2026-12-02 2.5 g + 2.5 g", [], nil),
        ("2026-12-01 2.5 g + 2.5 g; 2026-12-02 3 g + 2.5 g", ["2026-12-02"], "1 day after the last rise"),
    ]

    @Test("a step rising more than 1.5 g at once, or less than a week after the last rise, is named with the label's reason", arguments: speeds)
    func fastSteps(plan: String, fast: [String], words: String?) throws {
        let steps = try Self.settings([("titration", plan)]).fastTitrationSteps
        #expect(steps.map(\.step.from.description) == fast)
        if let words {
            #expect(steps.first?.reason.contains(words) == true, "\(steps.first?.reason ?? "")")
            #expect(steps.first?.reason.contains("the XYWAV label raises the nightly amount by at most 1.5 g a week") == true)
            let refusal = DoseError.titrationTooFast(steps: steps)
            #expect(refusal.code == .titrationTooFast && refusal.confirm == .fastTitration)
            #expect(refusal.message.hasSuffix("a week. If your prescriber set these steps, confirm 'fast_titration'."))
        }
    }

    // (plan, nights 180 g covers from 2026-11-20, the nightly amount of the first night)
    static let supply: [(String, Int, Int)] = [
        ("", 40, 4500),
        ("2026-11-30 3 g + 3 g", 10 + 22, 4500),
        ("2026-11-20 3 g + 3 g", 30, 6000),
        ("2026-11-25 2 g + 2 g; 2026-12-05 3 g + 3 g", 5 + 10 + 19, 4500),
        ("2027-06-01 4.5 g + 4.5 g", 40, 4500),
    ]

    @Test("the supply counts each night at its step's amounts", arguments: supply)
    func supplyBySteps(plan: String, nights: Int, nightly: Int) throws {
        let settings = try Self.settings([("titration", plan)])
        let refill = InventoryEntry(
            id: "r1", kind: .refill, occurredAt: WallClock.date(2026, 11, 1, 9, 0), timeZoneID: "America/New_York", changeML: 360)
        let first = Self.key("2026-11-20")
        let status = Supply.status(entries: [refill], doses: [], settings: settings, firstNight: first)
        #expect(status.nightsLeft == nights)
        #expect(status.runsOutOn == first.adding(days: nights))
        #expect(status.nightlyMilligrams == nightly)
    }

    @Test("tonight's pending Dose 2 is the night's own amount, and nothing once nightly")
    func pendingTonight() throws {
        let settings = try Self.settings([("titration", "2026-12-01 3 g + 3.5 g")])
        let at = WallClock.date(2026, 12, 1, 22, 0)
        let session = try Fixture.afterDose1(at: at, settings: settings)
        let open = (date: session.date, facts: NightFacts(session.events))
        #expect(Supply.tonight(open: open, at: at, settings: settings, timeZone: Fixture.newYork).pendingMilligrams == 3500)
        let once = try Self.settings([("regimen", "once_nightly"), ("dose1_mg", "6000")])
        let onceNight = try Fixture.afterDose1(at: at, settings: once)
        let onceOpen = (date: onceNight.date, facts: NightFacts(onceNight.events))
        #expect(Supply.tonight(open: onceOpen, at: at, settings: once, timeZone: Fixture.newYork).pendingMilligrams == 0)
    }

    @Test("the insights show each regimen and step with the outcome of its nights")
    func regimenPeriods() throws {
        let twice = try Self.settings([("titration", "2026-12-03 3 g + 3 g")])
        var sessions: [NightSession] = []
        for day in 1...4 {
            let dose1 = WallClock.date(2026, 12, day, 22, 0)
            sessions.append(try #require(try Fixture.night([(.dose1, dose1), (.dose2, dose1.addingTimeInterval(165 * 60))], settings: twice)))
        }
        let once = try twice.setting("titration", to: "").setting("regimen", to: "once_nightly").setting("dose1_mg", to: "6000")
        for day in 5...6 { sessions.append(try Fixture.afterDose1(at: WallClock.date(2026, 12, day, 22, 0), settings: once)) }
        let period = try InsightsPeriod.custom(from: Self.key("2026-12-01"), to: Self.key("2026-12-06"))
        let insights = Insights(sessions.map { InsightNight(summary: NightSummary($0)) }, period: period, targetMinutes: 165)
        #expect(insights.regimenPeriods.map(\.span) == ["2026-12-01 to 2026-12-02", "2026-12-03 to 2026-12-04", "2026-12-05 to 2026-12-06"])
        #expect(insights.regimenPeriods.map(\.nights) == [2, 2, 2])
        #expect(insights.regimenPeriods.map { $0.timings[.onTarget] ?? 0 } == [2, 2, 0])
        #expect(
            insights.regimenPeriods.map(\.regimenWords) == [
                "XYWAV twice nightly 2.25 g + 2.25 g", "XYWAV twice nightly 3 g + 3 g (titration step of 2026-12-03)", "XYWAV once nightly 6 g",
            ])
        #expect(insights.regimenPeriods[2].outcome == "2 nights, one dose each")
        #expect(insights.regimenPeriods[1].outcome == "2 nights; Dose 2 on target 2")
    }
}
