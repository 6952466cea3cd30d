import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import DoseStore

/// D20 through the night service: extras sent together make one, and a caregiver's is refused.
@Suite("The nightly maximum through the use cases")
struct NightlyMaximumTests {
    @Test("sixteen extras sent at once, half of them a caregiver's, keep exactly one: the person's")
    func racingExtras() async throws {
        let fixture = try AppFixture(at: UseCaseTests.dose1)
        try fixture.perform(.dose1, at: UseCaseTests.dose1)
        try fixture.perform(.dose2, at: UseCaseTests.dose1.addingTimeInterval(170 * 60))
        fixture.time.set(UseCaseTests.dose1.addingTimeInterval(180 * 60))
        let app = fixture.app
        let answers = await withTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask {
                    var action = NightAction(.dose2, confirmations: [.extra])
                    if index.isMultiple(of: 2) { action.actor = "bob@example.org" }
                    do {
                        _ = try app.night.perform(action, from: .api)
                        return index.isMultiple(of: 2) ? "caregiver recorded" : "recorded"
                    } catch let error as DoseError {
                        return "\(error.code)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers.filter { $0 == "recorded" }.count == 1, "\(answers)")
        #expect(answers.filter { $0 == "caregiver recorded" }.isEmpty, "\(answers)")
        #expect(answers.filter { $0 == "\(ErrorCode.forbidden)" }.count == 8, "\(answers)")
        #expect(answers.filter { $0 == "\(ErrorCode.nightlyMaximum)" }.count == 7, "\(answers)")
        let status = try fixture.app.night.status()
        #expect(status.status.extraDoseCount == 1)
        #expect(NightFacts(status.session?.events ?? []).extraDoses.allSatisfy { $0.metadata.actedBy == nil })
    }

    @Test("a dose taken anyway is audited with the night's total and its maximum, on each store", arguments: EachStore.kinds)
    func takenAnywayAudited(_ kind: String) throws {
        let each = try EachStore(kind, at: UseCaseTests.dose1)
        defer { each.close() }
        for key in ["dose1_mg", "dose2_mg"] { _ = try each.environment.useCases().settings.update(key, to: "3000", confirmations: []) }
        func perform(_ kind: NightAction.Kind, minutes: Double, confirming: Set<ConfirmKind> = []) throws -> ActionOutcome {
            try each.app(at: UseCaseTests.dose1.addingTimeInterval(minutes * 60)).night.perform(
                NightAction(kind, confirmations: confirming), from: .cli)
        }
        _ = try perform(.dose1, minutes: 0)
        _ = try perform(.dose2, minutes: 170)
        _ = try perform(.dose2, minutes: 180, confirming: [.extra])
        let anyway = try perform(.takenAnyway(amountMilligrams: 3000), minutes: 185)
        let event = try #require(anyway.decision.recorded.last)
        let rows = try each.rows("SELECT action, session_id, entity_id, details FROM audit_log WHERE action <> 'setting' ORDER BY at", columns: 4)
        #expect(rows.count == 1, "\(rows)")
        let row = try #require(rows.first)
        #expect(row[0] == "taken_anyway" && row[1] == anyway.decision.session.id.rawValue && row[2] == event.id.rawValue, "\(row)")
        let details = try #require(try JSONSerialization.jsonObject(with: Data(row[3].utf8)) as? [String: String])
        #expect(details["amount_mg"] == "3000" && details["night_mg"] == "12000" && details["maximum_mg"] == "9000", "\(details)")
        #expect(details["event_type"] == "extra_dose", "\(details)")
    }
}
