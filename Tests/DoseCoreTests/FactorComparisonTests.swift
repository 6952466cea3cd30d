import DoseCore
import Foundation
import Testing

@Suite("Descriptive correlations: n, means, Cohen's d, and the 5-night minimum")
struct FactorComparisonTests {
    static func pairs(with: [Double], without: [Double]) -> [(factor: Bool?, outcome: Double?)] {
        with.map { (true, $0) } + without.map { (false, $0) }
    }

    @Test("hand-computed: sleep quality 2,3,3,4,3 with TV on against 4,4,5,3,4 without")
    func handComputed() throws {
        let comparison = FactorComparison(Self.pairs(with: [2, 3, 3, 4, 3], without: [4, 4, 5, 3, 4]))
        #expect(comparison.isShown && comparison.with.nights == 5 && comparison.without.nights == 5)
        #expect(comparison.with.mean == 3 && comparison.without.mean == 4 && comparison.difference == -1)
        // Both sample variances are 0.5, so the pooled SD is √0.5 and d = −1/√0.5 ≈ −1.414: large.
        let d = try #require(comparison.effectSize)
        #expect(abs(d - -1 / 0.5.squareRoot()) < 1e-12 && comparison.effectWords == "large")
    }

    @Test("fewer than 5 nights on either side is not shown", arguments: [(4, 5), (5, 4), (0, 9), (5, 5)])
    func minimum(withCount: Int, withoutCount: Int) {
        let comparison = FactorComparison(
            Self.pairs(with: Array(repeating: 3, count: withCount), without: Array(repeating: 3, count: withoutCount)))
        #expect(comparison.isShown == (withCount >= 5 && withoutCount >= 5))
        #expect((comparison.difference == nil) == !comparison.isShown && (comparison.effectSize == nil) == !comparison.isShown)
    }

    @Test("nights with an unknown factor or outcome are left out, not counted as either side")
    func unknowns() {
        let comparison = FactorComparison(Self.pairs(with: [3, 3, 3, 3, 3], without: [3, 3, 3, 3, 3]) + [(nil, 1), (true, nil), (nil, nil)])
        #expect(comparison.with.nights == 5 && comparison.without.nights == 5 && comparison.effectSize == 0)
    }

    @Test("constant sides that differ have no spread to measure an effect against")
    func noSpread() {
        let comparison = FactorComparison(Self.pairs(with: Array(repeating: 2, count: 5), without: Array(repeating: 4, count: 5)))
        #expect(comparison.difference == -2 && comparison.effectSize == nil && comparison.effectWords == nil)
    }

    @Test(
        "Cohen's words at their edges, for d as shown to two decimals",
        arguments: [(0.194, "negligible"), (0.195, "small"), (0.2, "small"), (0.494, "small"), (0.5, "medium"), (0.79, "medium"), (0.8, "large")])
    func words(target: Double, words: String) throws {
        // Sides of 5 nights each with sample variance 1, around means 0 and d: so d is exactly the difference.
        let spread: [Double] = [-1, -1, 0, 1, 1]
        let comparison = FactorComparison(Self.pairs(with: spread.map { $0 + target }, without: spread))
        let d = try #require(comparison.effectSize)
        #expect(abs(d - target) < 1e-9 && comparison.effectWords == words)
    }
}
