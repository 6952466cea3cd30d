public import Foundation

/// The regimen a night is taken under: the product, once or twice nightly, each dose's amount, and for twice nightly the
/// wake-alarm target inside the label's window (SPEC D19). Dose 1 carries it, so a night keeps the regimen of its time
/// whatever the settings say later.
public struct DoseRegimen: Hashable, Sendable, Codable {
    /// How many doses a night has.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Dose 1 at bedtime, Dose 2 in the window after it (XYWAV, Xyrem, generic sodium oxybate).
        case twiceNightly = "twice_nightly"
        /// One dose at bedtime (Lumryz; XYWAV for idiopathic hypersomnia).
        case onceNightly = "once_nightly"

        /// How many doses a night of this kind has.
        public var doseCount: Int { self == .twiceNightly ? 2 : 1 }
    }

    /// Once or twice nightly.
    public let kind: Kind
    /// The product's catalogue id (`xywav`, `lumryz`, …).
    public let product: String
    /// Each planned dose's amount in mg, in the order taken: one once nightly, two twice nightly.
    public let dosesMilligrams: [Int]
    /// Twice nightly: minutes after Dose 1 at which the wake alarm rings; nil once nightly.
    public let targetMinutes: Int?
    /// The first night of the titration step whose amounts these are; nil when they are the profile's.
    public let titrationStep: SessionKey?

    /// A regimen; `dosesMilligrams` holds one amount per dose of `kind` (extra amounts are dropped, a missing one
    /// repeats the last), and a once-nightly regimen has no target.
    public init(kind: Kind, product: String, dosesMilligrams: [Int], targetMinutes: Int?, titrationStep: SessionKey? = nil) {
        self.kind = kind
        self.product = product
        let amounts = dosesMilligrams.isEmpty ? [0] : dosesMilligrams
        self.dosesMilligrams = (0..<kind.doseCount).map { amounts[min($0, amounts.count - 1)] }
        self.targetMinutes = kind == .twiceNightly ? targetMinutes : nil
        self.titrationStep = titrationStep
    }

    /// The Dose 2 window: the label's for twice nightly, none once nightly.
    public var window: DoseWindow? { kind == .twiceNightly ? .label : nil }

    /// The window a Dose 1 with `regimen` opens; one recorded before nights kept their regimen (nil) was twice nightly,
    /// in the label's window.
    public static func window(of regimen: DoseRegimen?) -> DoseWindow? { regimen.map(\.window) ?? .label }

    /// Milligrams a full night takes.
    public var nightlyMilligrams: Int { dosesMilligrams.reduce(0, +) }

    /// The most a night under this regimen may hold (D20): the label's largest nightly amount (9 g for XYWAV, Xyrem and
    /// the generic twice nightly, 6 g for XYWAV once nightly, 9 g for Lumryz).
    public var nightlyMaximumMilligrams: Int {
        RegimenCatalogue.entry(product)?.nightlyMaximumMilligrams(kind) ?? RegimenCatalogue.nightlyMaximumMilligrams
    }

    /// The planned amount of dose `index` (1 for Dose 1); an extra dose counts at the night's last dose's amount.
    public func milligrams(ofDose index: Int) -> Int {
        dosesMilligrams[min(max(index, 1), dosesMilligrams.count) - 1]
    }

    /// The regimen of a night whose Dose 1 was recorded before nights carried one: every such night was twice nightly,
    /// the only regimen DoseTap had, with the label's window; its product, amounts and target are the profile's.
    public static func recordedBeforeRegimens(_ settings: DoseSettings) -> DoseRegimen {
        DoseRegimen(
            kind: .twiceNightly, product: settings.medicationProduct, dosesMilligrams: [settings.dose1Milligrams, settings.dose2Milligrams],
            targetMinutes: settings.targetIntervalMinutes)
    }

    enum CodingKeys: String, CodingKey {
        case kind, product, dosesMilligrams = "doses_mg", targetMinutes = "target_minutes", titrationStep = "titration_step"
    }

    /// The titration step is written as its date, `yyyy-MM-dd`, and only when there is one, so a night at the profile's
    /// amounts keeps the bytes it had before plans existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(product, forKey: .product)
        try container.encode(dosesMilligrams, forKey: .dosesMilligrams)
        try container.encodeIfPresent(targetMinutes, forKey: .targetMinutes)
        try container.encodeIfPresent(titrationStep?.description, forKey: .titrationStep)
    }

    /// Decoded through `init(kind:…)`, so a stored regimen is held to one amount per dose like a new one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(Kind.self, forKey: .kind), product: try container.decode(String.self, forKey: .product),
            dosesMilligrams: try container.decode([Int].self, forKey: .dosesMilligrams),
            targetMinutes: try container.decodeIfPresent(Int.self, forKey: .targetMinutes),
            titrationStep: try container.decodeIfPresent(String.self, forKey: .titrationStep).flatMap(SessionKey.init(parsing:)))
    }
}

