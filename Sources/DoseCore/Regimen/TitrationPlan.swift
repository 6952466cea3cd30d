public import Foundation

/// A prescriber's titration: dated steps of dose amounts ("from 2026-12-01: 3 g + 3 g"). From a step's night on, a new
/// Dose 1 is taken at that step's amounts; before the first step the profile's amounts hold, after the last its amounts
/// stay (D19). Each night keeps the amounts of its own Dose 1, so editing the plan never changes a past night.
public struct TitrationPlan: Hashable, Sendable, Codable {
    /// One step: the night it starts on and each dose's amount in mg, in the order taken.
    public struct Step: Hashable, Sendable, Codable {
        /// The first night (session date) taken at these amounts.
        public let from: SessionKey
        /// Each dose's amount in mg: one once nightly, two twice nightly.
        public let dosesMilligrams: [Int]

        /// A step.
        public init(from: SessionKey, dosesMilligrams: [Int]) {
            self.from = from
            self.dosesMilligrams = dosesMilligrams
        }

        /// What a night of this step takes in mg.
        public var nightlyMilligrams: Int { dosesMilligrams.reduce(0, +) }
    }

    /// How many steps a plan may hold: a year of weekly steps.
    public static let stepLimit = 52

    /// The steps, in date order, one per date.
    public let steps: [Step]

    /// No plan: the profile's amounts every night.
    public static let none = TitrationPlan(ordered: [])

    private init(ordered steps: [Step]) { self.steps = steps }

    /// The allowed form, for every refusal.
    public static let allowed =
        "steps 'YYYY-MM-DD AMOUNT + AMOUNT' separated by ';' (amounts in g with 'g', or in mg), e.g. "
        + "'2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g'; one amount a step once nightly; empty for no plan"

