import DoseCore
import DoseTestSupport
import Foundation
import Testing

@Suite("First-run setup: each step's answers, checked as settings")
struct SetupWizardTests {
    static let accepted: [(SetupStep, [String: String], String, String)] = [
        (.sleepSchedule, ["sleep_start": "22:30", "wake_time": "6:45", "prep_time": "18:00", "time_zone": "Europe/Paris"], "wake_time", "06:45"),
        (.sleepSchedule, ["time_zone": "UTC"], "time_zone", "UTC"),
        (.medication, ["medication_product": "XYREM", "dose1_g": "2.25", "dose2_g": "2.25"], "medication_product", "xyrem"),
        (.medication, ["dose1_g": "0.25"], "dose1_mg", "250"),
        (.medication, ["dose1_g": "4.5"], "dose1_mg", "4500"),
        (.medication, ["dose2_g": "3.125"], "dose2_mg", "3125"),
        (.medication, ["medication_product": "sodium_oxybate", "concentration_mg_per_ml": "500", "bottle_ml": "180"], "bottle_ml", "180"),
        (
            .doseWindow, ["target_interval": "165", "allow_snoozing": "false", "max_snoozes": "1", "undo_window_seconds": "10"], "allow_snoozing",
            "false"
        ),
        (.doseWindow, ["target_interval": "225"], "target_interval", "225"),
        (.notifications, ["reminders_enabled": "true", "wake_alarm_refire_minutes": "10"], "wake_alarm_refire_minutes", "10"),
        (.notifications, ["wake_alarm_refire_minutes": "0"], "wake_alarm_refire_minutes", "0"),
    ]

    @Test("valid answers become the settings they name", arguments: accepted)
    func valid(step: SetupStep, answers: [String: String], key: String, stored: String) throws {
        let result = try SetupWizard.changes(for: step, answers: answers, applyingTo: Fixture.settings())
        #expect(try result.settings.value(of: key) == stored)
        #expect(result.changes.contains { $0.key == key && $0.value == stored })
    }

    static let refused: [(SetupStep, [String: String], String)] = [
        (.sleepSchedule, ["sleep_start": "24:00"], "sleep_start"), (.sleepSchedule, ["wake_time": "7"], "wake_time"),
        (.sleepSchedule, ["time_zone": "Mars/Olympus"], "time_zone"), (.sleepSchedule, ["dose1_g": "2.25"], "dose1_g"),
        (.medication, ["medication_product": "lumryz", "regimen": "twice_nightly"], "regimen"),
        (.medication, ["medication_product": "xyrem", "regimen": "once_nightly"], "regimen"),
        (.medication, ["regimen": "thrice_nightly"], "regimen"),
        (.medication, ["medication_product": "lumryz", "dose1_g": "9.001"], "dose1_g"),
        (.medication, ["regimen": "once_nightly", "dose1_g": "6.5"], "dose1_g"),
        (.medication, ["medication_product": "adderall_ir"], "medication_product"),
        (.medication, ["dose1_g": "0.24"], "dose1_g"), (.medication, ["dose1_g": "4.501"], "dose1_g"), (.medication, ["dose1_g": "4,5"], "dose1_g"),
        (.medication, ["dose2_g": "2.2501"], "dose2_g"), (.medication, ["dose2_g": "-2"], "dose2_g"), (.medication, ["dose2_g": "NaN"], "dose2_g"),
        (.medication, ["dose2_g": ""], "dose2_g"), (.medication, ["dose2_g": "1e3"], "dose2_g"),
        (.medication, ["concentration_mg_per_ml": "99"], "concentration_mg_per_ml"),
        (.medication, ["concentration_mg_per_ml": "1001"], "concentration_mg_per_ml"),
        (.medication, ["bottle_ml": "9"], "bottle_ml"), (.doseWindow, ["target_interval": "150"], "target_interval"),
        (.doseWindow, ["target_interval": "240"], "target_interval"), (.doseWindow, ["max_snoozes": "6"], "max_snoozes"),
        (.doseWindow, ["undo_window_seconds": "4"], "undo_window_seconds"),
        (.notifications, ["wake_alarm_refire_minutes": "11"], "wake_alarm_refire_minutes"),
        (.notifications, ["reminders_enabled": "sometimes"], "reminders_enabled"), (.privacy, [:], "accept_disclaimer"),
        (.privacy, ["accept_disclaimer": "no"], "accept_disclaimer"),
        (.privacy, ["accept_disclaimer": "yes", "target_interval": "180"], "target_interval"),
    ]

