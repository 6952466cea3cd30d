public import Foundation

/// What kind of medicine a catalogue entry is.
public enum MedicationCategory: String, Sendable, Codable, CaseIterable {
    case stimulant
    case wakefulnessAgent = "wakefulness_agent"
    case histamineModulator = "histamine_modulator"
    case sodiumOxybate = "sodium_oxybate"

    /// Label for people.
    public var label: String {
        switch self {
        case .stimulant: "Stimulant"
        case .wakefulnessAgent: "Wakefulness Agent"
        case .histamineModulator: "Histamine Modulator"
        case .sodiumOxybate: "Sodium Oxybate"
        }
    }
}

/// How a medicine is made.
public enum Formulation: String, Sendable, Codable, CaseIterable {
    case immediateRelease = "immediate_release"
    case extendedRelease = "extended_release"
    case liquid

    /// Label for people.
    public var label: String {
        switch self {
        case .immediateRelease: "Immediate Release"
        case .extendedRelease: "Extended Release"
        case .liquid: "Liquid"
        }
    }
}

/// The unit a dose amount is given in (SPEC §3.5).
public enum DoseUnit: String, Sendable, Codable, CaseIterable {
    case mg
    case g
    case mL
}

/// One medicine of the catalogue (reference §6.11).
public struct Medication: Hashable, Sendable, Codable, Identifiable {
    /// Stable id such as `adderall_xr`.
    public let id: String
    /// Name for people.
    public let name: String
    /// Its group.
    public let category: MedicationCategory
    /// How it is made.
    public let formulation: Formulation
    /// The usual single dose in mg.
    public let defaultDoseMg: Double
    /// The strengths it comes in, in mg.
    public let validDosesMg: [Double]
    /// Milligrams per millilitre for liquids, so that a dose in mL can be checked.
    public let mgPerML: Double?

    /// Whether it is taken as a split night (Dose 1 at bedtime, Dose 2 in the window): an oxybate oral solution.
    public var isSplitNight: Bool { category == .sodiumOxybate && formulation == .liquid }
}

/// The medication catalogue and the checks on a logged dose.
public enum MedicationCatalogue {
    /// Same medication within this many minutes, in either direction, is a suspected duplicate.
    public static let duplicateGuardMinutes = 5

    /// Every medication DoseTap knows, in display order.
    public static let all: [Medication] = [
        .init(
            id: "adderall_ir", name: "Adderall", category: .stimulant, formulation: .immediateRelease, defaultDoseMg: 10,
            validDosesMg: [5, 10, 15, 20, 25, 30], mgPerML: nil),
        .init(
            id: "adderall_xr", name: "Adderall XR", category: .stimulant, formulation: .extendedRelease, defaultDoseMg: 20,
            validDosesMg: [5, 10, 15, 20, 25, 30], mgPerML: nil),
        .init(
            id: "ritalin_ir", name: "Ritalin", category: .stimulant, formulation: .immediateRelease, defaultDoseMg: 10,
            validDosesMg: [5, 10, 15, 20],
            mgPerML: nil),
        .init(
            id: "ritalin_la", name: "Ritalin LA", category: .stimulant, formulation: .extendedRelease, defaultDoseMg: 20,
            validDosesMg: [10, 20, 30, 40],
            mgPerML: nil),
        .init(
            id: "concerta", name: "Concerta", category: .stimulant, formulation: .extendedRelease, defaultDoseMg: 36, validDosesMg: [18, 27, 36, 54],
            mgPerML: nil),
        .init(
            id: "vyvanse", name: "Vyvanse", category: .stimulant, formulation: .extendedRelease, defaultDoseMg: 30,
            validDosesMg: [10, 20, 30, 40, 50, 60, 70],
            mgPerML: nil),
        .init(
            id: "dexedrine", name: "Dexedrine", category: .stimulant, formulation: .immediateRelease, defaultDoseMg: 10, validDosesMg: [5, 10, 15],
            mgPerML: nil
        ),
        .init(
            id: "modafinil", name: "Modafinil", category: .wakefulnessAgent, formulation: .immediateRelease, defaultDoseMg: 200,
            validDosesMg: [100, 200],
            mgPerML: nil),
        .init(
            id: "provigil", name: "Provigil", category: .wakefulnessAgent, formulation: .immediateRelease, defaultDoseMg: 200,
            validDosesMg: [100, 200],
            mgPerML: nil),
        .init(
            id: "armodafinil", name: "Armodafinil", category: .wakefulnessAgent, formulation: .immediateRelease, defaultDoseMg: 150,
            validDosesMg: [50, 150, 200, 250], mgPerML: nil),
        .init(
            id: "nuvigil", name: "Nuvigil", category: .wakefulnessAgent, formulation: .immediateRelease, defaultDoseMg: 150,
            validDosesMg: [50, 150, 200, 250],
            mgPerML: nil),
        .init(
            id: "sunosi", name: "Sunosi", category: .wakefulnessAgent, formulation: .immediateRelease, defaultDoseMg: 75, validDosesMg: [75, 150],
            mgPerML: nil),
        .init(
            id: "wakix", name: "Wakix", category: .histamineModulator, formulation: .immediateRelease, defaultDoseMg: 35,
            validDosesMg: [5, 9, 18, 35],
            mgPerML: nil),
        // XYWAV and Xyrem oral solutions are 0.5 g/mL.
        .init(
            id: "xywav", name: "XYWAV", category: .sodiumOxybate, formulation: .liquid, defaultDoseMg: 4500,
            validDosesMg: [2250, 3000, 3750, 4500, 6000, 7500, 9000], mgPerML: 500),
        .init(
            id: "xyrem", name: "Xyrem", category: .sodiumOxybate, formulation: .liquid, defaultDoseMg: 4500,
            validDosesMg: [2250, 3000, 3750, 4500, 6000, 7500, 9000], mgPerML: 500),
        .init(
            id: "sodium_oxybate", name: "Sodium oxybate (generic)", category: .sodiumOxybate, formulation: .liquid, defaultDoseMg: 4500,
            validDosesMg: [2250, 3000, 3750, 4500, 6000, 7500, 9000], mgPerML: 500),
        .init(
            id: "lumryz", name: "Lumryz", category: .sodiumOxybate, formulation: .extendedRelease, defaultDoseMg: 6000,
            validDosesMg: [4500, 6000, 7500, 9000],
            mgPerML: nil),
    ]

