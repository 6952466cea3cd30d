import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import GRDB

@testable import DoseStore

/// Visits every sequence of steps up to a depth, breadth first, on the real use cases over in-memory SQLite, and checks
/// the night's invariants after every step. States are recognised by the canonical rows of the night, so each reachable
/// state is expanded once, and the first path found to a broken invariant is a shortest one.
struct NightExplorer {
    /// Where a search begins: the settings and what happened before the first step.
    struct Start: Sendable {
        let name: String
        let at: Date
        var settings: [(String, String)] = []
        /// Steps taken before the search, each through the command line at minutes after `at` (negative: before it).
        var before: [(ExploreStep.Action, Set<ConfirmKind>, Double)] = []
    }

    /// A state of the search: its world, the path that reached it, and the user's rows before the path's last step.
    struct Node {
        let world: ExploreWorld
        let path: [(step: ExploreStep, at: Date)]
        let rowsBeforeLast: [String]?
    }

    /// A broken invariant and the shortest path to it.
    struct Counterexample: CustomStringConvertible {
        let start: Start
        let path: [(step: ExploreStep, at: Date)]
        let problem: String

        var description: String { "\(problem) [\(path.count) \(path.count == 1 ? "step" : "steps") from \(start.name)]\n" + script }

        /// The path as a runnable script of the command line, each step at its instant (`--now`); a step from another
        /// surface is run as the command line would send it, and says where it came from.
        var script: String {
            // The machine's zone decides the nights' dates and the words' times, so the script runs in the explorer's.
            var lines = ["export TZ=\(NightExplorer.zone)", "db=$(mktemp -d)/explore.sqlite"]
            lines += start.settings.map {
                "dosetap settings set \($0.0) '\($0.1)' --db \"$db\" --now \(ISO8601.string(start.at.addingTimeInterval(-36_000)))"
            }
            for (action, confirmations, minutes) in start.before {
                let step = ExploreStep(action: action, confirmations: confirmations, instant: 0, surface: .cli)
                lines.append(Self.line(step, at: start.at.addingTimeInterval(minutes * 60)))
            }
            lines += path.map { Self.line($0.step, at: $0.at) }
            return lines.joined(separator: "\n")
        }

        static func line(_ step: ExploreStep, at instant: Date) -> String {
            let confirm = step.confirmations.isEmpty ? "" : " --confirm \(step.confirmationWords)"
            let via = step.surface == .cli ? "" : "  # via \(step.surface.rawValue)"
            return "dosetap \(step.action.command)\(confirm) --db \"$db\" --now \(ISO8601.string(instant))\(via)"
        }
    }

    /// What a search found.
    struct Report {
        var states = 0
        var steps = 0
        var counterexamples: [Counterexample] = []
        /// Time spent inside the surfaces' calls, against the whole search's.
        var performing = Duration.zero
    }

    /// The machine zone every search runs in (the DST starts are New York's nights).
    static let zone = "America/New_York"

    let depth: Int
    /// Stop at the first counterexample (the mutation check wants the shortest, not all).
    var stopAtFirst = false
    /// Each step once more on PostgreSQL, which must do what SQLite did.
    var postgres: PostgresReplay?

    /// Searches from `start`.
    func explore(_ start: Start) throws -> Report {
        let root = try Self.world(for: start)
        var report = Report()
        var visited: Set<[String]> = [try Self.key(root)]
        var frontier = [Node(world: root, path: [], rowsBeforeLast: nil)]
        report.states = 1
        for _ in 0..<depth {
            var next: [Node] = []
            for node in frontier {
                try expand(node, start: start, visited: &visited, next: &next, report: &report)
                if stopAtFirst, !report.counterexamples.isEmpty { return report }
            }
            frontier = next
        }
        return report
    }

    private func expand(_ node: Node, start: Start, visited: inout Set<[String]>, next: inout [Node], report: inout Report) throws {
        let userRows = try node.world.canonicalRows(userEventsOnly: true)
        // The copy steps are tried on, kept while they are refused, and its image as made (a backup's pages differ from
        // its source's in the header, so a refusal is compared with the copy it ran on).
        var scratch: (world: ExploreWorld, image: [UInt8])?
        for (index, instant) in try node.world.instants() {
            for step in ExploreStep.alphabet(at: index) {
                report.steps += 1
                if scratch == nil {
                    let copy = try node.world.copy()
                    scratch = (copy, try copy.image())
                }
                guard let (world, image) = scratch else { continue }
                let changes = try world.changes()
                let path = node.path + [(step, instant)]
                func fail(_ problem: String) { report.counterexamples.append(Counterexample(start: start, path: path, problem: problem)) }
                let result: ExploreWorld.Result
                do {
                    let clock = ContinuousClock.now
                    defer { report.performing += ContinuousClock.now - clock }
                    result = try world.perform(step, at: instant)
                } catch let violation as ExploreViolation {
                    fail(violation.description)
                    scratch = nil
                    continue
                }
                if let postgres {
                    let rows = if case .accepted = result { try world.canonicalRows() } else { [String]() }
                    if let problem = try postgres.check(step, at: instant, path: node.path, start: start, sqlite: result, rowsAfter: rows) {
                        fail(problem)
                    }
                }
                switch result {
                case .refused(let error):
                    // A refusal changes nothing: no row written, or, if one was and rolled back, the store the same to the byte.
                    if try world.changes() != changes, try world.image() != image {
                        fail("the refused \(step) (\(error.code)) changed the store")
                        scratch = nil
                    }
                case .accepted(let outcome):
                    scratch = nil
                    let key = try Self.key(world)
                    let isNew = visited.insert(key).inserted
                    let problems = try Self.violations(of: step, at: instant, outcome: outcome, world: world, node: node, checkOffer: isNew)
                    for problem in problems { fail(problem) }
                    if isNew {
                        report.states += 1
                        next.append(Node(world: world, path: path, rowsBeforeLast: userRows))
                    }
                }
                if stopAtFirst, !report.counterexamples.isEmpty { return }
            }
        }
    }

    /// A state's identity: the canonical rows and the clock, counted from the start.
    private static func key(_ world: ExploreWorld) throws -> [String] {
        try world.canonicalRows() + ["now \(NumberText.plain(world.time.now.timeIntervalSince(world.start)))"]
    }

    /// The world a start describes, its steps taken.
    static func world(for start: Start) throws -> ExploreWorld {
        let time = TestClock(start.at.addingTimeInterval(-36_000), zone: Self.zone)
        let world = ExploreWorld(database: try AppDatabase.inMemory(), time: time, start: start.at)
        for (key, value) in start.settings { _ = try world.app.settings.update(key, to: value, confirmations: [.fastTitration]) }
        for (action, confirmations, minutes) in start.before {
            time.set(start.at.addingTimeInterval(minutes * 60))
            _ = try world.app.night.perform(NightAction(action.kind, confirmations: confirmations), from: .cli)
        }
        time.set(max(time.now, start.at))
        return world
    }
}