    @Test("a refused answer names itself and what is allowed, and changes nothing", arguments: refused)
    func invalid(step: SetupStep, answers: [String: String], field: String) {
        do {
            _ = try SetupWizard.changes(for: step, answers: answers, applyingTo: Fixture.settings())
            Issue.record("accepted \(answers)")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(field))
            #expect(error.message.contains("Allowed"))
        }
    }

    @Test("the disclaimer is accepted only in words that mean yes")
    func disclaimer() throws {
        for word in ["yes", "YES", "true", "on", "1"] {
            #expect(throws: Never.self) {
                try SetupWizard.changes(for: .privacy, answers: ["accept_disclaimer": word], applyingTo: Fixture.settings())
            }
        }
    }

    @Test("the catalogue says which oxybates are split-night")
    func splitNight() throws {
        #expect(MedicationCatalogue.splitNight.map(\.id) == ["xywav", "xyrem", "sodium_oxybate"])
        #expect(try !MedicationCatalogue.medication(id: "lumryz").isSplitNight)
    }

    @Test("steps come in the seed's order and each asks its own answers")
    func steps() {
        #expect(
            SetupStep.allCases.map(\.title) == [
                "Sleep schedule", "Medication profile", "Dose window rules", "Notifications", "Privacy and disclaimer",
            ])
        #expect(Set(SetupStep.allCases.flatMap(\.answers)).count == SetupStep.allCases.flatMap(\.answers).count)
    }
}

@Suite("Supply ledger: refills, adjustments and doses (seed 003 Inventory)")
struct SupplyTests {
    static let zone = Fixture.newYork
    static let start = WallClock.date(2026, 11, 1, 12, 0)

    static func refill(_ ml: Double, at: Date = start, id: String = "r1") -> InventoryEntry {
        InventoryEntry(id: id, kind: .refill, occurredAt: at, timeZoneID: zone.identifier, changeML: ml)
    }

    /// Full nights of 2.25 g + 2.25 g from the evening of 1 November.
    static func nights(_ count: Int, from first: Date = WallClock.date(2026, 11, 1, 22, 0)) -> [DoseUse] {
        (0..<count).flatMap { day in
            let dose1 = first.addingTimeInterval(Double(day) * 86_400)
            return [DoseUse(at: dose1, milligrams: 2250), DoseUse(at: dose1.addingTimeInterval(170 * 60), milligrams: 2250)]
        }
    }

    static func status(
        _ entries: [InventoryEntry], _ doses: [DoseUse], settings: DoseSettings = Fixture.settings(),
        first: SessionKey = SessionKey(year: 2026, month: 11, day: 20)!, pending: Int = 0
    ) -> SupplyStatus {
        Supply.status(entries: entries, doses: doses, settings: settings, firstNight: first, pendingTonightMilligrams: pending)
    }

    // (case, entries, doses, remaining mL, full nights left)
    static let ledger: [(String, [InventoryEntry], [DoseUse], Double, Int)] = [
        ("nothing logged", [], nights(3), 0, 0),
        ("two bottles, no doses yet", [refill(360)], [], 360, 40),
        ("two bottles, three nights", [refill(360)], nights(3), 333, 37),
        ("a dose undone is not among the doses: the supply is back", [refill(360)], Array(nights(3).dropLast()), 337.5, 37),
        ("a dose deleted: the same", [refill(360)], Array(nights(3).dropFirst()), 337.5, 37),
        (
            "doses before the first entry do not drain it (imported history)", [refill(360, at: WallClock.date(2026, 11, 3, 12, 0))], nights(3), 351,
            39
        ),
        ("an extra dose counts", [refill(360)], nights(1) + [DoseUse(at: WallClock.date(2026, 11, 2, 2, 0), milligrams: 2250)], 346.5, 38),
        ("a skipped Dose 2 counts only Dose 1", [refill(360)], [DoseUse(at: WallClock.date(2026, 11, 1, 22, 0), milligrams: 2250)], 355.5, 39),
        ("a dose's own amount is used", [refill(360)], [DoseUse(at: WallClock.date(2026, 11, 1, 22, 0), milligrams: 3000)], 354, 39),
        (
            "a spill",
            [refill(360), InventoryEntry(id: "a1", kind: .adjustment, occurredAt: WallClock.date(2026, 11, 5, 9, 0), timeZoneID: "", changeML: -20)],
            nights(3), 313, 34
        ),
        (
            "a count resets the level; later doses apply on top",
            [
                refill(360),
                InventoryEntry(
                    id: "c1", kind: .adjustment, occurredAt: WallClock.date(2026, 11, 2, 12, 0), timeZoneID: "", changeML: nil, countedML: 100),
            ],
            nights(3), 82, 9
        ),
        ("more doses than the supply: 0 left and the shortfall", [refill(9)], nights(3), 0, 0),
    ]

