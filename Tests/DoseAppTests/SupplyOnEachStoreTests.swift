import DoseCore
import DoseTestSupport
import Foundation
import Testing

@testable import DoseApp

@Suite("The supply on each store")
struct SupplyOnEachStoreTests {
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { WallClock.date(2026, 11, day, hour, minute) }

    @Test("a refill, a dose counted from it, a deletion audited, and a day's refill reminder claimed once", arguments: EachStore.kinds)
    func supply(_ kind: String) throws {
        let each = try EachStore(kind, at: Self.at(21, 9, 0))
        defer { each.close() }
        let app = each.app(at:)
        let refill = try app(Self.at(21, 9, 0)).supply.logRefill(bottles: nil, ml: 30, at: nil, reason: "pharmacy")
        let mistake = try app(Self.at(21, 9, 1)).supply.adjust(changeML: -5, countedML: nil, at: nil, reason: "spilled")
        #expect(try app(Self.at(21, 9, 2)).supply.report().status.remainingML == 25)
        #expect(try app(Self.at(21, 9, 3)).supply.delete(mistake.id).id == mistake.id)
        #expect(throws: DoseError.self) { try app(Self.at(21, 9, 4)).supply.delete(mistake.id) }
        let report = try app(Self.at(21, 9, 5)).supply.report()
        #expect(report.entries.map(\.id) == [refill.id] && report.status.remainingML == 30)
        // Dose 1 of 2.25 g at 500 mg/mL is 4.5 mL out of the bottle.
        _ = try app(Self.at(21, 22, 30)).night.perform(NightAction(.dose1), from: .cli)
        #expect(try app(Self.at(21, 22, 31)).supply.report().status.remainingML == 25.5)
        // Low (a few nights left): the reminder is due from 10:00, and only once that day, whoever asks.
        #expect(try app(Self.at(22, 9, 59)).supply.claimRefillReminder() == nil)
        let claimed = try app(Self.at(22, 10, 0)).supply.claimRefillReminder()
        #expect(claimed?.status.isLow == true)
        #expect(try app(Self.at(22, 10, 1)).supply.claimRefillReminder() == nil)
        #expect(try each.rows("SELECT CAST(count(*) AS TEXT) FROM refill_reminders", columns: 1) == [["1"]])
        let audit = try each.rows("SELECT action, entity_id FROM audit_log WHERE action <> 'setting' ORDER BY at", columns: 2)
        #expect(audit == [["refill_logged", refill.id], ["inventory_adjustment", mistake.id], ["delete_inventory", mistake.id]], "\(audit)")
    }
}
