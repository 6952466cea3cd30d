import DoseCore
import Foundation
import Testing

@Suite("Sleep events, cooldowns and naps (D6, D7)")
struct SleepEventTests {
    static let spellings: [(String, String)] = [
        ("bathroom", "bathroom"), ("Bathroom", "bathroom"), ("BATHROOM", "bathroom"),
        ("wake_temp", "wake_temp"), ("wakeTemp", "wake_temp"), ("Brief Wake", "wake_temp"), ("brief wake", "wake_temp"),
        ("lights_out", "lights_out"), ("lightsOut", "lights_out"), ("Lights Out", "lights_out"),
        ("in_bed", "in_bed"), ("In Bed", "in_bed"), ("wakeFinal", "wake_final"), ("Wake Up", "wake_final"),
        ("heartRacing", "heart_racing"), ("Heart Racing", "heart_racing"), ("nap_start", "nap_start"), ("Nap End", "nap_end"),
        ("  water  ", "water"), ("Temperature", "temperature"), ("pain", "pain"), ("dream", "dream"), ("noise", "noise"),
        ("anxiety", "anxiety"), ("snack", "snack"),
    ]

    @Test("input accepts wire, camelCase and label names; storage uses the wire name", arguments: spellings)
    func resolves(input: String, wire: String) throws {
        #expect(try SleepEventCatalogue.standard.resolve(input).type.rawValue == wire)
    }

