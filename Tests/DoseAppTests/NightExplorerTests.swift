import DoseCore
import DoseTestSupport
import Foundation
import Testing

/// Every sequence of the night's actions, through every surface, at every boundary instant, explored on the real use
/// cases (issue 54). `DOSETAP_EXPLORE_DEPTH` sets the depth (`scripts/explore.sh`); the suite's own is the CI form.
@Suite("The night, explored: every sequence of actions on every surface keeps the dose rules")
struct NightExplorerTests {
    /// 22:30 in New York, a plain winter night.
    static let evening = WallClock.date(2026, 11, 21, 22, 30)

    /// The starts: an empty night, and the nights where the rules have most to say.
    static let starts: [NightExplorer.Start] = [
        NightExplorer.Start(name: "an empty night", at: evening),
        NightExplorer.Start(name: "last night's Dose 2 seven hours ago", at: evening, before: [(.dose1, [], -600), (.dose2, [], -420)]),
        NightExplorer.Start(name: "a skipped night", at: evening, before: [(.dose1, [], 0), (.skip, [], 10)]),
        NightExplorer.Start(name: "once nightly", at: evening, settings: [("regimen", "once_nightly")]),
        NightExplorer.Start(name: "a titration step tonight", at: evening, settings: [("titration", "2026-11-21 3 g + 3 g")]),
        NightExplorer.Start(name: "the night the clocks spring forward", at: WallClock.date(2026, 3, 7, 23, 30)),
        NightExplorer.Start(name: "the night the clocks fall back", at: WallClock.date(2026, 10, 31, 23, 30)),
        // Nights already under way, so one step reaches each guard of Dose 2, the extra dose and the maximum.
        NightExplorer.Start(name: "Dose 1 taken", at: evening, before: [(.dose1, [], 0)]),
        NightExplorer.Start(name: "both doses taken", at: evening, before: [(.dose1, [], 0), (.dose2, [], 165)]),
        NightExplorer.Start(name: "an extra dose taken", at: evening, before: [(.dose1, [], 0), (.dose2, [], 165), (.dose2, [.extra], 170)]),
        NightExplorer.Start(
            name: "4.5 g + 4.5 g taken, the maximum", at: evening, settings: [("titration", "2026-11-21 4.5 g + 4.5 g")],
            before: [(.dose1, [], 0), (.dose2, [], 165)]),
        NightExplorer.Start(
            name: "Dose 2 snoozed to the limit", at: evening, before: [(.dose1, [], 0), (.snooze, [], 150), (.snooze, [], 160), (.snooze, [], 170)]),
    ]

    /// The depth: the environment's, else the CI form's.
    static var depth: Int { ProcessInfo.processInfo.environment["DOSETAP_EXPLORE_DEPTH"].flatMap(Int.init) ?? 1 }

    @Test("no reachable state breaks an invariant", arguments: starts.map(\.name))
    func explore(_ name: String) throws {
        let start = try #require(Self.starts.first { $0.name == name })
        let began = ContinuousClock.now
        let report = try NightExplorer(depth: Self.depth).explore(start)
        print(
            "explore: \(name): depth \(Self.depth), states visited: \(report.states), steps tried: \(report.steps), "
                + "\(ContinuousClock.now - began) (\(report.performing) in the use cases)")
        for counterexample in report.counterexamples.prefix(5) { Issue.record("\(name): \(counterexample)") }
        #expect(report.counterexamples.isEmpty)
        #expect(report.states > 1, "the search left its start")
    }

    /// PostgreSQL for the explorer's replay (`scripts/explore.sh --postgres URL`): each step again on a store of its own.
    static let postgresURL = ProcessInfo.processInfo.environment["DOSETAP_EXPLORE_POSTGRES_URL"]

    /// The starts the PostgreSQL replay runs from (`DOSETAP_EXPLORE_POSTGRES_STARTS`, names separated by `;`), else all.
    static var postgresStarts: [String] {
        let names = ProcessInfo.processInfo.environment["DOSETAP_EXPLORE_POSTGRES_STARTS"]?.split(separator: ";").map(String.init)
        return names ?? starts.map(\.name)
    }

    @Test(
        "every step does on PostgreSQL what it does on SQLite", .enabled(if: postgresURL != nil, "set DOSETAP_EXPLORE_POSTGRES_URL to run it"),
        arguments: postgresStarts)
    func exploreOnPostgres(_ name: String) throws {
        let start = try #require(Self.starts.first { $0.name == name }, "no start is named '\(name)'")
        let began = ContinuousClock.now
        var explorer = NightExplorer(depth: Self.depth)
        explorer.postgres = try PostgresReplay(url: try #require(Self.postgresURL))
        let report = try explorer.explore(start)
        print(
            "explore on PostgreSQL: \(name): depth \(Self.depth), states visited: \(report.states), steps tried: \(report.steps), "
                + "\(ContinuousClock.now - began)")
        for counterexample in report.counterexamples.prefix(5) { Issue.record("\(name): \(counterexample)") }
        #expect(report.counterexamples.isEmpty)
    }
}
