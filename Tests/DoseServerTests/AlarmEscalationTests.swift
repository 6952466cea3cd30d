import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseServer

/// Acknowledgement, the wake alarm's re-fire and the escalation contact, on an injected clock (Dose 1 at 22:30, the
/// wake alarm at 01:15 with the default target of 165, the escalation point at 02:15).
@Suite("Alarms: acknowledgement, re-fire and escalation with an injected clock")
struct AlarmEscalationTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)
    static func at(_ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, hour >= 12 ? 21 : 22, hour, minute) }

    static func fixture(_ settings: [(String, String)]) throws -> ServerFixture {
        let fixture = try ServerFixture(now: dose1)
        _ = try fixture.environment.useCases().settings.update(settings)
        try ReminderEngineTests.act(fixture, .dose1, at: dose1)
        return fixture
    }

    static func engine(_ fixture: ServerFixture) -> (ReminderEngine, sleeper: Recorder, contact: Recorder) {
        let sleeper = Recorder()
        let contact = Recorder(audience: .contact)
        return (ReminderEngine(environment: fixture.environment, deliveries: [sleeper, contact]), sleeper, contact)
    }

    @Test("an unanswered wake alarm rings again after N minutes on every channel; N = 0 never re-fires", arguments: [1, 3, 10])
    func refires(minutes: Int) async throws {
        let fixture = try Self.fixture([("wake_alarm_refire_minutes", String(minutes))])
        let (engine, sleeper, contact) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 0), to: Self.at(1, 15 + minutes))
        #expect(sleeper.all.filter { $0.kind == .wakeAlarmRefire }.map(\.fireAt) == [Self.at(1, 15 + minutes)])
        #expect(sleeper.kinds.contains(.wakeAlarm))
        #expect(contact.kinds.isEmpty, "the contact hears only escalations")
        // At most once: ticking on changes nothing more for it.
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 16 + minutes), to: Self.at(1, 30))
        #expect(sleeper.kinds.filter { $0 == .wakeAlarmRefire }.count == 1)

        let off = try Self.fixture([])
        let quiet = Self.engine(off)
        try await ReminderEngineTests.run(quiet.0, off, from: Self.at(1, 0), to: Self.at(1, 30))
        #expect(!quiet.sleeper.kinds.contains(.wakeAlarmRefire))
    }

    enum Answer: String, CaseIterable {
        case imUp, bathroomLog, snooze
    }

    @Test("an answered wake alarm does not re-fire: I'm up, or any action of the night", arguments: Answer.allCases)
    func answered(answer: Answer) async throws {
        let fixture = try Self.fixture([("wake_alarm_refire_minutes", "3")])
        let (engine, sleeper, _) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 0), to: Self.at(1, 15))
        // Between the first follow-up (01:17) and the re-fire (01:18), Tonight names the next alarm.
        fixture.set(Self.at(1, 17).addingTimeInterval(30))
        #expect(
            try fixture.environment.useCases().night.status().status.nextReminder?.kind == .wakeAlarmRefire, "unanswered, Tonight names the re-fire")
        fixture.set(Self.at(1, 16))
        switch answer {
        case .imUp:
            let ack = try fixture.environment.useCases().alarms.acknowledge(from: .push)
            guard case .array(let answered)? = JSONValue(response: ack)["answered"] else {
                Issue.record("no answered list")
                return
            }
            #expect(answered.compactMap { $0["kind"]?.stringValue } == ["wake_alarm"])
        case .bathroomLog: try ReminderEngineTests.act(fixture, .log(event: "bathroom"), at: Self.at(1, 16))
        case .snooze: try ReminderEngineTests.act(fixture, .snooze, at: Self.at(1, 16))
        }
        fixture.set(Self.at(1, 17).addingTimeInterval(30))
        #expect(try fixture.environment.useCases().night.status().status.nextReminder?.kind != .wakeAlarmRefire, "answered, it is no longer next")
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 16), to: Self.at(1, 25))
        #expect(!sleeper.kinds.contains(.wakeAlarmRefire))
        let snapshot = try fixture.environment.useCases().night.status()
        let session = try #require(snapshot.session)
        let log = AlarmLogResponse(try fixture.environment.useCases().alarms.log(session: session.id), sessionID: session.id, zone: snapshot.timeZone)
        let wake = try #require(log.lines.first { $0.contains("wake alarm") })
        switch answer {
        case .imUp: #expect(wake == "01:15 wake alarm → page; acknowledged 01:16 by “I'm up” on push action")
        case .bathroomLog, .snooze: #expect(wake == "01:15 wake alarm → page; acknowledged 01:16 by API")
        }
    }

    @Test("an answer before the wake alarm rang does not silence it or its re-fire")
    func earlyAnswer() async throws {
        let fixture = try Self.fixture([("wake_alarm_refire_minutes", "2")])
        let (engine, sleeper, _) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 0), to: Self.at(1, 10))
        fixture.set(Self.at(1, 11))
        _ = try fixture.environment.useCases().alarms.acknowledge(from: .page)
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 11), to: Self.at(1, 17))
        #expect(sleeper.kinds.contains(.wakeAlarm) && sleeper.kinds.contains(.wakeAlarmRefire))
    }

    @Test("the contact is told exactly once at the escalation point while Dose 2 is pending, with the times and no action links")
    func escalates() async throws {
        let fixture = try Self.fixture([("escalation_enabled", "true")])
        let (engine, sleeper, contact) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.dose1, to: Self.at(2, 40))
        #expect(contact.all.map(\.kind) == [.escalation])
        let notice = try #require(contact.all.first)
        #expect(notice.fireAt == Self.at(2, 15) && notice.audience == .contact)
        #expect(notice.tokens.isEmpty && notice.links.isEmpty && notice.pushPayload["actions"] == .array([]))
        #expect(notice.message.contains("Dose 1 was at 22:30") && notice.message.contains("closes at 02:30"))
        #expect(!sleeper.kinds.contains(.escalation))
        #expect(sleeper.kinds.contains(.warning15Minutes), "the sleeper's own 15-minute warning still rings at the same instant")
        // Only buttons that can work: snooze is off from the 15-minute warning on.
        #expect(Set(sleeper.all.first { $0.kind == .wakeAlarm }?.tokens.keys ?? [:].keys) == [.take, .snooze, .skip])
        #expect(Set(sleeper.all.first { $0.kind == .warning15Minutes }?.tokens.keys ?? [:].keys) == [.take, .skip])
    }

    @Test("the contact is told nothing when Dose 2 was taken or skipped before the point, or escalation is off", arguments: ["dose2", "skip", "off"])
    func noEscalation(ending: String) async throws {
        let fixture = try Self.fixture(ending == "off" ? [] : [("escalation_enabled", "true")])
        let (engine, _, contact) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.dose1, to: Self.at(1, 20))
        switch ending {
        case "dose2": try ReminderEngineTests.act(fixture, .dose2, at: Self.at(1, 21))
        case "skip": try ReminderEngineTests.act(fixture, .skip(reason: nil), at: Self.at(1, 21))
        default: break
        }
        try await ReminderEngineTests.run(engine, fixture, from: Self.at(1, 21), to: Self.at(2, 45))
        #expect(contact.all.isEmpty)
    }

    @Test("a chosen point is kept, and never comes before the sleeper's own (snoozed) alarm")
    func chosenPoint() async throws {
        let fixture = try Self.fixture([("escalation_enabled", "true"), ("escalation_minutes", "160")])
        let (engine, _, contact) = Self.engine(fixture)
        try await ReminderEngineTests.run(engine, fixture, from: Self.dose1, to: Self.at(1, 30))
        #expect(contact.all.map(\.fireAt) == [Self.at(1, 15)], "point 160 (01:10) waits for the wake alarm at 01:15")
        let later = try Self.fixture([("escalation_enabled", "true"), ("escalation_minutes", "200"), ("target_interval", "180")])
        let second = Self.engine(later)
        try await ReminderEngineTests.run(second.0, later, from: Self.dose1, to: Self.at(2, 0))
        #expect(second.contact.all.map(\.fireAt) == [Self.at(1, 50)])
    }

    @Test("a restart neither repeats nor loses an escalation", arguments: ["before", "after", "across"])
    func restart(when: String) async throws {
        let fixture = try Self.fixture([("escalation_enabled", "true")])
        let first = Self.engine(fixture)
        let stop: Date =
            switch when {
            case "before": Self.at(2, 10)
            case "after": Self.at(2, 16)
            default: Self.at(2, 5)
            }
        try await ReminderEngineTests.run(first.0, fixture, from: Self.dose1, to: stop)
        let second = Self.engine(fixture)
        // "across": down from 02:05 to 02:25, ten minutes past the point and past the two-minute grace of alarms.
        let restart = when == "across" ? Self.at(2, 25) : stop.addingTimeInterval(60)
        try await ReminderEngineTests.run(second.0, fixture, from: restart, to: Self.at(2, 45))
        let told = first.contact.all + second.contact.all
        #expect(told.map(\.kind) == [.escalation], "exactly one escalation in all")
        if when == "across" {
            #expect(second.contact.all.count == 1, "found late, it is still sent while the window is open")
            #expect(!second.sleeper.kinds.contains(.warning15Minutes), "the sleeper's missed alarm is not rung late")
        }
    }
}
