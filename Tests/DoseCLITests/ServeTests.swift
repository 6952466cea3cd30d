import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A running `dosetap serve` on a free loopback port.
final class Server: @unchecked Sendable {
    let process = Process()
    let stderr = Pipe()
    let port: Int
    let pairingURL: String
    private let exited = AsyncStream<Int32>.makeStream()

    /// `variables` are added to the server's environment (`DOSETAP_DATABASE_URL` chooses a PostgreSQL store of the test's own).
    init(_ cli: CLI, now: String, arguments: [String] = [], allowLoopbackTargets: Bool = true, variables: [String: String] = [:]) throws {
        let out = Pipe()
        process.executableURL = CLI.binary
        var environment = ProcessInfo.processInfo.environment
        environment["DOSETAP_ALLOW_LOOPBACK_TARGETS"] = allowLoopbackTargets ? "1" : "0"
        process.arguments =
            ["serve", "--port", "0", "--json", "--db", cli.database, "--tz", cli.zone, "--now", CLI.instant(now, zone: cli.zone)] + arguments
        for (key, value) in CLI.suiteStore(process.arguments ?? []) { environment[key] = value }
        process.arguments = CLI.suiteServing(process.arguments ?? [])
        for (key, value) in variables { environment[key] = value }
        process.environment = environment
        process.standardOutput = out
        process.standardError = stderr
        let continuation = exited.continuation
        process.terminationHandler = { continuation.yield($0.terminationStatus) }
        try process.run()
        // The first line is the announcement; read it byte by byte so nothing after it is swallowed.
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let announcement = try JSONSerialization.jsonObject(with: line) as? [String: Any] ?? [:]
        port = announcement["port"] as? Int ?? 0
        pairingURL = announcement["pairing_url"] as? String ?? ""
    }

    var base: String { "http://127.0.0.1:\(port)" }

    // A test that fails, or ends, before stopping its server must not leave it running after the suite.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends SIGKILL, as a crash or the kernel's OOM killer would, and waits for the process to be gone.
    func kill9() async throws {
        kill(process.processIdentifier, SIGKILL)
        for await _ in exited.stream { return }
    }

    /// Sends SIGTERM and waits for the exit status, failing after `limit`.
    func terminate(within limit: Duration) async throws -> Int32? {
        process.terminate()
        return try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { [exited] in
                for await status in exited.stream { return status }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            if first == nil {
                process.interrupt()
                kill(process.processIdentifier, SIGKILL)
            }
            return first
        }
    }
}

