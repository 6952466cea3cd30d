import DoseApp
import DoseCore
import Testing

/// The wire codes of SPEC §4, as the API's error body and the command line's `--json` carry them.
@Suite("Refusals by their SPEC §4 wire codes")
struct ErrorWireCodeTests {
    static let codes: [(ErrorCode, String)] = [
        (.invalidInput, "400_INVALID_INPUT"),
        (.deviceNotRegistered, "401_DEVICE_NOT_REGISTERED"),
        (.forbidden, "403_FORBIDDEN"),
        (.notFound, "404_NOT_FOUND"),
        (.methodNotAllowed, "405_METHOD_NOT_ALLOWED"),
        (.nothingToUndo, "404_NOTHING_TO_UNDO"),
        (.alreadyTaken, "409_ALREADY_TAKEN"),
        (.alreadySkipped, "409_ALREADY_SKIPPED"),
        (.dose2Skipped, "409_DOSE2_SKIPPED"),
        (.sessionFinalizing, "409_SESSION_FINALIZING"),
        (.napState, "409_NAP_STATE"),
        (.duplicateMedication, "409_DUPLICATE_MEDICATION"),
        (.recentDose, "409_RECENT_DOSE"),
        (.dose2Pending, "409_DOSE2_PENDING"),
        (.tooLarge, "413_TOO_LARGE"),
        (.unsupportedMediaType, "415_UNSUPPORTED_MEDIA_TYPE"),
        (.dose1Required, "422_DOSE1_REQUIRED"),
        (.notInRegimen, "422_NOT_IN_REGIMEN"),
        (.titrationTooFast, "422_TITRATION_TOO_FAST"),
        (.nightlyMaximum, "422_NIGHTLY_MAXIMUM"),
        (.windowNotOpen, "422_WINDOW_NOT_OPEN"),
        (.windowExceeded, "422_WINDOW_EXCEEDED"),
        (.snoozeLimit, "422_SNOOZE_LIMIT"),
        (.snoozeUnavailable, "422_SNOOZE_UNAVAILABLE"),
        (.undoExpired, "422_UNDO_EXPIRED"),
        (.idempotencyMismatch, "422_IDEMPOTENCY_MISMATCH"),
        (.rateLimit, "429_RATE_LIMIT"),
        (.storageBusy, "503_STORAGE_BUSY"),
    ]

    @Test("each kind of refusal has the SPEC §4 code, and every kind is listed", arguments: codes)
    func wire(code: ErrorCode, expected: String) {
        #expect(code.wire == expected)
    }

    @Test("every kind is in the table, and no two share a code")
    func complete() {
        #expect(Set(Self.codes.map(\.0)) == Set(ErrorCode.allCases))
        #expect(Set(ErrorCode.allCases.map(\.wire)).count == ErrorCode.allCases.count)
    }
}
