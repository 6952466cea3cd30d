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