    /// The oxybates taken in two doses a night, the second in the window DoseTap times: the oral solutions. Lumryz, an
    /// extended-release oxybate, is taken once at bedtime.
    public static let splitNight = all.filter(\.isSplitNight)

    /// The medication with that id (case-insensitive), or an error listing the ids.
    public static func medication(id: String) throws(DoseError) -> Medication {
        let key = id.trimmingCharacters(in: .whitespaces).lowercased()
        if let medication = all.first(where: { $0.id == key }) { return medication }
        throw .invalidInput(
            field: "medication", problem: "'\(id)' is not in the catalogue",
            allowed: all.map(\.id).joined(separator: ", "))
    }

    /// The smallest amount accepted is this fraction of the smallest strength (a quarter tablet); anything smaller is
    /// far more likely a wrong unit or a typo than a dose.
    public static let smallestFractionOfStrength = 0.25

    /// The amounts accepted for a medication in a unit: from a quarter of its smallest strength to its largest
    /// strength; nil when the unit does not fit its form (mL for a tablet).
    public static func acceptedAmounts(for medication: Medication, unit: DoseUnit) -> ClosedRange<Double>? {
        guard let perUnit = milligramsPerUnit(unit, for: medication) else { return nil }
        let smallest = (medication.validDosesMg.min() ?? medication.defaultDoseMg) * smallestFractionOfStrength
        let largest = medication.validDosesMg.max() ?? medication.defaultDoseMg
        return (smallest / perUnit)...(largest / perUnit)
    }

    /// Converts an amount to milligrams and checks it against the medication: a number, in a unit its form allows,
    /// between a quarter of its smallest strength and its largest strength (both stated in the unit sent).
    public static func validatedMilligrams(_ amount: Double, unit: DoseUnit, for medication: Medication) throws(DoseError) -> Double {
        guard let perUnit = milligramsPerUnit(unit, for: medication), let accepted = acceptedAmounts(for: medication, unit: unit) else {
            throw .invalidInput(field: "unit", problem: "\(medication.name) is not a liquid, so mL cannot be used", allowed: "mg or g")
        }
        // A tolerance of a millionth keeps 2.25 g (or 4.5 mL of a 500 mg/mL solution) equal to the 2250 mg strength.
        let tolerance = accepted.upperBound * 1e-6
        guard amount.isFinite, amount >= accepted.lowerBound - tolerance, amount <= accepted.upperBound + tolerance else {
            let strengths = medication.validDosesMg.map { format($0 / perUnit) }.joined(separator: ", ")
            let problem =
                amount.isFinite && amount > accepted.upperBound
                ? "\(format(amount)) \(unit.rawValue) is more than the largest \(medication.name) dose"
                : "\(format(amount)) \(unit.rawValue) is not a \(medication.name) dose"
            throw .invalidInput(
                field: "amount", problem: problem,
                allowed: "\(format(accepted.lowerBound))–\(format(accepted.upperBound)) \(unit.rawValue); strengths \(strengths) \(unit.rawValue)")
        }
        return amount * perUnit
    }

    /// How many milligrams one unit holds for this medication; nil for mL of a medicine that is not a liquid.
    static func milligramsPerUnit(_ unit: DoseUnit, for medication: Medication) -> Double? {
        switch unit {
        case .mg: 1
        case .g: 1000
        case .mL: medication.mgPerML
        }
    }

    /// Refuses a second entry of the same medication within five minutes, in either direction, unless confirmed.
    ///
    /// - Parameters:
    ///   - existing: the earlier entries of that medication (their instants).
    public static func checkDuplicate(
        _ medication: Medication, at takenAt: Date, existing: [Date], confirmations: Set<ConfirmKind>, timeZone: TimeZone
    ) throws(DoseError) {
        guard !confirmations.contains(.duplicate) else { return }
        let window = TimeInterval(duplicateGuardMinutes * 60)
        let nearest = existing.min { abs($0.timeIntervalSince(takenAt)) < abs($1.timeIntervalSince(takenAt)) }
        guard let nearest, abs(nearest.timeIntervalSince(takenAt)) < window else { return }
        throw .duplicateMedication(
            name: medication.name, otherAt: nearest, localTime: LocalClock.hourMinute(nearest, in: timeZone),
            minutesApart: Int(abs(nearest.timeIntervalSince(takenAt)) / 60))
    }

    private static func format(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return NumberText.plain(value) }
        // Six decimals at most: 0.5625, 1.125, 562.5; never 0.562499999. A tiny amount keeps its own digits (1e-300).
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return NumberText.plain(rounded == 0 ? value : rounded)
    }
}