    @Test("remaining mL and full nights", arguments: ledger)
    func remaining(name: String, entries: [InventoryEntry], doses: [DoseUse], ml: Double, nights: Int) {
        let status = Self.status(entries, doses)
        #expect(abs(status.remainingML - ml) < 1e-9, "\(name)")
        #expect(status.nightsLeft == nights, "\(name)")
        #expect(status.remainingGrams == status.remainingML * 0.5)
    }

    @Test("overdrawn: the shortfall is reported, never a negative supply")
    func shortfall() {
        let status = Self.status([Self.refill(9)], Self.nights(3))
        #expect(status.remainingML == 0 && status.shortfallML == 18)
    }

    @Test("nights left at the boundary: exactly 40 nights, one mL less is 39")
    func boundary() {
        #expect(Self.status([Self.refill(360)], []).nightsLeft == 40)
        #expect(Self.status([Self.refill(359.99)], []).nightsLeft == 39)
        #expect(Self.status([Self.refill(360)], [], pending: 2250).nightsLeft == 39)
    }

    @Test("low at lead time plus margin (5 + 3 = 8 nights), not at 9")
    func low() {
        #expect(Self.status([Self.refill(36)], []).nightsLeft == 4)
        #expect(Self.status([Self.refill(72)], []).isLow)
        #expect(!Self.status([Self.refill(81)], []).isLow)
        #expect(!Self.status([], []).isLow)
    }

    // (zone, first night, nights left, run-out night): across spring-forward and fall-back in both hemispheres
    static let runOut: [(String, SessionKey, Int, String)] = [
        ("America/New_York", SessionKey(year: 2026, month: 3, day: 1)!, 10, "2026-03-11"),
        ("America/New_York", SessionKey(year: 2026, month: 10, day: 30)!, 3, "2026-11-02"),
        ("Europe/London", SessionKey(year: 2026, month: 3, day: 28)!, 1, "2026-03-29"),
        ("Australia/Sydney", SessionKey(year: 2026, month: 4, day: 4)!, 1, "2026-04-05"),
        ("Australia/Lord_Howe", SessionKey(year: 2026, month: 10, day: 3)!, 40, "2026-11-12"),
        ("UTC", SessionKey(year: 2028, month: 2, day: 28)!, 1, "2028-02-29"),
    ]

    @Test("the run-out night is calendar days ahead, whatever the clocks do", arguments: runOut)
    func runOutDate(zone: String, first: SessionKey, nights: Int, expected: String) {
        let settings = Fixture.settings(TimeZone(identifier: zone)!)
        let status = Supply.status(entries: [Self.refill(Double(nights) * 9)], doses: [], settings: settings, firstNight: first)
        #expect(status.nightsLeft == nights)
        #expect(status.runsOutOn?.description == expected)
    }