/// What each oxybate product admits: the regimens its label allows, the largest single dose of each, and how fast a
/// nightly amount may rise. The one place a new product or regimen is described.
public struct RegimenEntry: Sendable, Hashable {
    /// The product's catalogue id.
    public let product: String
    /// The regimens the label allows, the usual first.
    public let kinds: [DoseRegimen.Kind]
    /// The largest single dose in mg under each regimen.
    public let largestDoseMilligrams: [DoseRegimen.Kind: Int]
    /// The label's largest increase of the nightly amount in one week, in mg.
    public let weeklyIncreaseMilligrams: Int
    /// Why the regimens are what they are, for a refusal.
    public let kindsReason: String

    /// Whether the label allows `kind`.
    public func allows(_ kind: DoseRegimen.Kind) -> Bool { kinds.contains(kind) }

    /// The amounts one dose may have under `kind`.
    public func doseRange(_ kind: DoseRegimen.Kind) -> ClosedRange<Int> {
        RegimenCatalogue.smallestDoseMilligrams...(largestDoseMilligrams[kind] ?? RegimenCatalogue.smallestDoseMilligrams)
    }

    /// The label's largest nightly amount under `kind` (D20): its largest dose, once for each of the regimen's doses.
    public func nightlyMaximumMilligrams(_ kind: DoseRegimen.Kind) -> Int { doseRange(kind).upperBound * kind.doseCount }
}

/// The products DoseTap times and their regimens.
public enum RegimenCatalogue {
    /// The smallest amount of one dose DoseTap accepts, in mg.
    public static let smallestDoseMilligrams = 250

    /// Every oxybate product with its regimens. XYWAV and Xyrem: up to 9 g a night in two doses (4.5 g each), titrated by
    /// up to 1.5 g a night each week; XYWAV for idiopathic hypersomnia may be taken once nightly, up to 6 g. Lumryz: once
    /// at bedtime, 4.5–9 g, increased by 1.5 g a week.
    public static let entries: [RegimenEntry] = [
        RegimenEntry(
            product: "xywav", kinds: [.twiceNightly, .onceNightly], largestDoseMilligrams: [.twiceNightly: 4500, .onceNightly: 6000],
            weeklyIncreaseMilligrams: 1500, kindsReason: "XYWAV is taken twice nightly, or once nightly for idiopathic hypersomnia"),
        RegimenEntry(
            product: "xyrem", kinds: [.twiceNightly], largestDoseMilligrams: [.twiceNightly: 4500], weeklyIncreaseMilligrams: 1500,
            kindsReason: "Xyrem is taken twice nightly"),
        RegimenEntry(
            product: "sodium_oxybate", kinds: [.twiceNightly], largestDoseMilligrams: [.twiceNightly: 4500], weeklyIncreaseMilligrams: 1500,
            kindsReason: "generic sodium oxybate oral solution is taken twice nightly"),
        RegimenEntry(
            product: "lumryz", kinds: [.onceNightly], largestDoseMilligrams: [.onceNightly: 9000], weeklyIncreaseMilligrams: 1500,
            kindsReason: "Lumryz is taken once nightly, at bedtime"),
    ]

    /// The entry of a product, or nil when DoseTap does not time it.
    public static func entry(_ product: String) -> RegimenEntry? { entries.first { $0.product == product.lowercased() } }

    /// The largest nightly amount of any product's label, in mg (9 g): the maximum of a night whose product DoseTap does
    /// not time.
    public static var nightlyMaximumMilligrams: Int {
        entries.flatMap { entry in entry.kinds.map(entry.nightlyMaximumMilligrams) }.max() ?? smallestDoseMilligrams
    }

    /// The largest single dose any regimen allows, in mg: the bound a stored amount is checked against before the
    /// regimen is known.
    public static var largestDoseMilligrams: Int { entries.flatMap(\.largestDoseMilligrams.values).max() ?? smallestDoseMilligrams }
}
