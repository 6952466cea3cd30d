import DoseCore
import Foundation
import Testing

/// Deleting nights (History, `session delete`, Clear Old) must never remove what holds back a second Dose 1: tonight's
/// night, or a night whose last dose is less than 8 hours old (D14).
@Suite("Deleting nights: refused while tonight is open or a dose still counts for D14")
struct NightDeletionRulesTests {
    static let date = SessionKey(parsing: "2026-03-10")!

    /// Deleting a closed night whose last dose (`kind`) was taken at `Fixture.dose1`, `minutes` later.
    func deletion(at minutes: Double, kind: EventKind = .dose2) -> Result<Void, DoseError> {
        let night = NightToDelete(date: Self.date, isOpen: false, latestDose: RecordedDose(kind: kind, at: Fixture.dose1))
        return Result { () throws(DoseError) in try NightRules.refuseDeletion(of: [night], now: Fixture.minutes(minutes), timeZone: Fixture.newYork) }
    }

    @Test(
        "a night whose last dose is less than 8 h old is refused; from 8 h on it may go",
        arguments: [(1.0, true), (479.0, true), (479.99, true), (480.0, false), (480.01, false), (10_000.0, false)])
    func eightHours(minutes: Double, refused: Bool) {
        switch deletion(at: minutes) {
        case .failure(let error):
            #expect(refused)
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("holds a dose taken at 22:30, less than 8 hours ago"))
            #expect(error.message.contains("from 06:30"))
        case .success:
            #expect(!refused)
        }
    }

    @Test(
        "every oxybate dose counts; a skip or a snooze does not",
        arguments: [(EventKind.dose1, true), (.dose2, true), (.extraDose, true), (.dose2Skipped, false), (.snooze, false)])
    func whichDoses(kind: EventKind, refused: Bool) {
        let result = deletion(at: 60, kind: kind)
        if refused { #expect(throws: DoseError.self) { try result.get() } } else { #expect(throws: Never.self) { try result.get() } }
    }

    @Test("tonight's open night is refused even without a dose, and a night with no dose may go")
    func openNight() {
        let now = Fixture.minutes(600)
        let open = NightToDelete(date: Self.date, isOpen: true, latestDose: nil)
        let done = NightToDelete(date: Self.date.adding(days: -1), isOpen: false, latestDose: nil)
        #expect(throws: DoseError.self) { try NightRules.refuseDeletion(of: [done, open], now: now, timeZone: Fixture.utc) }
        #expect(throws: Never.self) { try NightRules.refuseDeletion(of: [done], now: now, timeZone: Fixture.utc) }
        do {
            try NightRules.refuseDeletion(of: [open], now: now, timeZone: Fixture.utc)
        } catch {
            #expect(error.message.contains("the night of 2026-03-10 is still open"))
        }
    }
}
