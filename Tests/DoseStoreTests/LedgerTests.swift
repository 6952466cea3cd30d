import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

@Suite("Night actions through the store: one transaction, events as the source of truth")
struct LedgerTests {
    typealias F = StoreFixture

    @Test("a whole night: Dose 1, snooze, bathroom, Dose 2, wake, check-in; derived columns follow the events")
    func wholeNight() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        let first = try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        #expect(first.decision.startedSession)
        #expect(first.status.phase == .beforeWindow)
        #expect(first.status.sessionDate?.description == "2026-11-21")
        try F.act(ledger, .snooze, at: F.minutes(160), clock: clock)
        try F.act(ledger, .log(event: "Bathroom"), at: F.minutes(161), clock: clock, note: "quick")
        let dose2 = try F.act(ledger, .dose2, at: F.minutes(172), clock: clock)
        #expect(dose2.status.phase == .completed)
        try F.act(ledger, .wake, at: F.minutes(500), clock: clock)
        let checkIn = try F.act(ledger, .checkIn(MorningCheckIn()), at: F.minutes(510), clock: clock)
        #expect(checkIn.decision.closure?.terminalState == .completed)
        #expect(checkIn.status.phase == .noDose1)
        #expect(checkIn.status.sessionID == nil)

        try ledger.database.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sleep_sessions"))
            #expect(row["dose1_at"] as String == ISO8601.string(F.dose1))
            #expect(row["dose2_at"] as String == ISO8601.string(F.minutes(172)))
            #expect(row["interval_minutes"] as Int == 172)
            #expect(row["snooze_count"] as Int == 1)
            #expect(row["end_reason"] as String == "checkin")
            #expect(row["terminal_state"] as String == "completed")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dose_events") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_events") == 2)
            #expect(try String.fetchOne(db, sql: "SELECT category FROM sleep_events WHERE event_type = 'bathroom'") == "physical")
            #expect(try Int.fetchOne(db, sql: "SELECT wellness_score FROM morning_checkins") == 58)
            let offset = try Int.fetchOne(db, sql: "SELECT utc_offset_minutes FROM dose_events WHERE event_type = 'dose1'")
            #expect(offset == -300)
            let stored = try String.fetchOne(db, sql: "SELECT occurred_at FROM dose_events WHERE event_type = 'dose1'")
            #expect(stored == "2026-11-22T03:30:00.000Z")
        }
    }

    @Test(
        "every refusal leaves every table exactly as it was",
        arguments: [
            "early dose 2", "dose 1 twice", "snooze before window", "unknown event", "note too long", "future time", "cooldown",
        ])
    func refusalsChangeNothing(case name: String) throws {
        let (ledger, clock) = try F.afterDose1()
        try F.act(ledger, .log(event: "water"), at: F.minutes(20), clock: clock)
        let before = try F.snapshot(ledger)
        let now = F.minutes(20.5)
        let error = F.refusal {
            switch name {
            case "early dose 2": try F.act(ledger, .dose2, at: now, clock: clock)
            case "dose 1 twice": try F.act(ledger, .dose1, at: now, clock: clock)
            case "snooze before window": try F.act(ledger, .snooze, at: now, clock: clock)
            case "unknown event": try F.act(ledger, .log(event: "sleepwalking"), at: now, clock: clock)
            case "note too long": try F.act(ledger, .log(event: "dream"), at: now, clock: clock, note: String(repeating: "z", count: 501))
            case "future time": try F.act(ledger, .log(event: "dream"), at: now, clock: clock, occurredAt: now.addingTimeInterval(61))
            default: try F.act(ledger, .log(event: "water"), at: now, clock: clock)
            }
        }
        #expect(error != nil)
        #expect(try F.snapshot(ledger) == before)
    }

    @Test("undo removes exactly the last event, keeps an audit entry, and the derived snooze count follows")
    func undo() throws {
        let (ledger, clock) = try F.afterDose1()
        let snooze = try F.act(ledger, .snooze, at: F.minutes(160), clock: clock)
        let undone = try F.act(ledger, .undo, at: F.minutes(160, after: F.dose1).addingTimeInterval(5), clock: clock)
        #expect(undone.decision.removed.map(\.id) == [snooze.decision.event!.id])
        #expect(undone.status.snoozeCount == 0)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT snooze_count FROM sleep_sessions") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dose_events WHERE event_type = 'snooze'") == 0)
            let audit = try #require(try Row.fetchOne(db, sql: "SELECT * FROM audit_log WHERE action = 'undo'"))
            #expect(audit["entity_id"] as String == snooze.decision.event!.id.rawValue)
            #expect((audit["details"] as String).contains("\"event_type\":\"snooze\""))
        }
        // 5.001 s after the next action is too late.
        try F.act(ledger, .log(event: "dream"), at: F.minutes(161), clock: clock)
        let late = F.refusal { try F.act(ledger, .undo, at: F.minutes(161).addingTimeInterval(5.001), clock: clock) }
        #expect(late?.code == .undoExpired)
    }

    @Test("a status read at 270 minutes records the sleep-through expiry; the cutoff closes the night as expired")
    func sleepThroughAndCutoff() throws {
        let (ledger, clock) = try F.afterDose1()
        clock.set(F.minutes(269.99))
        #expect(try ledger.status(clock: clock.store).status.dose2Skipped == false)
        clock.set(F.minutes(270))
        let status = try ledger.status(clock: clock.store).status
        #expect(status.outcome == .expired)
        try ledger.database.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM dose_events WHERE event_type = 'dose2_skipped'"))
            #expect(row["source"] as String == "system")
            #expect(row["occurred_at"] as String == ISO8601.string(F.minutes(270)))
            #expect(try Int.fetchOne(db, sql: "SELECT dose2_skipped FROM sleep_sessions") == 1)
        }
        // A second read records nothing more.
        clock.set(F.minutes(300))
        _ = try ledger.status(clock: clock.store)
        #expect(try ledger.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dose_events") } == 2)
        // 07:00 + 4 h = 11:00 local closes it.
        clock.set(WallClock.date(2026, 11, 22, 11, 0))
        let after = try ledger.status(clock: clock.store)
        #expect(after.session == nil)
        try ledger.database.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT end_reason, terminal_state, ended_at FROM sleep_sessions"))
            #expect(row["end_reason"] as String == "missed_checkin_cutoff")
            #expect(row["terminal_state"] as String == "expired")
            #expect(row["ended_at"] as String == ISO8601.string(WallClock.date(2026, 11, 22, 11, 0)))
        }
    }

    @Test("a real Dose 2 dated before a recorded expiry replaces it, and the replacement is audited")
    func supersededExpiry() throws {
        let (ledger, clock) = try F.afterDose1()
        clock.set(F.minutes(280))
        _ = try ledger.status(clock: clock.store)
        let outcome = try F.act(ledger, .dose2, at: F.minutes(281), clock: clock, occurredAt: F.minutes(200))
        #expect(outcome.status.outcome == .dose2Taken)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dose_events WHERE event_type = 'dose2_skipped'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'superseded'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT dose2_skipped FROM sleep_sessions") == 0)
        }
    }

    @Test("a check-in after the night was closed by the cutoff attaches to that night")
    func lateCheckIn() throws {
        let (ledger, clock) = try F.afterDose1()
        try F.act(ledger, .dose2, at: F.minutes(170), clock: clock)
        let outcome = try F.act(ledger, .checkIn(MorningCheckIn()), at: WallClock.date(2026, 11, 22, 12, 0), clock: clock)
        #expect(outcome.decision.session.date.description == "2026-11-21")
        #expect(outcome.decision.closure == nil)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions") == 1)
            #expect(try String.fetchOne(db, sql: "SELECT end_reason FROM sleep_sessions") == "missed_checkin_cutoff")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM morning_checkins") == 1)
        }
        let again = F.refusal { try F.act(ledger, .checkIn(MorningCheckIn()), at: WallClock.date(2026, 11, 22, 12, 5), clock: clock) }
        #expect(again?.code == .notFound)
    }

    @Test("an event dated inside a night that already closed is refused instead of starting a second night")
    func backdatedIntoClosedNight() throws {
        let (ledger, clock) = try F.afterDose1()
        try F.act(ledger, .dose2, at: F.minutes(170), clock: clock)
        try F.act(ledger, .checkIn(MorningCheckIn()), at: WallClock.date(2026, 11, 22, 7, 0), clock: clock)
        let error = F.refusal {
            try F.act(
                ledger, .log(event: "bathroom"), at: WallClock.date(2026, 11, 22, 7, 30), clock: clock, occurredAt: WallClock.date(2026, 11, 22, 3, 0)
            )
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("already closed") == true)
        // After the check-in, a sleep event of the same date joins that night, which stays closed: never a second night of
        // the same date without Dose 1 (issue 53).
        let nap = try F.act(ledger, .log(event: "nap_start"), at: WallClock.date(2026, 11, 22, 14, 0), clock: clock)
        #expect(!nap.decision.startedSession)
        #expect(nap.decision.session.date.description == "2026-11-21" && !nap.decision.session.isOpen)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_events WHERE event_type = 'nap_start'") == 1)
            #expect(try String.fetchOne(db, sql: "SELECT end_reason FROM sleep_sessions") == "checkin")
        }
        // From the next evening's rollover on, an event starts the next night.
        let evening = try F.act(ledger, .log(event: "in_bed"), at: WallClock.date(2026, 11, 22, 21, 0), clock: clock)
        #expect(evening.decision.startedSession && evening.decision.session.date.description == "2026-11-22")
    }

    @Test("two sessions are never open at once")
    func oneOpenSession() throws {
        let (ledger, _) = try F.afterDose1()
        #expect(throws: DatabaseError.self) {
            try ledger.database.writer.write { (db: Database) throws in
                try db.execute(sql: "INSERT INTO sleep_sessions (id, session_date, started_at, time_zone) VALUES ('x', '2026-11-21', 'y', 'UTC')")
            }
        }
    }

    @Test("settings: validated, stored canonically, audited; an invalid stored value is reported, never reset")
    func settings() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        #expect(try ledger.database.settings.current(machineTimeZoneID: clock.store.machineTimeZoneID).timeZoneID == "America/New_York")
        let updated = try ledger.database.settings.update("cooldown.Brief Wake", to: "30", clock: clock.store)
        #expect(try updated.value(of: "cooldown.wake_temp") == "30")
        let refused = F.refusal { _ = try ledger.database.settings.update("target_interval", to: "200", clock: clock.store) }
        #expect(refused?.message.contains("165, 180, 195, 210, 225") == true)
        _ = try ledger.database.settings.update("target_interval", to: "180", clock: clock.store)
        try ledger.database.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = 'cooldown.wake_temp'") == "30")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'setting'") == 2)
            let details = try String.fetchOne(db, sql: "SELECT details FROM audit_log WHERE entity_id = 'target_interval'")
            #expect(details == "{\"from\":\"165\",\"to\":\"180\"}")
        }
        try ledger.database.writer.write { try $0.execute(sql: "UPDATE settings SET value = '999' WHERE key = 'target_interval'") }
        let broken = F.refusal { _ = try ledger.database.settings.current(machineTimeZoneID: clock.store.machineTimeZoneID) }
        #expect(StoreFixture.isFileProblem(broken))
    }

    @Test("the zone override applies to one call: session key and offsets use it")
    func zoneOverride() throws {
        let ledger = try F.ledger()
        let clock = TestClock(F.dose1)
        var store = clock.store
        store.timeZoneOverride = TimeZone(identifier: "Asia/Tokyo")!
        // 22:30 New York is 12:30 the next day in Tokyo: before 18:00, so the Tokyo key is the 21st.
        let outcome = try ledger.perform(NightAction(.dose1), clock: store)
        #expect(outcome.decision.event?.utcOffsetMinutes == 540)
        #expect(outcome.decision.session.date.description == "2026-11-21")
        #expect(outcome.status.timeZoneID == "Asia/Tokyo")
    }
}

