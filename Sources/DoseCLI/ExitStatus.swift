import DoseCore

/// Exit codes of the command line (SPEC §4; the numbers are sysexits.h's). The rules say what was refused; how a
/// refusal ends a process is this edge's business, mapped here once.
enum ExitStatus {
    /// A rule refused the action.
    static let refused: Int32 = 1
    /// The command line itself was wrong (EX_USAGE).
    static let usage: Int32 = 64
    /// An input file was unreadable or malformed (EX_DATAERR).
    static let dataError: Int32 = 65
    /// Something went wrong inside DoseTap (EX_SOFTWARE).
    static let internalError: Int32 = 70
    /// Storage was busy; trying again may work (EX_TEMPFAIL).
    static let temporaryFailure: Int32 = 75
}

extension DoseError {
    /// The exit code of the command line for this refusal.
    var exitCode: Int32 {
        switch self {
        case .invalidInput, .unsupportedMediaType: ExitStatus.usage
        case .invalidFile, .tooLarge: ExitStatus.dataError
        case .storageBusy, .storageUnavailable: ExitStatus.temporaryFailure
        default: ExitStatus.refused
        }
    }
}
