import Foundation

/// What a command reads and writes besides its store: stdout, stderr, stdin, the environment variables, and whether a
/// person is at the keyboard. The process's own by default; a test runs a command in this process on buffers of its
/// own (`DoseTapCLI.run(_:on:)`), so it needs neither a new process nor a real terminal.
public struct Terminal: Sendable {
    /// The environment variables a command reads (`DOSETAP_DB`, `DOSETAP_DATABASE_URL`, `TZ`, `PATH`, …).
    public var environment: [String: String]
    /// Writes text to stdout as it is (no newline added).
    public var write: @Sendable (String) -> Void
    /// Writes text to stderr as it is.
    public var writeError: @Sendable (String) -> Void
    /// One line typed at stdin, without its newline; nil at the end of input.
    public var readLine: @Sendable () -> String?
    /// Whether stdin is a terminal, so a command may ask a question instead of refusing.
    public var inputIsTerminal: Bool
    /// Whether stdout is a terminal, so a command may draw for a person (the pairing QR code).
    public var outputIsTerminal: Bool

    /// Makes a terminal from its parts; a test's has no keyboard unless it gives one.
    public init(
        environment: [String: String], write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
        readLine: @escaping @Sendable () -> String? = { nil }, inputIsTerminal: Bool = false, outputIsTerminal: Bool = false
    ) {
        self.environment = environment
        self.write = write
        self.writeError = writeError
        self.readLine = readLine
        self.inputIsTerminal = inputIsTerminal
        self.outputIsTerminal = outputIsTerminal
    }

    /// This process's streams and variables.
    public static var process: Terminal {
        Terminal(
            environment: ProcessInfo.processInfo.environment,
            // A reader that went away (`dosetap … | head -1`) leaves nothing to write to: the rest is dropped, where
            // `write(_:)` would stop the process on EPIPE after its work was done.
            write: { try? FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) },
            writeError: { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) },
            readLine: { Swift.readLine() },
            inputIsTerminal: isatty(STDIN_FILENO) == 1, outputIsTerminal: isatty(STDOUT_FILENO) == 1)
    }

    /// The terminal of the command running in this task.
    @TaskLocal public static var current: Terminal = .process

    /// Writes a line to stdout.
    func line(_ text: String) { write(text + "\n") }

    /// Writes a line to stderr.
    func note(_ text: String) { writeError(text + "\n") }
}
