import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseStore

/// Deleting nights and Clearing All on a shared store, in PostgreSQL's own statements under the serving role's
/// row-level security: the person's nights and every trace of them go, another person's records stay byte for byte,
/// tonight's night is refused, and nothing is copied into SQLite.
@Suite("A shared store deletes one person's nights and clears one person's records, and no one else's", .serialized)
struct SharedDeletionTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    /// Three nights for each person: doses, a logged event, a check-in, and for Alice a medication.
    static func nights(_ fixture: SharedStoreFixture) throws {
        for day in 1...3 {
            for name in ["alice", "bob"] {
                let app = { (date: Date) -> UseCases in
                    fixture.time.set(date)
                    return fixture.environment(name).useCases()
                }
                _ = try app(at(day, 22, 0)).night.perform(NightAction(.dose1), from: .api)
                _ = try app(at(day, 22, 30)).night.perform(NightAction(.log(event: "bathroom")), from: .api)
                _ = try app(at(day + 1, 0, 50)).night.perform(NightAction(.dose2), from: .api)
                if name == "alice" {
                    _ = try app(at(day + 1, 1, 0)).medications.log([MedicationInput(medicationID: "modafinil", amount: 100)], confirmations: [])
                }
                _ = try app(at(day + 1, 8, 0)).night.perform(NightAction(.checkIn(MorningCheckIn())), from: .api)
            }
        }
    }

    @Test("Bob deletes a night and then clears all: his records go, Alice's stay as they were, tonight's is refused", SharedStoreFixture.enabled)
    func onlyTheirOwn() throws {
        let fixture = try SharedStoreFixture(now: Self.at(1, 21, 0))
        try Self.nights(fixture)
        let (alice, bob) = (try #require(fixture.people["alice"]?.id), try #require(fixture.people["bob"]?.id))
        let alicesBefore = try fixture.store.contents(of: alice).digests()
        let bobsRows = try fixture.store.rowsOf(bob)
        let copies = fixture.store.sqliteCopiesMade
        fixture.time.set(Self.at(4, 20, 0))
        let records = fixture.environment("bob").useCases().records
        let first = SessionKey(year: 2026, month: 11, day: 1)!

        let preview = try records.deletionPreview(.dates([first]))
        #expect(preview.nights == 1 && preview.events == 3, "Dose 1, Dose 2 and the bathroom: \(preview.words)")
        #expect(try fixture.store.rowsOf(bob) == bobsRows, "a preview removes nothing")
        #expect(throws: DoseError.self) { try records.deleteNights(.dates([first, SessionKey(year: 2026, month: 10, day: 9)!]), surface: "test") }
        #expect(try fixture.store.rowsOf(bob) == bobsRows, "a selection naming a date with no night removes nothing")
        let deleted = try records.deleteNights(.dates([first]), surface: "test")
        #expect(deleted == preview)
        #expect(try records.history(HistoryQuery()).totalNights == 2)
        #expect(try records.nights(on: first).isEmpty)
        let audit = try fixture.store.transaction(readOnly: true, seeing: .person(bob)) { session in
            try session.rows("SELECT details FROM audit_log WHERE person_id = \(bob) AND action = 'delete_session'").map {
                try $0.decode(String.self)
            }
        }
        #expect(audit.count == 1 && audit[0].contains("\"session_date\":\"2026-11-01\"") && audit[0].contains("\"surface\":\"test\""))
        #expect(fixture.store.sqliteCopiesMade == copies, "a deletion makes no copy into SQLite")
        #expect(try fixture.store.contents(of: alice).digests() == alicesBefore, "Alice's records are untouched")

        // Tonight's night cannot be deleted, by date or by Clear Old.
        fixture.time.set(Self.at(4, 22, 0))
        _ = try fixture.environment("bob").useCases().night.perform(NightAction(.dose1), from: .api)
        let tonight = SessionKey(year: 2026, month: 11, day: 4)!
        #expect(throws: DoseError.self) { try fixture.environment("bob").useCases().records.deleteNights(.dates([tonight]), surface: "test") }
        #expect(try fixture.environment("bob").useCases().night.status().session != nil)

        let copiesBeforeClear = fixture.store.sqliteCopiesMade
        #expect(throws: DoseError.self) { try fixture.environment("bob").useCases().transfer.clearAll(confirmation: "clear all") }
        #expect(try fixture.store.rowsOf(bob) > 0, "a wrong phrase clears nothing")
        let cleared = try fixture.environment("bob").useCases().transfer.clearAll(confirmation: AppDatabase.clearAllPhrase)
        #expect(cleared.deleted["sleep_sessions"] == 3 && cleared.deleted["morning_checkins"] == 2 && cleared.deleted["dose_events"] == 5)
        #expect(cleared.remaining.values.allSatisfy { $0 == 0 } && cleared.deleted["server_keys"] == 0)
        #expect(try fixture.store.rowsOf(bob) == 0, "nothing of Bob's is left in any table")
        #expect(try fixture.environment("bob").useCases().night.status().session == nil)
        #expect(fixture.store.sqliteCopiesMade == copiesBeforeClear, "Clear All makes no copy into SQLite")
        #expect(try fixture.store.contents(of: alice).digests() == alicesBefore, "Alice's records are still untouched")
    }
}
