import Foundation

/// A descriptive correlation of seed 003 ("Dashboard Correlation Insights", no ML): an outcome (sleep quality,
/// on time, grogginess, wake count) on nights with a factor (TV on, caffeine, noise) against nights without it. It
/// gives each side's n and mean, the difference, and Cohen's d as the effect size; with fewer than 5 nights on either
/// side it is not shown. It describes an association, never a cause, and says so.
public struct FactorComparison: Sendable, Hashable {
    /// Nights on either side below which the comparison is not shown.
    public static let minimumNights = 5
    /// What every shown comparison says about itself.
    public static let caveat = "This shows an association in your own nights, not a cause."

    /// One side: its nights and the outcome's mean over them.
    public struct Side: Sendable, Hashable {
        public let nights: Int
        public let mean: Double?
        let variance: Double?

        init(_ values: [Double]) {
            nights = values.count
            guard !values.isEmpty else {
                mean = nil
                variance = nil
                return
            }
            let mean = values.reduce(0, +) / Double(values.count)
            self.mean = mean
            variance = values.count > 1 ? values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1) : nil
        }
    }

    /// Nights with the factor.
    public let with: Side
    /// Nights without it.
    public let without: Side

    /// The comparison of `outcome` over nights where `factor` is true against those where it is false; a night with
    /// either unknown (nil) is left out.
    public init(_ pairs: [(factor: Bool?, outcome: Double?)]) {
        let known = pairs.compactMap { pair in pair.factor.flatMap { factor in pair.outcome.map { (factor, $0) } } }
        with = Side(known.filter { $0.0 }.map(\.1))
        without = Side(known.filter { !$0.0 }.map(\.1))
    }

    /// Whether there are enough nights on both sides to show it.
    public var isShown: Bool { with.nights >= Self.minimumNights && without.nights >= Self.minimumNights }

    /// The mean with the factor minus the mean without it; nil unless shown.
    public var difference: Double? {
        guard isShown, let a = with.mean, let b = without.mean else { return nil }
        return a - b
    }

    /// Cohen's d: the difference over the pooled standard deviation; 0 when both sides are constant and equal, nil
    /// when they are constant and differ (no spread to measure it against) or when not shown.
    public var effectSize: Double? {
        guard let difference, let varianceA = with.variance, let varianceB = without.variance else { return nil }
        let pooled = ((Double(with.nights - 1) * varianceA) + (Double(without.nights - 1) * varianceB)) / Double(with.nights + without.nights - 2)
        if pooled == 0 { return difference == 0 ? 0 : nil }
        return difference / pooled.squareRoot()
    }

    /// Cohen's conventional words for |d| as shown, to two decimals: negligible (< 0.2), small, medium (≥ 0.5), large
    /// (≥ 0.8).
    public var effectWords: String? {
        guard let d = effectSize.map({ (abs($0) * 100).rounded() / 100 }) else { return nil }
        return d < 0.2 ? "negligible" : d < 0.5 ? "small" : d < 0.8 ? "medium" : "large"
    }
}
