import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseApp
@testable import DoseStore

/// The journal beside the night's events, through the use cases, on each store: the same rules decide on both, and each
/// store keeps what they decided, audited, in one transaction.
@Suite("Medications, pre-sleep logs, check-in corrections and “I'm up” on each store")
struct JournalTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    @Test("a night's journal: the same outcomes, refusals and audit entries on either store", arguments: EachStore.kinds)
    func journal(_ kind: String) throws {
        let each = try EachStore(kind, at: Self.at(21, 21, 0))
        defer { each.close() }
        let app = each.app(at:)
        func count(_ table: String) throws -> Int { Int(try each.rows("SELECT CAST(count(*) AS TEXT) FROM \(table)", columns: 1)[0][0]) ?? -1 }

        // Pre-sleep: the first log starts the night, the second replaces it (audited), and Dose 1 joins that night.
        var log = PreSleepLog()
        log.stressLevel = 2
        let first = try app(Self.at(21, 21, 0)).records.savePreSleep(log, at: nil, note: nil)
        #expect(first.startedSession && !first.replaced && first.completion == .partial)
        log.intendedSleepTime = .in30Minutes
        log.bodyPain = BodyPain.none
        log.caffeineCups = 1
        log.alcoholDrinks = 0
        log.exercise = ExerciseLevel.light
        log.napToday = NapToday.none
        let second = try app(Self.at(21, 21, 10)).records.savePreSleep(log, at: nil, note: "calm evening")
        #expect(second.replaced && !second.startedSession && second.sessionID == first.sessionID && second.completion == .complete)
        let night = try app(Self.at(21, 22, 30)).night.perform(NightAction(.dose1), from: .cli).decision.session.id
        #expect(night == first.sessionID)
        #expect(try each.rows("SELECT completion_state, note FROM pre_sleep_logs", columns: 2) == [["complete", "calm evening"]])

        // Medications: a batch is checked whole; a duplicate within five minutes is refused and writes nothing until confirmed.
        let batch = try app(Self.at(21, 22, 35)).medications.log(
            [MedicationInput(medicationID: "adderall_ir", amount: 10), MedicationInput(medicationID: "modafinil", amount: 0.2, unit: .g)],
            confirmations: [])
        #expect(batch.map(\.doseMg) == [10, 200] && batch.allSatisfy { $0.sessionID == night && $0.sessionDate.description == "2026-11-21" })
        #expect(Set(batch.map(\.batchID)).count == 1)
        let duplicate = [MedicationInput(medicationID: "modafinil", amount: 200)]
        #expect(throws: DoseError.self) { try app(Self.at(21, 22, 38)).medications.log(duplicate, confirmations: []) }
        #expect(try count("medication_events") == 2)
        let confirmed = try app(Self.at(21, 22, 38)).medications.log(duplicate, confirmations: [.duplicate])
        #expect(confirmed.first?.confirmedDuplicate == true)
        // Moving the first modafinil next to the confirmed one needs the confirmation again; a new amount does not.
        let modafinil = batch[1].id
        #expect(throws: DoseError.self) {
            try app(Self.at(21, 22, 40)).medications.edit(
                modafinil, takenAt: Self.at(21, 22, 40), amount: nil, unit: nil, note: nil, confirmations: [])
        }
        let edited = try app(Self.at(21, 22, 41)).medications.edit(
            batch[0].id, takenAt: nil, amount: 20, unit: nil, note: "with food", confirmations: [])
        #expect(edited.doseMg == 20 && edited.note == "with food" && edited.takenAt == batch[0].takenAt && edited.sessionID == night)
        let deleted = try app(Self.at(21, 22, 42)).medications.delete(confirmed[0].id)
        #expect(deleted.id == confirmed[0].id)
        #expect(throws: DoseError.self) { try app(Self.at(21, 22, 43)).medications.find(confirmed[0].id) }
        #expect(Set(try app(Self.at(21, 22, 43)).medications.list().map(\.id)) == [batch[0].id, batch[1].id])

        // "I'm up" answers the open night, once per tap.
        let up = try app(Self.at(22, 1, 20)).alarms.acknowledge(from: .cli)
        #expect(up.sessionID == night.rawValue && up.answered.isEmpty)
        #expect(try each.rows("SELECT session_id, surface FROM alarm_acknowledgements", columns: 2) == [[night.rawValue, "cli"]])
        // A delivery attempt, recorded as the delivery log records it, is what an instance taking over reads back.
        let fireAt = Self.at(22, 1, 15)
        try app(Self.at(22, 1, 21)).alarms.record(
            AlarmDeliveryRecord(
                sessionID: night.rawValue, kind: "window_open", fireAt: fireAt, channel: .webhook, audience: .sleeper, target: "hooks.example.org",
                attempt: 1, outcome: .accepted, durationMilliseconds: 12, at: Self.at(22, 1, 21)))
        let attempts = try app(Self.at(22, 1, 22)).alarms.deliveries(night: night)
        #expect(attempts.map(\.kind) == ["window_open"] && attempts.first?.fireAt == fireAt && attempts.first?.outcome == .accepted, "\(attempts)")
        #expect(try app(Self.at(22, 1, 22)).alarms.log(session: night).acknowledgements.map(\.surface) == [.cli])

        // The check-in, then its correction: the answers change, the old ones are audited.
        _ = try app(Self.at(22, 1, 35)).night.perform(NightAction(.dose2), from: .cli)
        var answers = MorningCheckIn()
        answers.sleepQuality = 2
        let checkIn = try app(Self.at(22, 7, 0)).night.perform(NightAction(.checkIn(answers)), from: .cli).decision.recorded[0]
        #expect(try !app(Self.at(22, 7, 1)).records.hasUsualSleepEnvironment())
        answers.sleepQuality = 5
        let corrected = try app(Self.at(22, 7, 5)).records.editCheckIn(on: SessionKey(parsing: "2026-11-21")!, answers: answers)
        #expect(corrected.sleepQuality == 5)
        #expect(try each.rows("SELECT CAST(sleep_quality AS TEXT) FROM morning_checkins", columns: 1) == [["5"]])
        #expect(throws: DoseError.self) { try app(Self.at(22, 7, 6)).records.editCheckIn(on: SessionKey(parsing: "2026-11-20")!, answers: answers) }
        let found = try #require(try app(Self.at(22, 7, 6)).records.recordedEvent(checkIn.id))
        #expect(found.event.kind == .checkIn && found.session.id == night)

        let audit = try each.rows("SELECT action, session_id, entity_id, details FROM audit_log WHERE action <> 'setting' ORDER BY at", columns: 4)
        #expect(audit.map(\.[0]) == ["replace_presleep", "edit_medication", "delete_medication", "edit_checkin"], "\(audit)")
        #expect(audit.allSatisfy { $0[1] == night.rawValue }, "\(audit)")
        #expect(audit.map(\.[2]) == [first.id, batch[0].id, confirmed[0].id, checkIn.id.rawValue], "\(audit)")
        let medicationEdit = try #require(try JSONSerialization.jsonObject(with: Data(audit[1][3].utf8)) as? [String: String])
        #expect(medicationEdit["dose_mg"] == "10.0" && medicationEdit["new_dose_mg"] == "20.0", "\(medicationEdit)")
        let checkInEdit = try #require(try JSONSerialization.jsonObject(with: Data(audit[3][3].utf8)) as? [String: String])
        #expect(checkInEdit["before"]?.contains("\"sleep_quality\":2") == true && checkInEdit["after"]?.contains("\"sleep_quality\":5") == true)
    }
}