    /// Parses the text form: steps `YYYY-MM-DD A + B` separated by `;` or new lines, each amount in grams with `g`
    /// ("3.75 g") or in mg ("3750"). Empty or `none` is no plan. `field` names the setting in a refusal.
    public init(parsing text: String, field: String) throws(DoseError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.lowercased() != "none" else {
            self = .none
            return
        }
        func refuse(_ problem: String) -> DoseError { .invalidInput(field: field, problem: problem, allowed: Self.allowed) }
        let parts = trimmed.split(whereSeparator: { $0 == ";" || $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard parts.count <= Self.stepLimit else { throw refuse("\(parts.count) steps; a plan holds at most \(Self.stepLimit)") }
        var steps: [Step] = []
        for part in parts {
            var words = part
            if words.lowercased().hasPrefix("from ") { words = String(words.dropFirst(5)) }
            let dateText = String(words.prefix(10))
            guard let from = SessionKey(parsing: dateText) else {
                throw refuse("'\(part.prefix(40))' does not start with a date YYYY-MM-DD")
            }
            var rest = words.dropFirst(10).trimmingCharacters(in: .whitespaces)
            if rest.hasPrefix(":") { rest = rest.dropFirst().trimmingCharacters(in: .whitespaces) }
            let amounts = rest.split(separator: "+").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !amounts.isEmpty, amounts.count <= 2 else {
                throw refuse("the step of \(from) has \(amounts.count) amounts; a night has one dose or two")
            }
            var doses: [Int] = []
            for amount in amounts {
                guard let milligrams = Self.milligrams(amount) else {
                    throw refuse("'\(amount.prefix(20))' in the step of \(from) is not an amount")
                }
                guard DoseSettings.doseAmountRange.contains(milligrams) else {
                    let range = DoseSettings.doseAmountRange
                    throw refuse(
                        "\(RegimenWords.grams(milligrams)) in the step of \(from) is outside "
                            + "\(RegimenWords.grams(range.lowerBound))–\(RegimenWords.grams(range.upperBound)), the labelled single doses")
                }
                doses.append(milligrams)
            }
            guard !steps.contains(where: { $0.from == from }) else { throw refuse("two steps start on \(from)") }
            steps.append(Step(from: from, dosesMilligrams: doses))
        }
        self.init(ordered: steps.sorted { $0.from < $1.from })
    }

    /// "3.75 g", "3.75g" and "3750" (mg) as mg; nil when it is not an amount or finer than a milligram.
    static func milligrams(_ text: String) -> Int? {
        let lowered = text.lowercased().replacingOccurrences(of: " ", with: "")
        if lowered.hasSuffix("mg") { return Int(lowered.dropLast(2)) }
        if lowered.hasSuffix("g") {
            guard let grams = Double(lowered.dropLast()), grams.isFinite, grams >= 0 else { return nil }
            let milligrams = (grams * 1000).rounded()
            return abs(milligrams - grams * 1000) < 0.000_1 && milligrams < 1_000_000 ? Int(milligrams) : nil
        }
        return Int(lowered)
    }

    /// The stored and shown form: "2026-12-01 3 g + 3 g; 2026-12-08 3.75 g + 3 g", or empty for no plan.
    public var text: String {
        steps.map { "\($0.from) " + $0.dosesMilligrams.map(RegimenWords.grams).joined(separator: " + ") }.joined(separator: "; ")
    }

    /// The step a night is taken under: the last one starting on or before it, or nil before the first.
    public func step(on night: SessionKey) -> Step? { steps.last { $0.from <= night } }

    /// A step that raises the nightly amount faster than the label allows, and why in words.
    public struct FastStep: Hashable, Sendable {
        /// The step.
        public let step: Step
        /// Why it is faster than the label: the increase, and the label's limit.
        public let reason: String

        /// A step and why it is too fast.
        public init(step: Step, reason: String) {
            self.step = step
            self.reason = reason
        }
    }

    /// Each step that raises the nightly amount by more than `entry`'s weekly increase at once, or raises it less than a
    /// week after the last rise: the label titrates by at most that much a week. The first step is compared with
    /// `startingMilligrams`, the nightly amount before the plan.
    public func fastSteps(startingMilligrams: Int, entry: RegimenEntry) -> [FastStep] {
        var previous = startingMilligrams
        var lastRise: SessionKey?
        var found: [FastStep] = []
        let limit = entry.weeklyIncreaseMilligrams
        let label = "the \(RegimenWords.product(entry.product)) label raises the nightly amount by at most \(RegimenWords.grams(limit)) a week"
        for step in steps {
            let rise = step.nightlyMilligrams - previous
            if rise > 0 {
                let days = lastRise.map { step.from.days(since: $0) }
                if rise > limit {
                    found.append(
                        FastStep(
                            step: step,
                            reason: "The step of \(step.from) raises the nightly amount by \(RegimenWords.grams(rise)) at once, from "
                                + "\(RegimenWords.grams(previous)) to \(RegimenWords.grams(step.nightlyMilligrams)); \(label)."))
                } else if let days, days < 7 {
                    found.append(
                        FastStep(
                            step: step,
                            reason: "The step of \(step.from) raises the nightly amount \(days == 1 ? "1 day" : "\(days) days") after the "
                                + "last rise; \(label)."))
                }
                lastRise = step.from
            }
            previous = step.nightlyMilligrams
        }
        return found
    }
}

extension SessionKey {
    /// Whole calendar days from `earlier` to this date.
    public func days(since earlier: SessionKey) -> Int {
        func dayNumber(_ key: SessionKey) -> Int {
            // Days since 0000-03-01 on the proleptic Gregorian calendar: arithmetic, no Calendar.
            let year = key.month <= 2 ? key.year - 1 : key.year
            let month = key.month <= 2 ? key.month + 9 : key.month - 3
            return 365 * year + year / 4 - year / 100 + year / 400 + (153 * month + 2) / 5 + key.day - 1
        }
        return dayNumber(self) - dayNumber(earlier)
    }
}
