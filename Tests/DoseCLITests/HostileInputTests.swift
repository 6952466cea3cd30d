import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import NIOHTTP1
import Testing

/// What a person could see of the database: every table a request could write. Reminders, server runs and devices
/// are the server's own bookkeeping.
private func recordSnapshot(_ cli: CLI) throws -> String {
    try DatabaseQueue(path: cli.database).read { db in
        var text = ""
        for table in [
            "sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "pre_sleep_logs", "medication_events", "settings",
            "audit_log", "idempotency_keys",
        ] {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") { text += "\(table): \(row)\n" }
        }
        return text
    }
}

/// A note of `count` copies of `unit`.
private func note(_ unit: String, _ count: Int) -> String { String(repeating: unit, count: count) }

/// The two probes' findings, and their relatives, against the built binary: every one answers 4xx with the JSON error
/// body (or exits 64/65 from the command line), stores nothing, and leaves the server answering.
@Suite("Hostile input end to end: the built binary never traps, never answers 500, stores nothing", .serialized)
struct HostileInputTests {
    static let bodies: [(route: String, body: String, field: String)] = [
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":1e300,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":99999999999999999999,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":"5","unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":"ten","unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":null,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":true,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"xywav","amount":"4.5","unit":"g"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":1e-300,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":-200,"unit":"mg"}]}"#, "amount"),
        ("/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":200,"unit":"mL"}]}"#, "unit"),
        ("/v1/medications", #"{"entries":[7]}"#, "entries[0]"),
        ("/v1/events/log", "{\"type\":\"bathroom\",\"note\":\"\(note("e\\u0301", 500))\"}", "note"),
        ("/v1/events/log", "{\"type\":\"bathroom\",\"note\":\"\(note("👨‍👩‍👧‍👦", 100))\"}", "note"),
        ("/v1/doses/skip", #"{"sequence":1e300}"#, "sequence"),
        ("/v1/doses/snooze", #"{"minutes":1e300}"#, "minutes"),
        ("/v1/settings", #"{"target_interval":1e300}"#, "target_interval"),
    ]

    /// A night with Dose 1 at 22:30, a paired probe, and the server at 23:00.
    static func servedNight() throws -> (CLI, String, Server) {
        let cli = try CLI()
        #expect(try cli.run(["dose1"], now: "2026-11-21 22:30").status == 0)
        let token = try cli.run(["device", "add", "probe"]).json["token"] as? String ?? ""
        return (cli, token, try Server(cli, now: "2026-11-21 23:00"))
    }

    @Test("each hostile body answers 400 naming the field, stores nothing, and /health still answers", .readsSQLiteFile)
    func bodies() async throws {
        let (cli, token, server) = try Self.servedNight()
        let before = try recordSnapshot(cli)
        for (route, body, field) in Self.bodies {
            let method: HTTPMethod = route == "/v1/settings" ? .PATCH : .POST
            let (status, text, response) = try await ServeTests.request(server.base + route, method: method, token: token, body: body)
            let error = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["error"] as? [String: Any]
            #expect(status == 400, "\(route) \(body.prefix(80)) → \(status) \(text.prefix(200))")
            #expect(error?["code"] as? String == "400_INVALID_INPUT" && response.headers["Content-Type"].first?.hasPrefix("application/json") == true)
            #expect(((error?["details"] as? [String: Any])?["field"] as? String)?.hasSuffix(field) == true, "\(body.prefix(60)): \(text.prefix(200))")
            #expect(try await ServeTests.request(server.base + "/health").0 == 200)
        }
        let page = try await ServeTests.request(server.base + "/v1/sessions?page=9223372036854775807", token: token)
        #expect(page.0 == 400 && page.1.contains("400_INVALID_INPUT"))
        #expect(try recordSnapshot(cli) == before, "nothing was stored")
        #expect(try await server.terminate(within: .seconds(20)) == 0, "still running, and stops cleanly")
    }

    @Test(
        "SIGTERM during a long import: the import stops at once with 503, the server exits promptly, and nothing of the file is kept",
        .readsSQLiteFile)
    func sigtermDuringImport() async throws {
        let (cli, token, server) = try Self.servedNight()
        let before = try recordSnapshot(cli)
        // 150,000 rows over 2,500 past nights: tens of seconds of work, far longer than the wait before SIGTERM.
        var csv = "event_id,event_type,source,occurred_at_utc,local_tz,dose_sequence,note\n"
        let first = Date(timeIntervalSince1970: 1_570_000_000)
        let formatter = ISO8601DateFormatter()
        for night in 0..<2_500 {
            let start = first.addingTimeInterval(Double(night) * 86_400)
            for row in 0..<60 {
                csv +=
                    "n\(night)r\(row),\(row == 0 ? "dose1" : "bathroom"),user,\(formatter.string(from: start.addingTimeInterval(Double(row) * 60))),UTC,,\n"
            }
        }
        var request = HTTPClientRequest(url: server.base + "/v1/import")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "text/csv")
        request.body = .bytes(ByteBuffer(string: csv))
        let answer = Task { () -> (Int, String)? in
            guard let response = try? await ServeTests.client.execute(request, timeout: .seconds(120)) else { return nil }
            return (Int(response.status.code), String(buffer: (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()))
        }
        // The upload (about 9 MB on loopback) arrives well within a second; SIGTERM then meets the import at work. Were
        // it to arrive first, the import would be refused as shutting down, with the same answer and the same record.
        try await Task.sleep(for: .seconds(1))
        let stopped = ContinuousClock.now
        let exit = try await server.terminate(within: .seconds(20))
        let tookToStop = ContinuousClock.now - stopped
        #expect(exit == 0 && tookToStop < .seconds(5), "serve exits within 5 s of SIGTERM with an import under way (took \(tookToStop))")
        let (status, body) = await answer.value ?? (0, "no answer")
        #expect(status == 503 && body.contains("shutting down"), "the import is answered before the server goes: \(status) \(body.prefix(300))")
        #expect(try recordSnapshot(cli) == before, "nothing of the file is kept")
    }

    @Test("CONNECT and an absurd Content-Length are answered at once, framed, and the connection closed: no wait for a timeout", .readsSQLiteFile)
    func connectAndAbsurdLength() async throws {
        let (cli, _, server) = try Self.servedNight()
        let before = try recordSnapshot(cli)
        // CONNECT: NIO sends no length on any answer to CONNECT, so the close is what frames it. A length past what a
        // 64-bit parser holds is the parser's 400; one it holds but no route takes is 413, before any byte is awaited.
        for (request, statuses, code) in [
            ("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n", [405], nil),
            (
                "POST /v1/events/log HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9223372036854775808\r\n\r\n", [400],
                "400_INVALID_INPUT"
            ),
            (
                "POST /v1/events/log HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{", [413],
                "413_TOO_LARGE"
            ),
        ] as [(String, [Int], String?)] {
            let connection = try RawConnection(port: server.port)
            try connection.send(request)
            let started = Date()
            let (text, closed) = connection.readAll(limit: 5)
            #expect(closed && Date().timeIntervalSince(started) < 2, "\(request.prefix(40)): answered and closed at once")
            #expect(statuses.contains { text.hasPrefix("HTTP/1.1 \($0)") }, "\(request.prefix(40)) → \(text.prefix(200))")
            #expect(text.lowercased().contains("connection: close"), "\(text.prefix(300))")
            if let code {
                #expect(text.contains(code) && text.lowercased().contains("content-length:"), "framed, with its error: \(text.prefix(300))")
            }
        }
        #expect(try recordSnapshot(cli) == before)
    }

    @Test("malformed framing and forms: a bad chunk size, a bad request line, %zz in a form, 1e300 in the form's amount", .readsSQLiteFile)
    func framingAndForms() async throws {
        let (cli, token, server) = try Self.servedNight()
        let before = try recordSnapshot(cli)
        let auth = "Authorization: Bearer \(token)\r\n"
        let chunked = try RawConnection.exchange(
            port: server.port,
            "POST /v1/events/log HTTP/1.1\r\nHost: x\r\n\(auth)Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
        )
        #expect(chunked.status == 400 && chunked.body.contains("400_INVALID_INPUT"), "\(chunked)")
        let garbage = try RawConnection.exchange(port: server.port, "GARBAGE\r\n\r\n")
        #expect(garbage.status == 400 && garbage.body.contains("400_INVALID_INPUT"), "\(garbage)")
        let header = try RawConnection.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        #expect(header.status == 400 && header.body.contains("400_INVALID_INPUT"), "\(header)")
        // What the HTTP parser itself refuses answers like every other refusal: the JSON error and the security headers.
        let parserRefusals = [
            "POST /v1/events/log HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            "POST /v1/events/log HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: x\r\nX-Long: " + String(repeating: "a", count: 100_000) + "\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-\($0): a\r\n" }.joined() + "\r\n",
            "FOO /health HTTP/1.1\r\nHost: x\r\n\r\n",
        ]
        for request in parserRefusals {
            let answer = try RawConnection.exchange(port: server.port, request)
            #expect(answer.status == 400 && answer.body.contains("400_INVALID_INPUT"), "\(request.prefix(60)) → \(answer.status)")
            #expect(
                answer.head.contains("Content-Security-Policy: default-src 'self'") && answer.head.contains("X-Frame-Options: DENY")
                    && answer.head.contains("X-Content-Type-Options: nosniff"), "\(request.prefix(60)): \(answer.head)")
        }
        for key in ["café", "tab\there", "ключ"] {
            let body = #"{"type":"water"}"#
            let answer = try RawConnection.exchange(
                port: server.port,
                "POST /v1/events/log HTTP/1.1\r\nHost: x\r\n\(auth)Content-Type: application/json\r\nIdempotency-Key: \(key)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            #expect(answer.status == 400 && answer.body.contains("Idempotency-Key"), "key \(key) → \(answer.status) \(answer.body)")
        }

        // The form's CSRF token is on the page the form comes from.
        let (_, page, _) = try await ServeTests.request(server.base + "/medications?medication=modafinil", token: token)
        let csrf = page.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
        #expect(page.contains("value=\"200\""), "the usual dose is filled in where it can be seen")
        for form in [
            "csrf=\(csrf)&medication=modafinil&amount=1e300&unit=mg", "csrf=\(csrf)&medication=modafinil&amount=99999999999999999999&unit=mg",
            "csrf=\(csrf)&medication=modafinil&unit=mg", "csrf=\(csrf)&medication=modafinil&amount=%zz", "csrf=\(csrf)&medication=%",
        ] {
            let response = try RawConnection.exchange(
                port: server.port,
                "POST /ui/medications HTTP/1.1\r\nHost: x\r\n\(auth)Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
            )
            #expect(response.status == 400, "\(form) → \(response.status)")
        }
        #expect(try await ServeTests.request(server.base + "/health").0 == 200)
        #expect(try recordSnapshot(cli) == before, "nothing was stored")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }

    @Test("the same Idempotency-Key twice at once: one action, the same answer twice, no 500", .readsSQLiteFile)
    func sameKeyAtOnce() async throws {
        let (cli, token, server) = try Self.servedNight()
        for round in 0..<10 {
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var request = HTTPClientRequestFactory.post(server.base + "/v1/events/log", token: token, body: #"{"type":"dream"}"#)
                        request.headers.add(name: "Idempotency-Key", value: "same-key-\(round)")
                        let response = try await ServeTests.client.execute(request, timeout: .seconds(10))
                        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == 200 }, "round \(round): \(answers.map(\.0))")
            #expect(Set(answers.map(\.1)).count == 1, "every request gets the first answer")
        }
        let dreams = try await DatabaseQueue(path: cli.database).read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sleep_events WHERE event_type = 'dream'")
        }
        #expect(dreams == 10, "one event per key (dreams have no cooldown)")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }

    @Test("an events.csv with past nights imports while tonight's night is open, over HTTP and from the CLI", .readsSQLiteFile)
    func eventsCSVBesideAnOpenNight() async throws {
        let source = try CLI()
        for day in 17...19 {
            #expect(try source.run(["dose1"], now: "2026-11-\(day) 22:30").status == 0)
            #expect(try source.run(["dose2"], now: "2026-11-\(day + 1) 01:15").status == 0)
        }
        let export = source.directory.appendingPathComponent("events.csv").path
        #expect(try source.run(["export", "--format", "csv", "--out", export], now: "2026-11-20 12:00").status == 0)

        let cli = try CLI()
        #expect(try cli.run(["dose1"], now: "2026-11-21 22:30").status == 0)
        let imported = try cli.run(["import", export], now: "2026-11-21 23:00")
        #expect(imported.status == 0, "\(imported.stdout)")
        let nights = try await DatabaseQueue(path: cli.database).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sleep_sessions") }
        #expect(nights == 4)
        #expect(try cli.run(["status"], now: "2026-11-21 23:00").phase == "before_window", "tonight's night is still open")

        let other = try CLI()
        #expect(try other.run(["dose1"], now: "2026-11-21 22:30").status == 0)
        let token = try other.run(["device", "add", "probe"]).json["token"] as? String ?? ""
        let server = try Server(other, now: "2026-11-21 23:00")
        var request = HTTPClientRequestFactory.post(server.base + "/v1/import", token: token, body: "")
        request.body = .bytes(ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: export))))
        let response = try await ServeTests.client.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        #expect(response.status.code == 200, "\(text)")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }

    @Test("the command line: huge, missing and malformed amounts, long notes and bad pages exit 64 and store nothing", .readsSQLiteFile)
    func commandLine() throws {
        let cli = try CLI()
        #expect(try cli.run(["dose1"], now: "2026-11-21 22:30").status == 0)
        let before = try recordSnapshot(cli)
        let cases: [[String]] = [
            ["med", "log", "modafinil:99999999999999999999mg"], ["med", "log", "modafinil:1e300"], ["med", "log", "modafinil"],
            ["med", "log", "modafinil:0.000001mg"], ["med", "log", ""], ["med", "log", ":200"], ["med", "log", "modafinil:200kg"],
            ["log", "bathroom", "--note", note("e\u{301}", 500)], ["log", "bathroom", "--note", note("👨‍👩‍👧‍👦", 100)],
            ["history", "--page", "9223372036854775807"], ["history", "--page", "400001"], ["log", "water", "--at", "99999-01-01T00:00:00Z"],
            ["log", "water", "--at", "25:61"], ["device", "add", note("e\u{301}", 60)], ["log", "water", "--at", "0000-01-01T00:00:00Z"],
            ["log", "water", "--at", "1969-12-31T23:59:59Z"], ["status", "--now", "3000-01-01T00:00:00Z"],
        ]
        for arguments in cases {
            let run = try cli.run(arguments, now: "2026-11-21 23:00")
            #expect(run.status == 64, "\(arguments.joined(separator: " ").prefix(80)) → \(run.status) \(run.stdout.prefix(200))")
            #expect(run.errorCode == "400_INVALID_INPUT")
        }
        #expect(try recordSnapshot(cli) == before)
    }
}

/// Requests for AsyncHTTPClient.
enum HTTPClientRequestFactory {
    static func post(_ url: String, token: String, body: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        return request
    }
}