    @Test("tonight: the coming evening, or tomorrow once Dose 1 is taken (with Dose 2 set aside)")
    func tonight() throws {
        let settings = Fixture.settings()
        let morning = WallClock.date(2026, 3, 8, 10, 0)  // the spring-forward day in New York
        #expect(Supply.tonight(open: nil, at: morning, settings: settings, timeZone: Self.zone).firstNight.description == "2026-03-08")
        let evening = WallClock.date(2026, 3, 8, 20, 0)
        #expect(Supply.tonight(open: nil, at: evening, settings: settings, timeZone: Self.zone).firstNight.description == "2026-03-08")
        let night = try Fixture.afterDose1(at: WallClock.date(2026, 3, 8, 22, 0), settings: settings)
        let afterDose1 = Supply.tonight(open: (night.date, NightFacts(night.events)), at: evening, settings: settings, timeZone: Self.zone)
        #expect(afterDose1.firstNight.description == "2026-03-09" && afterDose1.pendingMilligrams == 2250)
        let both = try Fixture.night([(.dose1, WallClock.date(2026, 3, 8, 22, 0)), (.dose2, WallClock.date(2026, 3, 9, 0, 50))], settings: settings)!
        #expect(
            Supply.tonight(open: (both.date, NightFacts(both.events)), at: evening, settings: settings, timeZone: Self.zone).pendingMilligrams == 0)
    }

    @Test("the refill reminder: once a day after its time while low, and never after a refill")
    func refillReminder() {
        let settings = Fixture.settings()
        let low = Self.status([Self.refill(36)], [])
        let day = SessionKey(year: 2026, month: 11, day: 20)!
        let before = WallClock.date(2026, 11, 20, 9, 59)
        let at = WallClock.date(2026, 11, 20, 10, 0)
        #expect(Supply.refillReminderDue(low, at: before, settings: settings, timeZone: Self.zone, lastSentOn: nil) == nil)
        #expect(Supply.refillReminderDue(low, at: at, settings: settings, timeZone: Self.zone, lastSentOn: nil) == day)
        #expect(Supply.refillReminderDue(low, at: at, settings: settings, timeZone: Self.zone, lastSentOn: day) == nil)
        let nextDay = WallClock.date(2026, 11, 21, 10, 0)
        #expect(Supply.refillReminderDue(low, at: nextDay, settings: settings, timeZone: Self.zone, lastSentOn: day) == day.adding(days: 1))
        let refilled = Self.status([Self.refill(36), Self.refill(360, id: "r2")], [])
        #expect(Supply.refillReminderDue(refilled, at: nextDay, settings: settings, timeZone: Self.zone, lastSentOn: day) == nil)
    }

    static let invalidEntries: [(InventoryEntry, String)] = [
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: 0), "ml"),
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: -5), "ml"),
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: 10_001), "ml"),
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: .nan), "ml"),
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: nil, countedML: 5), "ml"),
        (InventoryEntry(id: "x", kind: .adjustment, occurredAt: start, timeZoneID: "", changeML: 0), "ml"),
        (InventoryEntry(id: "x", kind: .adjustment, occurredAt: start, timeZoneID: "", changeML: nil, countedML: -1), "counted_ml"),
        (InventoryEntry(id: "x", kind: .adjustment, occurredAt: start, timeZoneID: "", changeML: 5, countedML: 5), "ml"),
        (InventoryEntry(id: "x", kind: .adjustment, occurredAt: start, timeZoneID: "", changeML: .infinity), "ml"),
        (InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: 180, bottles: 13), "bottles"),
        (
            InventoryEntry(id: "x", kind: .refill, occurredAt: start, timeZoneID: "", changeML: 180, reason: String(repeating: "a", count: 1001)),
            "reason"
        ),
    ]

    @Test("an entry the ledger cannot hold is refused naming its field", arguments: invalidEntries)
    func invalid(entry: InventoryEntry, field: String) {
        do {
            _ = try entry.validated()
            Issue.record("accepted \(entry)")
        } catch {
            #expect(error.message.contains(field))
        }
    }

    static let taken: [(kind: EventKind, recorded: Int?, counted: Int)] = [
        (.dose1, 3000, 3000), (.dose2, 2000, 2000), (.extraDose, 1000, 1000),
        (.dose1, nil, 2500), (.dose2, nil, 2250), (.extraDose, nil, 2250),
    ]

    @Test("a dose counts the amount recorded with it, else the profile's for its kind", arguments: taken)
    func takenAmount(kind: EventKind, recorded: Int?, counted: Int) throws {
        let settings = try Fixture.settings().setting("dose1_mg", to: "2500").setting("dose2_mg", to: "2250")
        #expect(TakenDose(at: Self.start, kind: kind, recordedMilligrams: recorded).use(settings: settings).milligrams == counted)
    }

    @Test("the supply from what is stored: doses at their amounts, and tonight's owed Dose 2 set aside")
    func fromStoredFacts() throws {
        let settings = Fixture.settings()
        let dose1 = WallClock.date(2026, 11, 21, 22, 0)
        let night = try Fixture.afterDose1(at: dose1, settings: settings)
        let taken = [TakenDose(at: dose1, kind: .dose1, recordedMilligrams: 2250)]
        let evening = dose1.addingTimeInterval(600)
        let status = Supply.status(
            entries: [Self.refill(360)], taken: taken, openNight: (night.date, NightFacts(night.events)), at: evening, settings: settings,
            timeZone: Self.zone)
        #expect(status.remainingML == 355.5 && status.pendingTonightMilligrams == 2250 && status.nightsLeft == 39)
        #expect(status.runsOutOn?.description == "2026-12-31", "counted from tomorrow: tonight is taken care of")
        let closed = Supply.status(entries: [Self.refill(360)], taken: taken, openNight: nil, at: evening, settings: settings, timeZone: Self.zone)
        #expect(closed.pendingTonightMilligrams == 0 && closed.nightsLeft == 39 && closed.runsOutOn?.description == "2026-12-30")
    }

    @Test("a dose records the profile's amount, so a later profile change leaves past doses as they were")
    func doseAmounts() throws {
        let settings = try Fixture.settings().setting("dose1_mg", to: "3000").setting("dose2_mg", to: "2500")
        let night = try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(170))], settings: settings)!
        #expect(night.events.map(\.metadata.amountMilligrams) == [3000, 2500])
    }
}