@Suite("dosetap serve end to end: the built binary on loopback")
struct ServeTests {
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    static func request(_ url: String, method: HTTPMethod = .GET, token: String? = nil, body: String? = nil) async throws -> (
        Int, String, HTTPClientResponse
    ) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), text, response)
    }

    @Test("device add --expires-in-days: the binary's token works until its day and not from it; device list says when each expires")
    func tokenLifetime() async throws {
        let cli = try CLI()
        let added = try cli.run(["device", "add", "script", "--expires-in-days", "1"], now: "2026-11-21 12:00")
        let token = try #require(added.json["token"] as? String)
        #expect(added.json["expires_at"] as? String == "2026-11-22T17:00:00.000Z", "\(added.stdout)")
        for days in ["0", "366"] {
            let refused = try cli.run(["device", "add", "bad", "--expires-in-days", days])
            #expect(refused.status == 64 && refused.stdout.contains("expires-in-days") && refused.stdout.contains("1–365 days"), "\(refused.stdout)")
        }
        for (now, expected) in [("2026-11-22 11:59", 200), ("2026-11-22 12:00", 401)] {
            let server = try Server(cli, now: now)
            let (status, _, _) = try await Self.request(server.base + "/v1/status", token: token)
            #expect(status == expected, "at \(now)")
            _ = try await server.terminate(within: .seconds(20))
        }
        let listed = try cli.run(["device", "list"], now: "2026-11-23 12:00", json: false)
        #expect(listed.stdout.contains("script") && listed.stdout.contains("last used 2026-11-22T16:59:00.000Z"), "\(listed.stdout)")
        #expect(listed.stdout.contains("expired 2026-11-22T17:00:00.000Z"), "\(listed.stdout)")
    }

    @Test("serve pairs a browser, keeps an acknowledged dose, streams, and stops on SIGTERM with a stream open")
    func serveAndStop() async throws {
        let cli = try CLI()
        let server = try Server(cli, now: "2026-11-21 22:30")
        #expect(server.port > 0)
        #expect(server.pairingURL.hasPrefix("http://127.0.0.1:\(server.port)/pair?code="))
        var (status, body, response) = try await Self.request(server.base + "/health")
        #expect(status == 200 && body == #"{"database":"reachable","ok":true,"problem":null}"#)
        (status, _, response) = try await Self.request(server.pairingURL)
        #expect(status == 303)
        let cookie = response.headers["Set-Cookie"].first ?? ""
        #expect(cookie.hasPrefix("dosetap_device=dtp_") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        (status, _, _) = try await Self.request(server.pairingURL)
        #expect(status == 400, "the pairing link works once")

        (status, body, _) = try await Self.request(server.base + "/v1/status")
        #expect(status == 401 && body.contains("401_DEVICE_NOT_REGISTERED"))
        let token = try cli.run(["device", "add", "kitchen tablet"]).json["token"] as? String ?? ""
        (status, body, _) = try await Self.request(
            server.base + "/v1/doses/take", method: .POST, token: token, body: #"{"type":"dose1","id":"e2e-dose-1"}"#)
        #expect(status == 200 && body.contains("\"phase\":\"before_window\""))

        // An open event stream must not hold the server up when it is told to stop.
        var stream = HTTPClientRequest(url: server.base + "/v1/stream")
        stream.headers.add(name: "Authorization", value: "Bearer \(token)")
        let streaming = try await Self.client.execute(stream, timeout: .seconds(30))
        var chunks = streaming.body.makeAsyncIterator()
        let first = try await chunks.next().map { String(buffer: $0) }
        #expect(first == ": connected\n\n")
        let exit = try await server.terminate(within: .seconds(20))
        #expect(exit == 0, "serve exits 0 within 20 s of SIGTERM")
        while (try? await chunks.next()) != nil {}

        let logs = String(decoding: server.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!logs.contains(token) && !logs.contains("dose1") && !logs.contains(cookie.prefix(40)), "logs carry no tokens or health data")
        // serve's logger writes to stderr and, its safe parts, to the diagnostic log beside the database.
        #expect(logs.contains("serve started"))
        let diagnostic = (try? String(contentsOf: cli.directory.appendingPathComponent("dosetap-diagnostic.log"), encoding: .utf8)) ?? ""
        #expect(diagnostic.contains(#" info dosetap "serve started""#), "\(diagnostic)")
        let night = try cli.run(["status"], now: "2026-11-21 22:40")
        #expect(night.phase == "before_window", "the dose acknowledged over HTTP is stored")
    }

    @Test("a stream held open across `dosetap device revoke` (another process) closes within a second, and its reminder links stop working")
    func revokeEndsStreamAndLinks() async throws {
        let cli = try CLI()
        let server = try Server(cli, now: "2026-11-21 22:30")
        let token = try cli.run(["device", "add", "lost phone"]).json["token"] as? String ?? ""
        var stream = HTTPClientRequest(url: server.base + "/v1/stream")
        stream.headers.add(name: "Authorization", value: "Bearer \(token)")
        let streaming = try await Self.client.execute(stream, timeout: .seconds(30))
        var chunks = streaming.body.makeAsyncIterator()
        #expect(try await chunks.next().map { String(buffer: $0) } == ": connected\n\n")

        // Dose 1 at 20:00 puts the window's opening at 22:30, now: the open page rings with its action links.
        let dose1 = #"{"type":"dose1","timestamp":"\#(CLI.instant("2026-11-21 20:00", zone: cli.zone))"}"#
        let (status, _, _) = try await Self.request(server.base + "/v1/doses/take", method: .POST, token: token, body: dose1)
        #expect(status == 200)
        var frames = ""
        while !frames.contains("event: reminder"), let chunk = try await chunks.next() { frames += String(buffer: chunk) }
        let link = frames.split(separator: "\"").first { $0.contains("/a/") && $0.hasPrefix("http") }.map(String.init) ?? ""
        #expect(link.hasPrefix(server.base + "/a/"), "\(frames)")

        // A second stream of the same device, on a plain socket read by this thread: the time its end arrives is the
        // kernel's, not when this test's task is next scheduled among the suite's other tests on two cores.
        let watched = try RawConnection(port: server.port)
        try watched.send("GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        #expect(watched.read(until: ": connected", limit: 10))

        #expect(try cli.run(["device", "revoke", "lost phone"]).status == 0)
        // Timed from the revoke's commit (the command has returned): the stream checks every 250 ms; the bound leaves
        // room for a loaded CI machine.
        let revoked = ContinuousClock.now
        let ended = watched.received(until: "0\r\n\r\n", limit: 10)
        let closedAfter = ContinuousClock.now - revoked
        #expect(ended.arrived && closedAfter < .milliseconds(1_500), "the stream closed \(closedAfter) after the revoke")
        // The page is told why, so it can say so rather than go quiet (issue 53).
        #expect(ended.text.contains("event: ended") && ended.text.contains("This device was unpaired"), "\(ended.text)")
        while (try await chunks.next()) != nil {}

        let (linkStatus, linkBody, _) = try await Self.request(link, method: .POST)
        #expect(linkStatus == 403 && linkBody.contains("revoked"), "\(linkStatus) \(linkBody)")
        #expect(try cli.run(["status"], now: "2026-11-21 22:31").phase == "active", "the revoked phone's link took no dose: Dose 2 is still to take")
        _ = try await server.terminate(within: .seconds(20))
    }

    @Test("serve refuses a port out of range and a webhook that is not http(s), before listening")
    func refusals() throws {
        let cli = try CLI()
        let port = try cli.run(["serve", "--port", "70000"])
        #expect(port.status == 64 && port.errorCode == "400_INVALID_INPUT")
        let hook = try cli.run(["serve", "--port", "0", "--webhook", "file:///etc/passwd"])
        #expect(hook.status == 64 && hook.stderr.contains("webhook") || hook.stdout.contains("webhook"))
    }
}
