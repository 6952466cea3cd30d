import DoseCore
import Foundation

/// The oxybate and its regimen, as setup's medication step and Settings offer them: each product with what its label
/// allows, so choosing Lumryz shows (and, with script, chooses) once nightly.
struct MedicationChoices {
    struct Product {
        let value, label: String
        let checked: Bool
        /// What the label allows, in words: "once nightly, up to 9 g at bedtime".
        let help: String
        /// The regimens it allows, comma-separated, for the page to choose the only one.
        let kinds: String
    }

    struct Regimen {
        let value, label: String
        let checked: Bool
    }

    let products: [Product]
    let regimens: [Regimen]

    /// The choices with `settings`' product and regimen chosen, or those `typed` on a page sent back with a refusal.
    init(_ settings: DoseSettings, typed: [String: String] = [:]) {
        let product = typed[SettingKey.medicationProduct.rawValue] ?? settings.medicationProduct
        let regimen = typed[SettingKey.regimen.rawValue] ?? settings.regimenKind.rawValue
        products = RegimenCatalogue.entries.map { entry in
            Product(
                value: entry.product, label: RegimenWords.product(entry.product), checked: entry.product == product, help: Self.help(entry),
                kinds: entry.kinds.map(\.rawValue).joined(separator: ","))
        }
        regimens = DoseRegimen.Kind.allCases.map { Regimen(value: $0.rawValue, label: RegimenWords.kindTitle($0), checked: $0.rawValue == regimen) }
    }

    /// What a product's label allows: "XYWAV: twice nightly, up to 4.5 g a dose; or once nightly, up to 6 g at bedtime".
    static func help(_ entry: RegimenEntry) -> String {
        let allowed = entry.kinds.map { kind in
            let largest = RegimenWords.grams(entry.largestDoseMilligrams[kind] ?? RegimenCatalogue.smallestDoseMilligrams)
            return "\(RegimenWords.kind(kind)), up to \(largest) \(kind == .twiceNightly ? "a dose" : "at bedtime")"
        }
        return "\(RegimenWords.product(entry.product)): " + allowed.joined(separator: "; or ")
    }
}
