import DoseFuzzing
import Foundation
import Testing

/// The committed fuzz corpus (`Fuzz/corpus/TARGET`) and every input that ever crashed a target
/// (`Fuzz/regressions/TARGET`), in the style of SQLite's fuzzcheck: each replays through its target on every test run,
/// so a parser that traps again fails here, not at 2 a.m.
enum FuzzCorpus {
    /// The repository's `Fuzz` folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// With `DOSETAP_FUZZ_SEEDS=FOLDER`, the hostile-input tests keep what they build as seeds for the fuzzers.
    static func keep(_ file: URL, as target: FuzzTarget, named name: String) {
        guard let folder = ProcessInfo.processInfo.environment["DOSETAP_FUZZ_SEEDS"] else { return }
        let directory = URL(fileURLWithPath: folder).appendingPathComponent(target.rawValue)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }.prefix(80))
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(safe))
        try? FileManager.default.copyItem(at: file, to: directory.appendingPathComponent(safe))
    }

    /// The files under `Fuzz/KIND/TARGET`.
    static func files(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let directory = root.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
    }
}

@Suite("Fuzz corpus and past crashes replay without a trap")
struct FuzzCorpusTests {
    @Test("every target has a committed corpus", arguments: FuzzTarget.allCases)
    func corpusExists(_ target: FuzzTarget) {
        #expect(FuzzCorpus.files("corpus", target).count >= 3, "Fuzz/corpus/\(target.rawValue) holds too few seeds")
    }

    @Test("each corpus input and past crash runs through its target", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        // A trap ends the test process, so reaching the end is the assertion; the count shows the work was done.
        var replayed = 0
        for file in FuzzCorpus.files("corpus", target) + FuzzCorpus.files("regressions", target) {
            target.run(try Data(contentsOf: file))
            replayed += 1
        }
        #expect(replayed == FuzzCorpus.files("corpus", target).count + FuzzCorpus.files("regressions", target).count)
    }
}