    @Test("unknown names are refused with the list of valid names", arguments: ["bathrooms", "", "dose1", "snooze", "wake"])
    func unknown(input: String) {
        #expect(throws: DoseError.self) { try SleepEventCatalogue.standard.resolve(input) }
        do {
            _ = try SleepEventCatalogue.standard.resolve(input)
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("bathroom, water, snack"))
        }
    }

    @Test("the fifteen built-ins carry the D6 categories and cooldowns")
    func catalogue() {
        let byName = Dictionary(uniqueKeysWithValues: SleepEventCatalogue.builtIn.map { ($0.type.rawValue, $0) })
        #expect(byName.count == 15)
        #expect(byName["bathroom"]?.defaultCooldownSeconds == 60)
        #expect(byName["water"]?.category == .physical)
        #expect(byName["wake_final"]?.defaultCooldownSeconds == 3600)
        #expect(byName["wake_temp"]?.label == "Brief Wake")
        #expect(byName["heart_racing"]?.category == .mental)
        #expect(byName["pain"]?.category == .environment)
        #expect(byName.values.filter { $0.defaultCooldownSeconds == 0 }.count == 11)
    }

    static let cooldownTable: [(String, Double, Bool)] = [
        ("bathroom", 0, false), ("bathroom", 30, false), ("bathroom", 59.999, false), ("bathroom", 60, true), ("bathroom", 61, true),
        ("water", 59, false), ("water", 60, true), ("snack", 60, true),
        ("wake_temp", 0, true), ("dream", 0, true),
    ]

    @Test("blocked while elapsed < cooldown, allowed at exactly the cooldown", arguments: cooldownTable)
    func cooldown(event: String, secondsLater: Double, allowed: Bool) throws {
        let first = try #require(try Fixture.night([(.log(event: event), Fixture.dose1)]))
        let error = Fixture.refusal(NightAction(.log(event: event)), session: first, at: Fixture.dose1.addingTimeInterval(secondsLater))
        if allowed {
            #expect(error == nil)
        } else {
            #expect(error?.code == .rateLimit)
            #expect(error?.retryAfterSeconds == max(1, Int((60 - secondsLater).rounded(.up))))
        }
    }

    @Test(
        "the cooldown counts events of other nights too, by event time, either side",
        arguments: [
            (-59.999, false), (-60.0, true), (0.0, false), (30.0, false), (59.999, false), (60.0, true), (3600.0, true),
        ])
    func cooldownAcrossNights(secondsFromOther: Double, allowed: Bool) throws {
        var context = Fixture.context(at: Fixture.dose1.addingTimeInterval(max(secondsFromOther, 0) + 1))
        context.nearbySameEvents = [Fixture.dose1]
        let action = NightAction(.log(event: "bathroom"), at: Fixture.dose1.addingTimeInterval(secondsFromOther))
        let result = Result { () throws(DoseError) in try NightRules.decide(action, session: nil, context: context) }
        switch result {
        case .success: #expect(allowed)
        case .failure(let error): #expect(!allowed && error.code == .rateLimit)
        }
    }

    @Test("a cooldown setting overrides the default, 0 disables it")
    func cooldownSetting() throws {
        let settings = try Fixture.settings().setting("cooldown.bathroom", to: "0")
        let first = try #require(try Fixture.night([(.log(event: "bathroom"), Fixture.dose1)], settings: settings))
        #expect(Fixture.refusal(NightAction(.log(event: "bathroom")), session: first, at: Fixture.dose1, settings: settings) == nil)
        let strict = try Fixture.settings().setting("cooldown.Brief Wake", to: "120")
        let woke = try #require(try Fixture.night([(.log(event: "wake_temp"), Fixture.dose1)], settings: strict))
        #expect(
            Fixture.refusal(NightAction(.log(event: "wakeTemp")), session: woke, at: Fixture.minutes(1.5), settings: strict)?.retryAfterSeconds == 30)
    }

    @Test("wake logs wake_final, moves to finalizing; with Dose 2 pending only when end_night is confirmed, with a warning (D16)")
    func wake() throws {
        let session = try Fixture.afterDose1()
        #expect(Fixture.refusal(NightAction(.wake), session: session, at: Fixture.minutes(160))?.code == .dose2Pending)
        let decision = try NightRules.decide(
            NightAction(.wake, confirmations: [.endNight]), session: session, context: Fixture.context(at: Fixture.minutes(160)))
        #expect(decision.event?.kind == .sleep(.wakeFinal))
        #expect(!decision.warnings.isEmpty)
        #expect(NightFacts(decision.session.events).phase(at: Fixture.minutes(161)) == .finalizing)
        let quiet = try #require(try Fixture.night([(.dose1, Fixture.dose1), (.dose2, Fixture.minutes(160)), (.wake, Fixture.minutes(500))]))
        #expect(NightFacts(quiet.events).phase(at: Fixture.minutes(501)) == .finalizing)
    }

    @Test("naps alternate: start while open, or end with none open, is refused")
    func naps() throws {
        let open = try #require(try Fixture.night([(.log(event: "nap_start"), Fixture.dose1)]))
        #expect(Fixture.refusal(NightAction(.log(event: "nap_start")), session: open, at: Fixture.minutes(10))?.code == .napState)
        #expect(Fixture.refusal(NightAction(.log(event: "nap_end")), session: open, at: Fixture.minutes(10)) == nil)
        #expect(Fixture.refusal(NightAction(.log(event: "nap_end")), session: nil, at: Fixture.dose1)?.code == .napState)
        let closed = try #require(try Fixture.night([(.log(event: "nap_start"), Fixture.dose1), (.log(event: "nap_end"), Fixture.minutes(20))]))
        #expect(Fixture.refusal(NightAction(.log(event: "nap_end")), session: closed, at: Fixture.minutes(30))?.code == .napState)
        #expect(Fixture.refusal(NightAction(.log(event: "nap_start")), session: closed, at: Fixture.minutes(30)) == nil)
        // A forgotten nap inside an earlier nap would overlap it.
        #expect(
            Fixture.refusal(NightAction(.log(event: "nap_start"), at: Fixture.minutes(10)), session: closed, at: Fixture.minutes(30))?.code
                == .napState)
    }

    @Test("custom types: up to 8, up to 30 characters, no clash with built-ins, valid colour")
    func customTypes() throws {
        let catalogue = try SleepEventCatalogue(custom: [CustomEventType(name: "Leg Cramp", icon: "🦵", colour: "#FF0000")])
        #expect(try catalogue.resolve("leg cramp").type.rawValue == "leg_cramp")
        #expect(try catalogue.resolve("legCramp").category == .custom)
        let nine = (1...9).map { CustomEventType(name: "Custom \($0)") }
        #expect(throws: DoseError.self) { try SleepEventCatalogue(custom: nine) }
        #expect(throws: DoseError.self) { try SleepEventCatalogue(custom: [CustomEventType(name: String(repeating: "x", count: 31))]) }
        #expect(throws: DoseError.self) { try SleepEventCatalogue(custom: [CustomEventType(name: "Brief Wake")]) }
        #expect(throws: DoseError.self) { try SleepEventCatalogue(custom: [CustomEventType(name: "Dose 1")]) }
        #expect(throws: DoseError.self) { try SleepEventCatalogue(custom: [CustomEventType(name: "Ok", colour: "red")]) }
        #expect(try SleepEventCatalogue(custom: (1...8).map { CustomEventType(name: "Custom \($0)") }).definitions.count == 23)
        let exact = String(repeating: "x", count: 30)
        #expect(try SleepEventCatalogue(custom: [CustomEventType(name: exact)]).resolve(exact).label == exact)
    }

    @Test("logging a custom type works through the context's catalogue")
    func logCustom() throws {
        let catalogue = try SleepEventCatalogue(custom: [CustomEventType(name: "Leg Cramp")])
        let context = NightContext(now: Fixture.dose1, settings: Fixture.settings(), catalogue: catalogue, makeID: { "c1" })
        let decision = try NightRules.decide(NightAction(.log(event: "Leg Cramp")), session: nil, context: context)
        #expect(decision.event?.kind.wireName == "leg_cramp")
        #expect(EventKind(wireName: "leg_cramp") == .sleep(SleepEventType(rawValue: "leg_cramp")))
    }
}
