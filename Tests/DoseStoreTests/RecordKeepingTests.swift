import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import Testing

@testable import DoseStore

@Suite("Pre-sleep logs, medications, corrections and the full check-in in the store")
struct RecordKeepingTests {
    typealias F = StoreFixture

    @Test("a pre-sleep log starts tonight's session; saving again replaces it and is audited; Dose 1 joins the same night")
    func preSleep() throws {
        let ledger = try F.ledger()
        let clock = TestClock(WallClock.date(2026, 11, 21, 21, 0))
        var log = PreSleepLog()
        log.stressLevel = 2
        let first = try ledger.database.journal.savePreSleep(log, at: nil, note: nil, clock: clock.store)
        #expect(first.startedSession)
        #expect(first.completion == .partial)
        log.intendedSleepTime = .in30Minutes
        log.bodyPain = BodyPain.none
        log.caffeineCups = 1
        log.alcoholDrinks = 0
        log.exercise = ExerciseLevel.light
        log.napToday = NapToday.none
        clock.set(WallClock.date(2026, 11, 21, 21, 10))
        let second = try ledger.database.journal.savePreSleep(log, at: nil, note: nil, clock: clock.store)
        #expect(second.replaced)
        #expect(second.completion == .complete)
        #expect(second.sessionID == first.sessionID)
        let dose1 = try F.act(ledger, .dose1, at: F.dose1, clock: clock)
        #expect(dose1.decision.session.id == first.sessionID)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pre_sleep_logs") == 1)
            #expect(try String.fetchOne(db, sql: "SELECT completion_state FROM pre_sleep_logs") == "complete")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'replace_presleep'") == 1)
        }
        var skipped = PreSleepLog()
        skipped.skipped = true
        skipped.stressLevel = 3
        #expect(F.refusal { _ = try ledger.database.journal.savePreSleep(skipped, at: nil, note: nil, clock: clock.store) }?.code == .invalidInput)
    }

    @Test("a medication batch is all or nothing; the duplicate guard looks both ways; session linking by session key")
    func medications() throws {
        let (ledger, clock) = try F.afterDose1()
        clock.set(WallClock.date(2026, 11, 22, 8, 0))
        let batch = try ledger.database.medications.log(
            [MedicationInput(medicationID: "adderall_ir", amount: 10), MedicationInput(medicationID: "modafinil", amount: 0.2, unit: .g)],
            confirmations: [], clock: clock.store)
        #expect(batch.count == 2)
        #expect(batch[1].doseMg == 200)
        #expect(batch.allSatisfy { $0.sessionDate.description == "2026-11-21" && $0.sessionID != nil })
        let before = try F.snapshot(ledger)
        clock.set(WallClock.date(2026, 11, 22, 8, 4))
        let duplicate = F.refusal {
            _ = try ledger.database.medications.log(
                [MedicationInput(medicationID: "wakix", amount: 18), MedicationInput(medicationID: "adderall_ir", amount: 10)],
                confirmations: [], clock: clock.store)
        }
        #expect(duplicate?.code == .duplicateMedication)
        #expect(try F.snapshot(ledger) == before)
        // Backdated to 5 minutes before the stored one: still within the guard in the other direction.
        let earlier = F.refusal {
            _ = try ledger.database.medications.log(
                [MedicationInput(medicationID: "adderall_ir", amount: 10, takenAt: WallClock.date(2026, 11, 22, 7, 55, 30))],
                confirmations: [], clock: clock.store)
        }
        #expect(earlier?.code == .duplicateMedication)
        let confirmed = try ledger.database.medications.log(
            [MedicationInput(medicationID: "adderall_ir", amount: 10)], confirmations: [.duplicate], clock: clock.store)
        #expect(confirmed[0].confirmedDuplicate)
        // Exactly 5 minutes apart is outside the guard.
        clock.set(WallClock.date(2026, 11, 22, 8, 9))
        let apart = try ledger.database.medications.log(
            [MedicationInput(medicationID: "modafinil", amount: 200, takenAt: WallClock.date(2026, 11, 22, 8, 5))],
            confirmations: [], clock: clock.store)
        #expect(!apart[0].confirmedDuplicate)
        for bad in [
            MedicationInput(medicationID: "aspirin", amount: 1), MedicationInput(medicationID: "adderall_ir", amount: 31),
            MedicationInput(medicationID: "adderall_ir", amount: 1, unit: .mL), MedicationInput(medicationID: "xywav", amount: 0),
        ] {
            #expect(F.refusal { _ = try ledger.database.medications.log([bad], confirmations: [], clock: clock.store) }?.code == .invalidInput)
        }
        let liquid = try ledger.database.medications.log(
            [MedicationInput(medicationID: "xywav", amount: 4.5, unit: .mL)], confirmations: [], clock: clock.store)
        #expect(liquid[0].doseMg == 2250)
        let edited = try ledger.database.medications.edit(
            liquid[0].id, takenAt: nil, amount: 9, unit: .mL, note: .some("measured again"), confirmations: [], clock: clock.store)
        #expect(edited.doseMg == 4500)
        _ = try ledger.database.medications.delete(edited.id, clock: clock.store)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action IN ('edit_medication', 'delete_medication')") == 2)
        }
    }

    @Test("editing an event rewrites it, keeps the old values in the audit log, and history follows")
    func editEvent() throws {
        let (ledger, clock) = try F.afterDose1()
        let dose2 = try F.act(ledger, .dose2, at: F.minutes(170), clock: clock).decision.event!
        try F.act(ledger, .checkIn(MorningCheckIn()), at: F.minutes(540), clock: clock)
        clock.set(F.minutes(600))
        let edit = try ledger.database.journal.editEvent(
            dose2.id, occurredAt: F.minutes(140), note: .some("really took it early"), clock: clock.store)
        #expect(edit.after?.metadata.isEarly == true)
        let night = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2026-11-21")!).first)
        #expect(night.intervalMinutes == 140)
        #expect(night.session.events.first { $0.kind == .dose2 }?.note == "really took it early")
        try ledger.database.read { (db: Database) throws in
            let details = try #require(try String.fetchOne(db, sql: "SELECT details FROM audit_log WHERE action = 'edit_event'"))
            #expect(details.contains(ISO8601.string(F.minutes(170))))
            #expect(details.contains(ISO8601.string(F.minutes(140))))
        }
        let deleted = try ledger.database.journal.deleteEvent(dose2.id, clock: clock.store)
        #expect(deleted.after == nil)
        try ledger.database.read { (db: Database) throws in
            // Without Dose 2 the closed night reads as slept through.
            #expect(try String.fetchOne(db, sql: "SELECT terminal_state FROM sleep_sessions") == "expired")
            #expect(try Int.fetchOne(db, sql: "SELECT interval_minutes FROM sleep_sessions") == nil)
        }
        #expect(
            F.refusal {
                _ = try ledger.database.journal.editEvent(EventID(rawValue: "missing"), occurredAt: nil, note: .some("x"), clock: clock.store)
            }?
            .code == .notFound)
    }

    @Test("the full check-in is stored and read back whole; editing it replaces the answers and is audited")
    func fullCheckIn() throws {
        let (ledger, clock) = try F.afterDose1()
        var answers = MorningCheckIn()
        answers.sleepInertia = .moreThanHour
        answers.dreamRecall = .nightmares
        answers.hadHallucinations = true
        answers.hasRespiratorySymptoms = true
        var respiratory = RespiratorySymptoms()
        respiratory.cough = .productive
        answers.respiratory = respiratory
        answers.sleepTherapy = [.cpap]
        var environment = SleepEnvironment()
        environment.sleepAids = [.earplugs, .whiteNoise]
        environment.soundType = .rain
        environment.roomDarkness = .dark
        answers.environment = environment
        try F.act(ledger, .checkIn(answers), at: F.minutes(540), clock: clock)
        let stored = try #require(try ledger.database.history.nights(on: SessionKey(parsing: "2026-11-21")!).first?.checkIn)
        #expect(stored == (try answers.validated()))
        var changed = stored
        changed.sleepQuality = 5
        let saved = try ledger.database.journal.editCheckIn(on: SessionKey(parsing: "2026-11-21")!, answers: changed, clock: clock.store)
        #expect(saved.sleepQuality == 5)
        try ledger.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT wellness_score FROM morning_checkins") == saved.wellnessScore)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'edit_checkin'") == 1)
        }
        // The next night: "same as usual" copies aids, darkness and noise from this one.
        let next = WallClock.date(2026, 11, 22, 22, 30)
        try F.act(ledger, .dose1, at: next, clock: clock)
        var usual = MorningCheckIn()
        var shortcut = SleepEnvironment()
        shortcut.sameAsUsual = true
        usual.environment = shortcut
        let outcome = try F.act(ledger, .checkIn(usual), at: F.minutes(540, after: next), clock: clock)
        #expect(outcome.decision.checkIn?.environment?.sleepAids == [.earplugs, .whiteNoise])
        #expect(outcome.decision.checkIn?.environment?.roomDarkness == .dark)
        #expect(outcome.decision.checkIn?.environment?.soundType == .unknown)
    }

    @Test("'same as usual' with no earlier environment is refused, not guessed")
    func sameAsUsualWithoutHistory() throws {
        let (ledger, clock) = try F.afterDose1()
        var answers = MorningCheckIn()
        var environment = SleepEnvironment()
        environment.sameAsUsual = true
        answers.environment = environment
        #expect(F.refusal { try F.act(ledger, .checkIn(answers), at: F.minutes(540), clock: clock) }?.code == .invalidInput)
    }

    @Test("migrating a v1 database to the current schema keeps its data")
    func migrationFromV1() throws {
        let directory = try F.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v1.sqlite").path
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Schema.migrations[0].name) { db in
            try Schema.migrations[0].body(db)
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        try migrator.migrate(queue)
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO sleep_sessions (id, session_date, started_at, time_zone) VALUES ('s', '2026-11-21', '2026-11-22T03:30:00.000Z', 'UTC')"
            )
            try db.execute(sql: "INSERT INTO audit_log (id, at, action, details) VALUES ('a', '2026-11-22T03:30:00.000Z', 'setting', '{}')")
        }
        try queue.close()
        let database = try AppDatabase.open(path: path)
        try database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == Schema.version)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit_log") == 1)
            #expect(try db.tableExists("medication_events"))
        }
    }
}
