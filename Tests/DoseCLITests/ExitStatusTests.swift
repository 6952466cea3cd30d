import DoseCore
import Foundation
import Testing

@testable import DoseCLI

/// SPEC §4's exit codes, mapped once at the command line's edge: 1 for a rule's refusal, 64 for bad usage or input,
/// 65 for an unusable file, 75 when storage is busy. The binary's own exits are checked end to end in RefusalTests.
@Suite("Exit codes at the command line's edge")
struct ExitStatusTests {
    static let day = Date(timeIntervalSince1970: 1_795_400_000)
    static let samples: [(DoseError, Int32)] = [
        (.invalidInput(field: "x", problem: "y", allowed: nil), 64), (.unsupportedMediaType(sent: "text/plain", accepted: "application/json"), 64),
        (.invalidFile(problem: "not a database"), 65), (.tooLarge(what: "Import", limit: "20 MiB"), 65), (.storageBusy, 75),
        (.deviceNotRegistered, 1), (.forbidden(why: "x"), 1), (.notFound(what: "x"), 1), (.nothingToUndo, 1), (.dose1Required, 1),
        (.alreadyTaken(dose: "Dose 1", at: day, localTime: "22:30", confirm: nil), 1),
        (.recentDose(dose: "Dose 2", at: day, localTime: "01:20", minutesApart: 30, allowedFrom: day, allowedLocalTime: "09:20"), 1),
        (.windowNotOpen(minutesUntilOpen: 5, opensAt: day, localTime: "01:00"), 1), (.rateLimited(event: "Bathroom", retryAfterSeconds: 12), 1),
        (.tooManyRequests(retryAfterSeconds: 3), 1), (.idempotencyMismatch, 1),
    ]

    @Test("each refusal ends the process with its SPEC §4 exit code", arguments: samples)
    func exitCode(error: DoseError, status: Int32) {
        #expect(error.exitCode == status)
    }
}

/// The suite runs most commands in this process (`CLI.inProcess`); that is only honest if a command says and exits
/// exactly as the binary does. Each line here runs both ways on twin databases and must match byte for byte.
@Suite("In process and as the binary, a command line says the same")
struct InProcessParityTests {
    static let lines: [[String]] = [
        ["status", "--json"], ["dose1", "--json"], ["dose2", "--json"], ["status"], ["dose2"], ["dose1"], ["history"],
        ["does2", "--json"], ["snooze", "--minutes", "x"], ["dose1", "--bogus", "--json"], ["--help"], ["dose1", "--help"],
        ["settings", "set", "target_minutes", "999", "--json"], ["undo"],
    ]

    @Test("stdout, stderr and the exit status are the same", arguments: lines)
    func same(line: [String]) throws {
        let inProcess = try CLI(zone: "Europe/Paris")
        let binary = try CLI(zone: "Europe/Paris")
        // Each twin gets Dose 1 first where the line needs a night, at the same instant and with the same words.
        for cli in [inProcess, binary] where line.first == "dose2" || line.first == "undo" {
            try cli.run(["dose1"], now: "2026-11-21 22:30")
        }
        let now = "2026-11-22 00:05"
        let here = try inProcess.run(line, now: now, json: false)
        let there = try binary.run(line, now: now, json: false, spawn: true)
        // Ids are new UUIDs on each side, and each twin has its own file (or schema); everything else must be the same.
        let mask = { (text: String) in
            text.replacingOccurrences(of: inProcess.database, with: "DB").replacingOccurrences(of: binary.database, with: "DB")
                .replacingOccurrences(of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "ID", options: .regularExpression)
                // On the PostgreSQL pass each twin's file is a schema named after it.
                .replacingOccurrences(of: "search_path=[a-z0-9_]+", with: "search_path=S", options: .regularExpression)
        }
        #expect(here.status == there.status)
        #expect(mask(here.stdout) == mask(there.stdout))
        #expect(mask(here.stderr) == mask(there.stderr))
        // Help is an answer, not a failure: on stdout with status 0, as ArgumentParser's own exit puts it.
        if line.last == "--help" { #expect(there.status == 0 && there.stdout.contains("USAGE:") && there.stderr.isEmpty) }
    }
}

/// `dosetap … | head -1`: a reader that goes away after the first line must not stop the binary with a signal once its
/// work is done (it did, SIGILL from Foundation's `write(_:)` on EPIPE, under `store copy | head -1` in benchmark.sh).
@Suite("A reader that goes away")
struct ClosedPipeTests {
    @Test("the binary writing to a pipe whose reader has closed ends with status 0, its work done")
    func closedReader() throws {
        let cli = try CLI(zone: "Europe/Paris")
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["settings", "list", "--db", cli.database, "--tz", "Europe/Paris"]
        process.environment = CLI.variables(process.arguments ?? [], [:])
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try pipe.fileHandleForReading.close()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(process.terminationReason) \(process.terminationStatus)")
        #expect(try cli.run(["settings", "list"], now: "2026-11-22 00:05", json: false).stdout.contains("target_interval"))
    }
}
