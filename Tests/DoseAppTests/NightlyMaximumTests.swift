import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import Testing

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
}
