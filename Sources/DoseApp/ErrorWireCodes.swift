public import DoseCore

extension ErrorCode {
    /// The SPEC §4 wire code of a refusal, as the API's error body and the command line's `--json` carry it: the HTTP
    /// status a client can expect, then the reason.
    public var wire: String {
        switch self {
        case .invalidInput: "400_INVALID_INPUT"
        case .deviceNotRegistered: "401_DEVICE_NOT_REGISTERED"
        case .forbidden: "403_FORBIDDEN"
        case .notFound: "404_NOT_FOUND"
        case .methodNotAllowed: "405_METHOD_NOT_ALLOWED"
        case .nothingToUndo: "404_NOTHING_TO_UNDO"
        case .alreadyTaken: "409_ALREADY_TAKEN"
        case .alreadySkipped: "409_ALREADY_SKIPPED"
        case .dose2Skipped: "409_DOSE2_SKIPPED"
        case .sessionFinalizing: "409_SESSION_FINALIZING"
        case .napState: "409_NAP_STATE"
        case .duplicateMedication: "409_DUPLICATE_MEDICATION"
        case .recentDose: "409_RECENT_DOSE"
        case .dose2Pending: "409_DOSE2_PENDING"
        case .tooLarge: "413_TOO_LARGE"
        case .unsupportedMediaType: "415_UNSUPPORTED_MEDIA_TYPE"
        case .dose1Required: "422_DOSE1_REQUIRED"
        case .notInRegimen: "422_NOT_IN_REGIMEN"
        case .titrationTooFast: "422_TITRATION_TOO_FAST"
        case .nightlyMaximum: "422_NIGHTLY_MAXIMUM"
        case .windowNotOpen: "422_WINDOW_NOT_OPEN"
        case .windowExceeded: "422_WINDOW_EXCEEDED"
        case .snoozeLimit: "422_SNOOZE_LIMIT"
        case .snoozeUnavailable: "422_SNOOZE_UNAVAILABLE"
        case .undoExpired: "422_UNDO_EXPIRED"
        case .idempotencyMismatch: "422_IDEMPOTENCY_MISMATCH"
        case .rateLimit: "429_RATE_LIMIT"
        case .storageBusy: "503_STORAGE_BUSY"
        }
    }
}
