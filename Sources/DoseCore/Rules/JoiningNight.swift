import Foundation

/// A night that imported events join (events.csv, the original app's export): what an imported dose event needs to
/// know of it, kept up to date as events join, so a night of many rows is checked in one pass rather than re-read for
/// every row. Imported doses get their Dose 2 flags and indexes from the night's own doses, whatever the source said.
public struct JoiningNight: Sendable {
    var dose1At: Date?
    var window: DoseWindow?
    var hasDose2: Bool
    var doseCount: Int
    var snoozeCount: Int
    /// The regimen an imported Dose 1 that states none was taken under.
    let unstatedRegimen: DoseRegimen

    /// Why an imported event cannot join the night.
    public struct Refusal: Error, Sendable {
        /// In words, for the import's report.
        public let reason: String
    }

    /// The night as its recorded events leave it; an imported Dose 1 that states no regimen gets `unstatedRegimen` (the
    /// original app's nights were twice nightly; a file of DoseTap's own without one is the person's current regimen).
    public init(_ facts: NightFacts, unstatedRegimen: DoseRegimen) {
        self.unstatedRegimen = unstatedRegimen
        dose1At = facts.dose1?.occurredAt
        window = facts.window
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
        case .dose1:
            event.metadata.doseIndex = 1
            if event.metadata.regimen == nil { event.metadata.regimen = unstatedRegimen }
        case .dose2:
            if let dose1At, let window { event.metadata.classifyDose2(at: event.occurredAt, dose1: dose1At, window: window) }
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
            if event.kind != .extraDose, window == nil { return "that night's regimen is once nightly: it has no Dose 2" }
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
            window = NightFacts.window(of: event)
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
