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
            # One allocator arena from the first thread on: heavy work (ten years of insights, exports) gives its memory back.
            Environment=MALLOC_ARENA_MAX=1

            [Install]
            WantedBy=default.target

            """
    }

    /// The template unit's file name: `dosetap-serve@PORT` is one instance of a hosted store, listening on PORT.
    public static let templateFileName = "dosetap-serve@.service"
    /// Where the template's instances read the store and the options they share.
    public static let templateEnvironmentFile = "/etc/dosetap/serve.env"

    /// A system-wide template unit for several instances on one shared PostgreSQL store behind a proxy (docs/DEPLOY.md):
    /// each instance is named by its port, runs as the `dosetap` user, and reads `DOSETAP_DATABASE_URL`,
    /// `DOSETAP_PUBLIC_URL` and any further `DOSETAP_SERVE_OPTIONS` from one environment file.
    public static func systemdTemplate(executable: String) -> String {
        """
        # DoseTap, one instance of a hosted store per port. Written by `dosetap service template`.
        # \(templateEnvironmentFile) (mode 0600, owned by root) holds what every instance shares, e.g.:
        #   DOSETAP_DATABASE_URL=postgres://dosetap_app:SECRET@db.internal:5432/dosetap
        #   DOSETAP_PUBLIC_URL=https://dosetap.example.org
        #   DOSETAP_SERVE_OPTIONS=--vapid-subject mailto:ops@example.org
        # Start two: systemctl daemon-reload && systemctl enable --now dosetap-serve@8081 dosetap-serve@8082
        [Unit]
        Description=DoseTap server instance on port %i (Dose 2 timer, night log and reminders)
        After=network-online.target postgresql.service
        Wants=network-online.target
        # Never stop restarting: the other instances take its reminders over meanwhile, but not for ever.
        StartLimitIntervalSec=0

        [Service]
        Type=simple
        User=dosetap
        Group=dosetap
        EnvironmentFile=\(templateEnvironmentFile)
        ExecStart=\(quoted(executable)) "serve" "--host" "127.0.0.1" "--port" "%i" "--database" "${DOSETAP_DATABASE_URL}" "--public-url" "${DOSETAP_PUBLIC_URL}" $DOSETAP_SERVE_OPTIONS
        Restart=always
        RestartSec=\(restartSeconds)
        # SIGTERM gives this instance's reminder leases back at once, so another instance sends what was due.
        KillSignal=SIGTERM
        TimeoutStopSec=20
        NoNewPrivileges=yes
        UMask=0077
        ProtectSystem=strict
        ProtectHome=yes
        PrivateTmp=yes
        StateDirectory=dosetap
        Environment=XDG_DATA_HOME=/var/lib/dosetap
        # One allocator arena from the first thread on: heavy work (ten years of insights, exports) gives its memory back.
        Environment=MALLOC_ARENA_MAX=1

        [Install]
        WantedBy=multi-user.target

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
