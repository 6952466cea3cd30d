import Foundation

/// A night that imported events join (events.csv, the original app's export): what an imported dose event needs to
/// know of it, kept up to date as events join, so a night of many rows is checked in one pass rather than re-read for
/// every row. Imported doses get their Dose 2 flags and indexes from the night's own doses, whatever the source said.
public struct JoiningNight: Sendable {
    var dose1At: Date?
    var hasDose2: Bool
    var doseCount: Int
    var snoozeCount: Int

    /// Why an imported event cannot join the night.
    public struct Refusal: Error, Sendable {
        /// In words, for the import's report.
        public let reason: String
    }

    /// The night as its recorded events leave it.
    public init(_ facts: NightFacts) {
        dose1At = facts.dose1?.occurredAt
        hasDose2 = facts.dose2 != nil
        doseCount = facts.doseCount
        snoozeCount = facts.snoozes.count
    }

    /// The event as it joins: Dose 2's early/late flags and the dose and snooze indexes come from the night; or the
    /// reason it cannot join. A joining event is counted in the night.
    public mutating func join(_ imported: NightEvent) -> Result<NightEvent, Refusal> {
        if let reason = conflict(of: imported) { return .failure(Refusal(reason: reason)) }
        var event = imported
        switch event.kind {
        case .dose1: event.metadata.doseIndex = 1
        case .dose2:
            if let dose1At { event.metadata.classifyDose2(at: event.occurredAt, dose1: dose1At) }
            event.metadata.doseIndex = 2
        case .extraDose where event.metadata.doseIndex == nil: event.metadata.doseIndex = doseCount + 1
        case .snooze where event.metadata.snoozeCount == nil: event.metadata.snoozeCount = snoozeCount + 1
        default: break
        }
        add(event)
        return .success(event)
    }

    /// Why an imported dose event cannot join the night, if it cannot.
    func conflict(of event: NightEvent) -> String? {
        switch event.kind {
        case .dose1:
            return dose1At != nil ? "that night already has Dose 1" : nil
        case .dose2, .dose2Skipped, .snooze, .extraDose:
            guard let dose1At else { return "\(event.kind.label) without a Dose 1 that night" }
            if event.occurredAt < dose1At { return "\(event.kind.label) before that night's Dose 1" }
            if event.kind == .dose2, hasDose2 { return "that night already has Dose 2" }
            return nil
        default:
            return nil
        }
    }

    private mutating func add(_ event: NightEvent) {
        switch event.kind {
        case .dose1 where dose1At == nil:
            dose1At = event.occurredAt
            doseCount += 1
        case .dose2 where !hasDose2:
            hasDose2 = true
            doseCount += 1
        case .extraDose: doseCount += 1
        case .snooze: snoozeCount += 1
        default: break
        }
    }
}
