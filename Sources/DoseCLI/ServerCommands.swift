import ArgumentParser
import DoseApp
import DoseCore
import DoseServer
import DoseStore
import Foundation
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the JSON API on this machine (loopback by default). Stop with Ctrl-C.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 for the home network).") var host = "127.0.0.1"
    @Option(help: "Port (default 8080; 0 picks a free one).") var port = 8080
    @OptionGroup var channels: ChannelOptions
    @Option(help: "Requests per minute each device may make (default 240).") var rateLimit = ServerLimits.requestsPerMinute
    @Option(help: "Seconds a client may take to send a request's headers (default 10).") var headerTimeout = 10
    @Option(help: "Seconds a client may take to send a request's body (default 30).") var bodyTimeout = 30
    @Option(help: "Seconds an idle kept-alive connection stays open (default 60).") var idleTimeout = 60
    @Option(help: "Open connections at most; past it the oldest idle one is closed (default 512).") var maxConnections = 512
    @Option(help: "Serve HTTPS with this certificate (PEM; `dosetap tls init` makes one).") var tlsCert: String?
    @Option(help: "The certificate's private key (PEM).") var tlsKey: String?
    @Option(help: "With HTTPS: also plain HTTP on 127.0.0.1 at this port, for programs on this machine.") var httpLoopbackPort: Int?
    @Option(help: .hidden) var tlsCheckSeconds = 12 * 3_600
    @Option(
        help: "The address people reach this server by through a proxy, e.g. https://dosetap.example.org: reminder and pairing links use it.")
    var publicURL: String?
    @Flag(help: ArgumentHelp("With --now: the clock starts at that instant and runs on, for tests and demos of a live night.", visibility: .hidden))
    var clockRuns = false
    @Option(
        help: """
            Mail sign-in links and invitations through this server (default $DOSETAP_SMTP_URL): smtp://[USER:PASSWORD@]HOST:PORT \
            (STARTTLS; plain only to a relay on loopback) or smtps://… (implicit TLS). Needs a PostgreSQL store.
            """)
    var smtp: String?
    @Option(help: "The address mail is sent from (with --smtp).") var mailFrom: String?
    @Option(help: "Trust the mail server's certificate if this PEM file's CA issued it (a relay with a private CA).") var smtpCA: String?
    @Option(help: .hidden) var mailLeaseSeconds = Int(MailSender.defaultLease)
    @Option(
        help: """
            Believe X-Forwarded-For only from a proxy at this address or block (CIDR, e.g. 127.0.0.1/32; repeat for several). \
            Without it the header is ignored and each request counts as its peer.
            """)
    var trustedProxy: [String] = []
    @Option(
        help: """
            Who may make an account: closed (the operator adds people; the default), invited (someone invited may make one \
            from the invitation), or domain=DOMAIN (anyone with an address there may: invited, or from /signup, which mails \
            them a link and needs --smtp).
            """)
    var signUp = "closed"
    @Option(help: "Serve /metrics (Prometheus's text format) on 127.0.0.1 at this port, apart from the API.") var metricsPort: Int?
    @Flag(
        help: """
            Serve a PostgreSQL store as a superuser, a BYPASSRLS role or the tables' owner anyway: one person's rows are \
            then kept from another's by the handlers alone. Without it, serving as such a role is refused.
            """)
    var allowOwnerRole = false

    /// A role that could read past row-level security serves only with `--allow-owner-role`, and then with a warning:
    /// served by it, one person's rows are kept from another's by the handlers alone (SPEC §5.6).
    static func checkServingRole(_ role: PostgresStore.ConnectedRole, allowed: Bool) throws {
        guard role.bypassesRowSecurity || role.ownsTables else { return }
        let what = role.bypassesRowSecurity ? "is a superuser or has BYPASSRLS" : "owns the store's tables"
        guard allowed else {
            throw DoseError.invalidInput(
                field: "--database",
                problem: "PostgreSQL role \(role.name) \(what), so row-level security would not keep one person's rows from another's",
                allowed:
                    "a role that owns nothing, given access by the owner with `dosetap store grant ROLE` (README: Isolation in the database), "
                    + "or --allow-owner-role to serve as \(role.name) anyway")
        }
        Output.note(
            "warning: PostgreSQL role \(role.name) \(what); serving as it anyway (--allow-owner-role): one person's rows are kept from "
                + "another's by the handlers alone. Serve as a role that owns nothing, given access with `dosetap store grant ROLE`.")
    }

    func run() async throws {
        try await Output.runAsync(json: options.json) {
            guard (0...65535).contains(port) else { throw DoseError.invalidInput(field: "port", problem: "\(port)", allowed: "0–65535") }
            guard (1...1_000_000).contains(rateLimit) else {
                throw DoseError.invalidInput(field: "rate-limit", problem: "\(rateLimit)", allowed: "1–1000000 requests per minute")
            }
            let rateLimit = self.rateLimit
            if clockRuns, options.now == nil {
                throw DoseError.invalidInput(
                    field: "clock-runs", problem: "it runs the clock given by --now, and none was given", allowed: "--now ISO8601 --clock-runs")
            }
            let limits = try connectionLimits()
            let listener = try self.listener()
            let publicURL = try Self.publicBase(self.publicURL)
            let context = try CommandContext.open(options, pooled: true, everyone: true)
            // Everything logged goes to stderr, and its safe parts to the diagnostic log beside the database.
            let diagnostic = DiagnosticLogHandler.factory(folder: try context.dataFolder, now: context.environment.now)
            var logger = Logger(label: "dosetap") { label in MultiplexLogHandler([StreamLogHandler.standardError(label: label), diagnostic(label)]) }
            logger.logLevel = .info
            var configured = context.environment
            configured.logger = logger
            configured.signUp = try SignUpPolicy.parse(signUp)
            if clockRuns, options.now != nil {
                // A night on a test's clock that moves as a real one does: the tap guards and the countdown see real seconds.
                let (start, began) = (configured.now(), configured.wallClock())
                let wallClock = configured.wallClock
                configured.now = { start.addingTimeInterval(wallClock().timeIntervalSince(began)) }
            }
            let environment = configured
            environment.logger.info("serve started")
            if let tls = listener.tls,
                let check = try LocalCertificates.renewIfDue(tls, hostName: ProcessInfo.processInfo.hostName, now: environment.now())
            {
                Output.note(check.message)
            }
            let json = options.json
            let host = self.host
            let path = context.storeName
            let scheme = listener.tls == nil ? "http" : "https"
            // On PostgreSQL every instance serving the store shares the codes, so a link pairs wherever it lands.
            let pairing = PairingCodes(store: environment.store.shared)
            // Links are opened on other devices: a wildcard address is no place to go, the machine's name is.
            let shown = ["0.0.0.0", "::"].contains(host) ? ProcessInfo.processInfo.hostName : host
            let people = context.people
            let announce: @Sendable (Int) async -> Void = { port in
                guard people < 2 else {
                    let linkBase = publicURL ?? "\(scheme)://\(shown):\(port)"
                    return Terminal.current.line(Self.peopleAnnouncement(scheme, host, linkBase, port, path, people: people, json: json))
                }
                let code = await pairing.issue(now: environment.now(), random: environment.random, for: environment.store.personID)
                let link = "\(publicURL ?? "\(scheme)://\(shown):\(port)")/pair?code=\(code)"
                // Written straight to the descriptor: a supervisor reading a pipe sees it at once.
                let text =
                    json
                    ? JSONValue(
                        dictionaryLiteral: ("listening", .string("\(scheme)://\(host):\(port)")), ("port", .int(port)), ("pairing_url", .string(link))
                    )
                    .rendered()
                    : """
                    DoseTap is serving \(scheme)://\(host):\(port)  (database \(path))
                    Open this link once on the phone or tablet to pair it (valid 15 minutes, one use):
                      \(link)
                    Programs: `dosetap device add NAME` gives a token for `Authorization: Bearer <token>`.
                    """ + Self.scannable(link)
                Terminal.current.line(text)
            }
            let mail = try self.mailClient(shared: environment.store.shared != nil)
            if let metricsPort, !(1...65535).contains(metricsPort) || metricsPort == port {
                throw DoseError.invalidInput(field: "metrics-port", problem: "\(metricsPort)", allowed: "1–65535, not the API's port")
            }
            let deliveries = try channels.deliveries(environment)
            let push = try channels.pushOptions(environment)
            // Last of the checks, so a mistyped option is named first whoever the role is.
            if let shared = environment.store.shared {
                try Self.checkServingRole(try shared.connectedRole(), allowed: allowOwnerRole)
            }
            try await DoseTapServer.run(
                environment: environment, listener: listener, linkHost: shown, publicURL: publicURL, deliveries: deliveries, push: push,
                pairing: pairing,
                requestsPerMinute: rateLimit, limits: limits, everyone: context.everyone, mail: mail,
                mailLease: TimeInterval(max(1, mailLeaseSeconds)), metricsPort: metricsPort, onServerRunning: announce)
        }
    }

    /// The mail client `--smtp` (or `$DOSETAP_SMTP_URL`) asks for; nil without one. Mail is a shared store's queue.
    func mailClient(shared: Bool) throws -> SMTPClient? {
        guard let url = smtp ?? ProcessInfo.processInfo.environment["DOSETAP_SMTP_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            if mailFrom != nil || smtpCA != nil {
                throw DoseError.invalidInput(
                    field: "smtp", problem: "--mail-from or --smtp-ca was given without --smtp", allowed: "--smtp URL with them")
            }
            return nil
        }
        let settings = try SMTPSettings.parse(url: url, from: mailFrom, trustedCertificates: smtpCA)
        guard shared else {
            throw DoseError.invalidInput(
                field: "smtp", problem: "mail is sent from a PostgreSQL store's queue, and this store is a SQLite file",
                allowed: "--database postgres://… with --smtp, or no --smtp")
        }
        return SMTPClient(settings: settings)
    }

    /// Said at start when the store holds several people: no pairing link (whose device would it pair?), but how each
    /// person signs in.
    static func peopleAnnouncement(_ scheme: String, _ host: String, _ linkBase: String, _ port: Int, _ path: String, people: Int, json: Bool)
        -> String
    {
        guard !json else {
            return JSONValue(
                dictionaryLiteral: ("listening", .string("\(scheme)://\(host):\(port)")), ("port", .int(port)), ("pairing_url", .null),
                ("people", .int(people))
            ).rendered()
        }
        return """
            DoseTap is serving \(scheme)://\(host):\(port) for \(people) people  (database \(path))
            Each person signs in on a new browser with their own link: `dosetap person link EMAIL --link-base \(linkBase)`.
            Programs: `dosetap device add NAME --person EMAIL` gives a token for `Authorization: Bearer <token>`.
            """
    }

    /// The pairing link as a QR code for the phone's camera, when a person is watching the terminal (not a supervisor's log).
    static func scannable(_ link: String) -> String {
        guard Terminal.current.outputIsTerminal, let code = try? QRCode(link) else { return "" }
        return "\nOr scan it with the phone's camera:\n" + code.terminalText
    }
}

