public import Foundation

/// The one place a regimen and its window are put into words, for the pages, the CLI, the report and the setup
/// diagram: no surface restates a number of the window.
public enum RegimenWords {
    /// "150–240": the window's edges in minutes.
    public static func minutes(_ window: DoseWindow) -> String { "\(window.opensAfterMinutes)–\(window.closesAfterMinutes)" }

    /// "2½–4 hours": the window's edges in hours, halves as ½.
    public static func hours(_ window: DoseWindow) -> String {
        "\(hourText(window.opensAfterMinutes))–\(hourText(window.closesAfterMinutes)) hours"
    }

    /// "the 150–240 minute window".
    public static func windowPhrase(_ window: DoseWindow) -> String { "the \(minutes(window)) minute window" }

    /// "before 150 min" / "240 min or more": D18's early and late, in minutes.
    public static func early(_ window: DoseWindow) -> String { "before \(window.opensAfterMinutes) min" }
    public static func late(_ window: DoseWindow) -> String { "\(window.closesAfterMinutes) min or more" }

    /// "Dose 2 may be taken 150–240 minutes after Dose 1".
    public static func dose2Rule(_ window: DoseWindow) -> String { "Dose 2 may be taken \(minutes(window)) minutes after Dose 1" }

    /// "twice nightly" / "once nightly".
    public static func kind(_ kind: DoseRegimen.Kind) -> String {
        switch kind {
        case .twiceNightly: "twice nightly"
        case .onceNightly: "once nightly"
        }
    }

    /// "Twice nightly" / "Once nightly", as a choice is labelled.
    public static func kindTitle(_ kind: DoseRegimen.Kind) -> String {
        let words = self.kind(kind)
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// The product's name for people.
    public static func product(_ id: String) -> String { (try? MedicationCatalogue.medication(id: id))?.name ?? id }

    /// "2.25 g".
    public static func grams(_ milligrams: Int) -> String { "\(NumberText.plain(Double(milligrams) / 1000)) g" }

    /// The night's doses in words: "2.25 g at bedtime, 2.25 g 150–240 minutes later" or "6 g at bedtime, once".
    public static func doses(_ regimen: DoseRegimen) -> String {
        guard let window = regimen.window, regimen.dosesMilligrams.count == 2 else {
            return "\(grams(regimen.milligrams(ofDose: 1))) at bedtime, one dose a night"
        }
        return "\(grams(regimen.milligrams(ofDose: 1))) at bedtime, \(grams(regimen.milligrams(ofDose: 2))) \(minutes(window)) minutes later"
    }

    /// "XYWAV, twice nightly: 2.25 g at bedtime, 2.25 g 150–240 minutes later".
    public static func summary(_ regimen: DoseRegimen) -> String {
        "\(product(regimen.product)), \(kind(regimen.kind)): \(doses(regimen))"
    }

    /// The short form a night's row shows: "3 g + 3 g" or "6 g once".
    public static func amounts(_ regimen: DoseRegimen) -> String {
        regimen.kind == .onceNightly
            ? "\(grams(regimen.milligrams(ofDose: 1))) once" : regimen.dosesMilligrams.map(grams).joined(separator: " + ")
    }

    /// The amounts of the doses a night really took: both, or Dose 1's alone when Dose 2 was not taken ("2.25 g, Dose 2
    /// not taken"), so a list never shows two doses for a night of one, nor two for a night of four; each extra dose
    /// follows ("3 g + 3 g + 3 g extra").
    public static func amountsTaken(_ regimen: DoseRegimen, dose2Taken: Bool, extrasMilligrams: [Int] = []) -> String {
        let extras = extrasMilligrams.map { " + \(grams($0)) extra" }.joined()
        guard regimen.kind == .twiceNightly, !dose2Taken else { return amounts(regimen) + extras }
        return "\(grams(regimen.milligrams(ofDose: 1))), Dose 2 not taken" + extras
    }

    /// " (titration step of 2026-12-01)" after a regimen taken at a step's amounts; empty at the profile's.
    public static func step(_ regimen: DoseRegimen) -> String {
        regimen.titrationStep.map { " (titration step of \($0))" } ?? ""
    }

    /// What the bedtime dose is called: "Dose 1", or once nightly, where there is no Dose 2, "The dose" (`capitalized`)
    /// or "the dose". A night without a regimen was twice nightly.
    public static func bedtimeDose(_ regimen: DoseRegimen?, capitalized: Bool = true) -> String {
        guard regimen?.kind == .onceNightly else { return "Dose 1" }
        return capitalized ? "The dose" : "the dose"
    }

    /// Why a Dose 2 (or a skip or snooze of it) is refused under a once-nightly regimen, naming the regimen.
    public static func noDose2(_ regimen: DoseRegimen) -> String {
        "Tonight's regimen is \(product(regimen.product)) \(kind(regimen.kind)): there is no Dose 2 to take, skip or snooze."
    }

    private static func hourText(_ minutes: Int) -> String {
        let whole = minutes / 60
        switch minutes % 60 {
        case 0: return "\(whole)"
        case 30: return "\(whole)½"
        default: return NumberText.plain(Double(minutes) / 60)
        }
    }
}
