public import Foundation

/// A stretch of consecutive nights taken under one regimen: the same product, once or twice nightly, the same amounts
/// and titration step (D19). The report and the insights show each with the outcome of its nights, so a titration
/// step or a switch to once nightly can be read against how the nights went.
public struct RegimenPeriod: Sendable, Hashable {
    /// The regimen, as the period's first night recorded it (nil: nights recorded before nights kept their regimen).
    public let regimen: DoseRegimen?
    /// The first and last night of the stretch.
    public let from: SessionKey
    public let to: SessionKey
    /// Nights with Dose 1 in the stretch.
    public let nights: Int
    /// How many nights had each Dose 2 timing (`one_dose` once nightly).
    public let timings: [DoseTiming: Int]
    /// The mean morning wellness (0–100) of the nights checked in, and how many were.
    public let meanWellness: Int?
    public let checkIns: Int

    /// Nights judged on Dose 2: on target, in the window, early or late.
    public var dose2Taken: Int { [DoseTiming.onTarget, .inWindow, .early, .late].reduce(0) { $0 + (timings[$1] ?? 0) } }

    /// The stretches of `nights` (in date order), a new one wherever the regimen changes; the target is not part of
    /// it (each night is judged against its own).
    public static func of(_ nights: [InsightNight], targetMinutes: Int) -> [RegimenPeriod] {
        var periods: [RegimenPeriod] = []
        var run: [InsightNight] = []
        func key(_ regimen: DoseRegimen?) -> DoseRegimen? {
            regimen.map {
                DoseRegimen(
                    kind: $0.kind, product: $0.product, dosesMilligrams: $0.dosesMilligrams, targetMinutes: nil, titrationStep: $0.titrationStep)
            }
        }
        func close() {
            guard let first = run.first, let last = run.last else { return }
            var timings: [DoseTiming: Int] = [:]
            for night in run { if let timing = DoseTiming.of(night.summary, targetMinutes: targetMinutes) { timings[timing, default: 0] += 1 } }
            let wellness = run.compactMap { $0.checkIn?.wellnessScore }
            periods.append(
                RegimenPeriod(
                    regimen: first.summary.regimen, from: first.summary.date, to: last.summary.date, nights: run.count, timings: timings,
                    meanWellness: wellness.isEmpty ? nil : Int((Double(wellness.reduce(0, +)) / Double(wellness.count)).rounded()),
                    checkIns: wellness.count))
            run = []
        }
        for night in nights where night.summary.dose1 != nil {
            if let current = run.first, key(current.summary.regimen) != key(night.summary.regimen) { close() }
            run.append(night)
        }
        close()
        return periods
    }

    /// "2026-12-01 to 2026-12-07" (one night: its date).
    public var span: String { from == to ? "\(from)" : "\(from) to \(to)" }

    /// "XYWAV twice nightly 3 g + 3 g (titration step of 2026-12-01)".
    public var regimenWords: String {
        guard let regimen else { return "twice nightly, recorded before nights kept their regimen" }
        let amounts = regimen.dosesMilligrams.map(RegimenWords.grams).joined(separator: " + ")
        return "\(RegimenWords.product(regimen.product)) \(RegimenWords.kind(regimen.kind)) \(amounts)"
            + RegimenWords.step(regimen)
    }

    /// "7 nights; Dose 2 on target 5, in window 1, skipped 1; wellness 72 (6 check-ins)".
    public var outcome: String {
        let order: [DoseTiming] = [.onTarget, .inWindow, .early, .late, .skipped, .sleptThrough, .endedWithoutDose2, .undecided]
        let counted = order.compactMap { timing in timings[timing].map { "\(timing.words) \($0)" } }
        var text = "\(nights) night\(nights == 1 ? "" : "s")"
        if regimen?.kind == .onceNightly { text += ", one dose each" }
        if !counted.isEmpty { text += "; Dose 2 " + counted.joined(separator: ", ") }
        if let meanWellness { text += "; wellness \(meanWellness) (\(checkIns) check-in\(checkIns == 1 ? "" : "s"))" }
        return text
    }

    /// The period in one sentence: "2026-12-01 to 2026-12-07, XYWAV twice nightly 3 g + 3 g (titration step of
    /// 2026-12-01): 7 nights; Dose 2 on target 5, …".
    public var sentence: String { "\(span), \(regimenWords): \(outcome)" }
}