extension Serve {
    /// A proxy's public address as links start with it: http(s), a host, no path, query or fragment; nil when not given.
    static func publicBase(_ given: String?) throws(DoseError) -> String? {
        guard let given else { return nil }
        let allowed = "an http:// or https:// address with a host and nothing after it, e.g. https://dosetap.example.org"
        guard let parts = URLComponents(string: given), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""),
            let host = parts.host, !host.isEmpty, parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil,
            parts.user == nil, parts.password == nil
        else { throw DoseError.invalidInput(field: "public-url", problem: "'\(given)' is not a site's address", allowed: allowed) }
        return given.hasSuffix("/") ? String(given.dropLast()) : given
    }

    /// Where to listen: HTTPS when both certificate files are given (and checked), else plain HTTP.
    func listener() throws(DoseError) -> Listener {
        var listener = try plainOrSecureListener()
        listener.trustedProxies = try trustedProxy.map { cidr throws(DoseError) in try AddressRange.parse(cidr) }
        return listener
    }

    func plainOrSecureListener() throws(DoseError) -> Listener {
        switch (tlsCert, tlsKey) {
        case (nil, nil):
            if httpLoopbackPort != nil {
                throw DoseError.invalidInput(
                    field: "http-loopback-port", problem: "it adds plain HTTP beside HTTPS, and HTTPS was not asked for",
                    allowed: "--tls-cert FILE --tls-key FILE with it")
            }
            if !Listener.isLoopback(host) { Output.note(Self.insecureWarning) }
            return Listener(host: host, port: port)
        case (let certificate?, let key?):
            if let plain = httpLoopbackPort, !(1...65535).contains(plain) || plain == port {
                throw DoseError.invalidInput(field: "http-loopback-port", problem: "\(plain)", allowed: "1–65535, not the HTTPS port")
            }
            guard (1...86_400).contains(tlsCheckSeconds) else {
                throw DoseError.invalidInput(field: "tls-check-seconds", problem: "\(tlsCheckSeconds)", allowed: "1–86400")
            }
            var listener = Listener(host: host, port: port, tls: TLSFiles(certificate: certificate, key: key), loopbackHTTPPort: httpLoopbackPort)
            listener.certificateCheckInterval = .seconds(tlsCheckSeconds)
            return listener
        default:
            throw DoseError.invalidInput(
                field: tlsCert == nil ? "tls-cert" : "tls-key", problem: "HTTPS needs both files", allowed: "--tls-cert FILE --tls-key FILE")
        }
    }

    /// Said at start when phones will reach the page over plain HTTP.
    static let insecureWarning = """
        Warning: serving plain HTTP beyond this machine. A phone opening it gets no secure context: no notifications, \
        no screen wake lock, no offline app and no Web Push, so alarms ring only while the page is open and awake. \
        Run `dosetap tls init` and serve with --tls-cert and --tls-key (docs/HTTPS.md).
        """

    /// The connection limits from the options, each checked against its range.
    func connectionLimits() throws(DoseError) -> ConnectionLimits {
        for (name, value, range) in [
            ("header-timeout", headerTimeout, 1...300), ("body-timeout", bodyTimeout, 1...3600), ("idle-timeout", idleTimeout, 1...3600),
            ("max-connections", maxConnections, 16...100_000),
        ] where !range.contains(value) {
            throw .invalidInput(field: name, problem: "\(value)", allowed: "\(range.lowerBound)–\(range.upperBound)")
        }
        return ConnectionLimits(headerSeconds: headerTimeout, bodySeconds: bodyTimeout, idleSeconds: idleTimeout, maxConnections: maxConnections)
    }
}

