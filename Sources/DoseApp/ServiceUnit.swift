import Foundation

/// The systemd unit that keeps `dosetap serve` running: it is the alarm clock for Dose 2, so if the process dies for
/// any reason it is started again within seconds, and a crash loop never makes systemd give up on it.
public enum ServiceUnit {
    /// Seconds systemd waits before starting the server again.
    public static let restartSeconds = 2
    /// The unit's file name.
    public static let fileName = "dosetap.service"

    /// A user unit running `executable serve ARGUMENTS`.
    public static func systemdUser(executable: String, serveArguments: [String]) -> String {
        let command = ([executable, "serve"] + serveArguments).map(quoted).joined(separator: " ")
        return """
            # DoseTap: the Dose 2 timer, night log and reminder engine. Written by `dosetap service install --user`.
            # Install: systemctl --user daemon-reload && systemctl --user enable --now dosetap.service
            # Keep it running when you are logged out (a headless machine): loginctl enable-linger "$USER"
            [Unit]
            Description=DoseTap server (Dose 2 timer, night log and reminders)
            After=network-online.target
            Wants=network-online.target
            # Never stop restarting: a night without the server is a night without alarms.
            StartLimitIntervalSec=0

            [Service]
            Type=simple
            ExecStart=\(command)
            Restart=always
            RestartSec=\(restartSeconds)
            # SIGTERM lets open pages' event streams end and the last heartbeat be written.
            KillSignal=SIGTERM
            TimeoutStopSec=20
            NoNewPrivileges=yes
            UMask=0077

            [Install]
            WantedBy=default.target

            """
    }

    /// One ExecStart word: double-quoted with backslash escapes, `%` and `$` doubled so systemd expands nothing.
    static func quoted(_ word: String) -> String {
        var escaped = ""
        for character in word {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "%": escaped += "%%"
            case "$": escaped += "$$"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"" + escaped + "\""
    }
}