@Suite("Reads settle the lifecycle first")
struct SettleTests {
    @Test("history read after the cutoff shows the night closed and expired, not open")
    func historyClosesOverdueNight() throws {
        let (ledger, clock) = try StoreFixture.afterDose1()
        clock.set(WallClock.date(2026, 11, 22, 11, 0))
        // Settling before a read is the record service's step; the history store itself only reads.
        let records = UseCases(ledger.database, clock: clock.store).records
        let night = try #require(try records.history(HistoryQuery()).groups.first?.nights.first)
        #expect(!night.session.isOpen)
        #expect(night.terminalState == .expired)
        #expect(night.session.events.contains { $0.kind == .dose2Skipped && $0.source == .system })
    }

    @Test("a double tap on Bathroom across a check-in that closed the night is still one event; after the cooldown it logs")
    func cooldownAcrossACheckIn() throws {
        let (ledger, clock) = try StoreFixture.afterDose1()
        try StoreFixture.act(ledger, .log(event: "bathroom"), at: StoreFixture.minutes(500), clock: clock)
        let checkIn = try StoreFixture.act(ledger, .checkIn(MorningCheckIn()), at: StoreFixture.minutes(500.2), clock: clock)
        #expect(checkIn.status.sessionID == nil, "the check-in closed the night")
        let second = StoreFixture.refusal { try StoreFixture.act(ledger, .log(event: "bathroom"), at: StoreFixture.minutes(500.5), clock: clock) }
        #expect(second?.code == .rateLimit && second?.retryAfterSeconds == 30)
        let wake = StoreFixture.refusal { try StoreFixture.act(ledger, .wake, at: StoreFixture.minutes(500.6), clock: clock) }
        #expect(wake == nil, "another type has its own cooldown")
        #expect(
            StoreFixture.refusal { try StoreFixture.act(ledger, .log(event: "bathroom"), at: StoreFixture.minutes(501), clock: clock) } == nil,
            "at the cooldown it logs")
    }
}
