public import Foundation

/// A peer of `scripts/` (Python on PyPI's libraries) started for one test: it prints one JSON line when it is ready, and
/// exits when its stdin closes, so it never outlives the test process. Its stderr is not the test runner's, which would
/// otherwise wait for it.
final class ScriptPeer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    /// The line the script printed when ready, as JSON; nil when it printed none (it did not start).
    let ready: [String: Any]?
    /// That line as printed, for the failure message.
    let readyText: String

    /// Starts `scripts/NAME` with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/" + name)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        readyText = String(decoding: line, as: UTF8.self)
        ready = try? JSONSerialization.jsonObject(with: line) as? [String: Any]
        if ready == nil { process.terminate() }
    }

    deinit { process.terminate() }

    /// The JSON lines a script wrote to `log`, oldest first.
    static func lines(of log: URL) -> [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
