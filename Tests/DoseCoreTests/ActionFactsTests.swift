import DoseCore
import Foundation
import Testing

/// The rules name what a store must load for an action, so a store of any kind loads exactly that (issue 33).
@Suite("The facts an action needs from the record")
struct ActionFactsTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let earlier = now.addingTimeInterval(-600)

    static var usualCheckIn: MorningCheckIn {
        var answers = MorningCheckIn()
        var environment = SleepEnvironment()
        environment.sameAsUsual = true
        answers.environment = environment
        return answers
    }

    /// An action, when it happened, and what it needs: doses near, same-type taps (type and seconds), "same as usual".
    static let cases: [(String, NightAction, ActionFacts)] = [
        ("Dose 1 now", NightAction(.dose1), ActionFacts(dosesWithin: InstantSpan(after: now - 480 * 60, before: now + 480 * 60))),
        (
            "Dose 1 back-dated", NightAction(.dose1, at: earlier),
            ActionFacts(dosesWithin: InstantSpan(after: earlier - 480 * 60, before: earlier + 480 * 60))
        ),
        ("Dose 2", NightAction(.dose2), ActionFacts()),
        ("skip", NightAction(.skip(reason: nil)), ActionFacts()),
        ("snooze", NightAction(.snooze), ActionFacts()),
        ("undo", NightAction(.undo), ActionFacts()),
        ("bathroom (60 s)", NightAction(.log(event: "Bathroom")), ActionFacts(sameEvents: .init(type: .bathroom, seconds: 60, instant: now))),
        ("in bed (no cooldown)", NightAction(.log(event: "in_bed")), ActionFacts()),
        ("wake (3600 s)", NightAction(.wake, at: earlier), ActionFacts(sameEvents: .init(type: .wakeFinal, seconds: 3600, instant: earlier))),
        ("an unknown event", NightAction(.log(event: "no such thing")), ActionFacts()),
        ("a plain check-in", NightAction(.checkIn(MorningCheckIn())), ActionFacts()),
        ("a check-in 'same as usual'", NightAction(.checkIn(usualCheckIn)), ActionFacts(usualEnvironmentBefore: now)),
    ]

    @Test("each action names what it needs", arguments: cases)
    func needed(name: String, action: NightAction, expected: ActionFacts) {
        let settings = DoseSettings(timeZoneID: "America/New_York")
        #expect(NightRules.factsNeeded(for: action, now: Self.now, settings: settings) == expected, "\(name)")
    }

    @Test("a cooldown set to 0 needs no taps read; one changed is the window read")
    func cooldownSetting() throws {
        var settings = try DoseSettings(timeZoneID: "America/New_York").setting("cooldown.bathroom", to: "0")
        #expect(NightRules.factsNeeded(for: NightAction(.log(event: "bathroom")), now: Self.now, settings: settings).sameEvents == nil)
        settings = try settings.setting("cooldown.bathroom", to: "300")
        #expect(
            NightRules.factsNeeded(for: NightAction(.log(event: "bathroom")), now: Self.now, settings: settings).sameEvents?.seconds == 300)
    }

    @Test("'same as usual' copies aids, darkness and noise from the usual night, and is refused with none to copy")
    func sameAsUsual() throws {
        var usual = SleepEnvironment()
        usual.sleepAids = [.eyeMask]
        #expect(throws: DoseError.self) { try Self.usualCheckIn.resolvingSameAsUsual(with: nil) }
        let filled = try Self.usualCheckIn.resolvingSameAsUsual(with: usual)
        #expect(filled.environment?.sleepAids == [.eyeMask])
        let plain = MorningCheckIn()
        #expect(try plain.resolvingSameAsUsual(with: nil) == plain, "no shortcut, nothing to copy, nothing refused")
    }
}