struct Device: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Pair, list and revoke the devices that may use the API.", subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Pair a device; its token is shown once. It stops working once unused for \(DeviceLifetime.idleDays) days.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "A name for the device, e.g. \"bedside tablet\".") var name: String
        @Option(
            help: """
                For a script's token: stop working this many days from now \
                (\(DeviceLifetime.chosenDays.lowerBound)–\(DeviceLifetime.chosenDays.upperBound)). Never during an open night.
                """)
        var expiresInDays: Int?
        func run() throws {
            try Output.run(options) { context in
                let (device, token) = try context.app.devices.pair(name: name, expiresInDays: expiresInDays)
                let expiry = device.expiry.map(ISO8601.string) ?? ""
                Output.show(
                    json: options.json,
                    JSONValue(
                        dictionaryLiteral: ("token", .string(token)), ("id", .string(device.id)), ("name", .string(device.name)),
                        ("expires_at", device.expiresAt.map { .string(ISO8601.string($0)) } ?? .null)),
                    "Paired \"\(device.name)\". Its token (shown only now):\n\(token)\n"
                        + (device.expiresAt == nil
                            ? "It stops working once unused for \(DeviceLifetime.idleDays) days (first on \(expiry))."
                            : "It stops working on \(expiry)."))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Paired devices (tokens are never shown again).")
        @OptionGroup var options: GlobalOptions
        func run() throws {
            try Output.run(options) { context in
                let devices = try context.app.devices.all()
                if options.json {
                    Output.line(
                        JSONValue.array(
                            devices.map {
                                [
                                    "id": .string($0.id), "name": .string($0.name), "created_at": .string(ISO8601.string($0.createdAt)),
                                    "revoked_at": $0.revokedAt.map { .string(ISO8601.string($0)) } ?? .null,
                                    "last_used_at": $0.lastUsedAt.map { .string(ISO8601.string($0)) } ?? .null,
                                    "expires_at": $0.expiresAt.map { .string(ISO8601.string($0)) } ?? .null,
                                    "expiry": $0.revokedAt == nil ? $0.expiry.map { .string(ISO8601.string($0)) } ?? .null : .null,
                                ]
                            }
                        ).rendered())
                    return
                }
                if devices.isEmpty { Output.line("No devices paired.") }
                for device in devices {
                    let state = device.revokedAt.map { "  revoked \(ISO8601.string($0))" } ?? Self.expiryWords(device, now: context.clock.now)
                    Output.line(
                        "\(device.name)  [\(device.id)]  paired \(ISO8601.string(device.createdAt))"
                            + (device.lastUsedAt.map { "  last used \(ISO8601.string($0))" } ?? "") + state)
                }
            }
        }

        /// "  expires 2027-02-25T…" for a device that works, "  expired 2027-…" for one that stopped.
        static func expiryWords(_ device: DeviceRecord, now: Date) -> String {
            guard let expiry = device.expiry else { return "" }
            return expiry <= now ? "  expired \(ISO8601.string(expiry))" : "  expires \(ISO8601.string(expiry))"
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a device by name or id; its next request is refused.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device's name or id.") var device: String
        func run() throws {
            try Output.run(options) { context in
                let revoked = try context.app.devices.revoke(device)
                Output.show(
                    json: options.json, JSONValue(dictionaryLiteral: ("id", .string(revoked.id)), ("revoked", true)), "Revoked \"\(revoked.name)\".")
            }
        }
    }
}
