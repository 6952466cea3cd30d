import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import DoseServer

/// A server over an in-memory database with a clock the test moves.
final class ServerFixture: Sendable {
    let database: AppDatabase
    let time: TestClock
    let token: String
    let environment: AppEnvironment

    /// A fixture over a fresh in-memory database; `setUp` false leaves first-run setup to do (the welcome tests).
    /// `allowLoopbackTargets`: push services and webhooks under test listen on loopback (`DOSETAP_ALLOW_LOOPBACK_TARGETS`).
    /// `scratchFolder`: where exports, uploads and support bundles are made (default the system's temporary folder).
    /// `wallFollowsClock`: the wall clock (which times taps, D15) is the test's clock too, for the tests of one tap.
    init(
        now: Date, timeZoneOverride: TimeZone? = nil, setUp: Bool = true, database: AppDatabase? = nil, allowLoopbackTargets: Bool = true,
        scratchFolder: URL? = nil, wallFollowsClock: Bool = false
    ) throws {
        self.database = try database ?? AppDatabase.inMemory()
        let time = TestClock(now)
        self.time = time
        token = DeviceTokens.generate(.system)
        var environment = AppEnvironment(
            database: self.database, now: { time.now }, machineTimeZoneID: "America/New_York", timeZoneOverride: timeZoneOverride,
            makeID: { time.nextID() },
            random: .system)
        environment.outbound.allowLoopback = allowLoopbackTargets
        // Retries in these tests wait for nothing; the alarms' peers (push services, webhooks) are real listeners.
        environment.sleep = { _ in }
        environment.http = OutboundHTTP.sender
        if let scratchFolder { environment.scratchFolder = scratchFolder }
        if wallFollowsClock { environment.wallClock = { time.now } }
        self.environment = environment
        let store = StoreClock(now: now, machineTimeZoneID: "America/New_York", makeID: { UUID().uuidString }, random: .system)
        _ = try self.database.addDevice(name: "test", tokenHash: DeviceTokens.hash(token), clock: store)
        if setUp { try UseCases(self.database, clock: store).setup.complete(surface: "cli") }
    }

    func set(_ date: Date) { time.set(date) }

    var auth: HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }

    /// Every 500 the fixture's routers answer: each is a DoseTap bug, so every test through a fixture fails on one.
    let internalErrors = InternalErrorLog()

    /// The real router over this fixture's database, reporting 500s to `internalErrors`.
    func router(pairing: PairingCodes = PairingCodes()) -> Router<DoseRequestContext> {
        DoseTapServer.router(environment: environment, pairing: pairing, internalErrors: internalErrors)
    }

    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: router())
        try await app.test(.router) { client in try await body(client) }
        expectNoInternalErrors()
    }

    /// Fails the test if any request so far was answered 500.
    func expectNoInternalErrors(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(internalErrors.all.isEmpty, "answered 500: \(internalErrors.all)", sourceLocation: sourceLocation)
    }

    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
    }

    static func code(_ response: TestResponse) -> String? { (json(response)["error"] as? [String: Any])?["code"] as? String }
}

private func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

@Suite("HTTP API against the real router")
struct RouterTests {
    @Test("every route except the open ones answers 401 without a valid token — built from the router's own route list")
    func authenticationMatrix() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        let routes = DoseTapServer.router(environment: fixture.environment).routes.map { ($0.path.description, $0.method) }
        #expect(routes.count >= 30)
        try await fixture.test { client in
            for route in routes {
                let path = route.0.replacingOccurrences(of: ":date", with: "2026-11-21").replacingOccurrences(of: ":token", with: "x")
                let open = DoseTapServer.isOpen(path)
                for headers: HTTPFields in [
                    [:], [.authorization: "Bearer dtp_wrong"], [.authorization: "Basic abc"], [.cookie: "dosetap_device=dtp_wrong"],
                ] {
                    let response = try await client.execute(uri: path, method: route.1, headers: headers, body: buffer("{}"))
                    if open {
                        #expect(response.status != .unauthorized, "\(route) is open")
                    } else {
                        #expect(response.status == .unauthorized, "\(route) answered \(response.status) without a valid token")
                        if path.hasPrefix("/v1/") {
                            #expect(ServerFixture.code(response) == "401_DEVICE_NOT_REGISTERED")
                        } else {
                            #expect(String(buffer: response.body).contains("Not paired"))
                        }
                    }
                }
            }
        }
    }

    @Test("a night over HTTP: take, too-early refusal with its confirm, snooze, undo, log, status, analytics")
    func night() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            var response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type": "dose1"}"#))
            #expect(response.status == .ok)
            var body = ServerFixture.json(response)
            #expect(body["type"] as? String == "dose1")
            #expect(body["next_window_opens"] as? String == "2026-11-22T06:00:00.000Z")
            #expect((body["status"] as? [String: Any])?["phase"] as? String == "before_window")
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)

            fixture.set(WallClock.date(2026, 11, 22, 0, 40))
            response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type": "dose2"}"#))
            #expect(response.status == .unprocessableContent)
            body = ServerFixture.json(response)
            #expect((body["error"] as? [String: Any])?["confirm"] as? String == "early")

            fixture.set(WallClock.date(2026, 11, 22, 1, 5))
            response = try await client.execute(uri: "/v1/doses/snooze", method: .post, headers: fixture.auth, body: buffer(#"{"minutes": 10}"#))
            body = ServerFixture.json(response)
            #expect(body["snoozes_used"] as? Int == 1)
            #expect(body["snoozes_remaining"] as? Int == 2)
            response = try await client.execute(uri: "/v1/doses/snooze", method: .post, headers: fixture.auth, body: buffer(#"{"minutes": 15}"#))
            #expect(response.status == .badRequest)
            response = try await client.execute(uri: "/v1/undo", method: .post, headers: fixture.auth)
            #expect((ServerFixture.json(response)["undone"] as? [String: Any])?["type"] as? String == "snooze")

            // On the wire, the wire name exactly: a label or another case is refused (the CLI takes those).
            for type in ["Bathroom", "BATHROOM", "wakeTemp"] {
                response = try await client.execute(
                    uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(#"{"type": "\#(type)", "note": "quick"}"#))
                #expect(response.status == .badRequest && String(buffer: response.body).contains("wire name"), "\(type)")
            }
            response = try await client.execute(
                uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(#"{"type": "bathroom", "note": "quick"}"#))
            #expect(ServerFixture.json(response)["type"] as? String == "bathroom")
            response = try await client.execute(uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(#"{"type": "bathroom"}"#))
            #expect(response.status == .tooManyRequests)
            #expect(response.headers[.retryAfter] == "60")

            fixture.set(WallClock.date(2026, 11, 22, 1, 20))
            response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type": "dose2"}"#))
            #expect((ServerFixture.json(response)["status"] as? [String: Any])?["phase"] as? String == "completed")
            response = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth)
            #expect(ServerFixture.json(response)["dose2_at"] as? String == "2026-11-22T06:20:00.000Z")

            fixture.set(WallClock.date(2026, 11, 22, 12, 0))
            response = try await client.execute(uri: "/v1/analytics/export?start_date=2026-11-01", method: .get, headers: fixture.auth)
            #expect(response.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(
                String(buffer: response.body)
                    == "Date,Dose1Time,Dose2Time,Interval,OnTime,NaturalWake\r\n2026-11-21,22:30:00,01:20:00,170,true,false\r\n")
            response = try await client.execute(uri: "/v1/sessions/2026-11-21", method: .get, headers: fixture.auth)
            #expect(
                ((try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [[String: Any]])?.first?["interval_minutes"]
                    as? Int == 170
            )
        }
    }

    @Test("past the nightly maximum over HTTP: 422_NIGHTLY_MAXIMUM naming the API's way to record it, nothing kept; took-anyway keeps it")
    func nightlyMaximum() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            func take(_ body: String, at date: Date) async throws -> TestResponse {
                fixture.set(date)
                return try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(body))
            }
            #expect(try await take(#"{"type": "dose1"}"#, at: WallClock.date(2026, 11, 21, 22, 30)).status == .ok)
            #expect(try await take(#"{"type": "dose2"}"#, at: WallClock.date(2026, 11, 22, 1, 20)).status == .ok)
            #expect(try await take(#"{"type": "dose2", "confirm": ["extra"]}"#, at: WallClock.date(2026, 11, 22, 1, 40)).status == .ok)
            let before = String(buffer: try await client.execute(uri: "/v1/sessions/2026-11-21", method: .get, headers: fixture.auth).body)
            let refused = try await take(#"{"type": "dose2", "confirm": ["extra", "early", "late"]}"#, at: WallClock.date(2026, 11, 22, 1, 50))
            let error = ServerFixture.json(refused)["error"] as? [String: Any]
            #expect(refused.status == .unprocessableContent && error?["code"] as? String == "422_NIGHTLY_MAXIMUM" && error?["confirm"] == nil)
            let message = error?["message"] as? String ?? ""
            #expect(message.contains("`POST /v1/events/took-anyway`") && !message.contains("dosetap event"), "\(message)")
            #expect(message.contains("emergency services"), "\(message)")
            #expect(String(buffer: try await client.execute(uri: "/v1/sessions/2026-11-21", method: .get, headers: fixture.auth).body) == before)
            let anyway = try await client.execute(
                uri: "/v1/events/took-anyway", method: .post, headers: fixture.auth, body: buffer(#"{"note": "taken before I read it"}"#))
            #expect(anyway.status == .ok, "\(String(buffer: anyway.body))")
            #expect(String(buffer: try await client.execute(uri: "/v1/sessions/2026-11-21", method: .get, headers: fixture.auth).body) != before)
        }
    }

    @Test("Idempotency-Key: the same key and body replay the stored answer; another body is 422_IDEMPOTENCY_MISMATCH")
    func idempotency() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        var keyed = fixture.auth
        keyed[HTTPField.Name("Idempotency-Key")!] = "tap-1"
        let headers = keyed
        try await fixture.test { client in
            let first = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: buffer(#"{"type": "dose1"}"#))
            fixture.set(WallClock.date(2026, 11, 21, 22, 31))
            let replay = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: buffer(#"{"type": "dose1"}"#))
            #expect(replay.status == .ok)
            #expect(replay.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(Data(replay.body.readableBytesView) == Data(first.body.readableBytesView))
            let other = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: buffer(#"{"type": "dose2"}"#))
            #expect(ServerFixture.code(other) == "422_IDEMPOTENCY_MISMATCH")
        }
        let events = try fixture.environment.useCases(
            at: StoreClock(now: WallClock.date(2026, 11, 21, 23, 0), machineTimeZoneID: "America/New_York", makeID: { "x" }, random: .system)
        ).transfer.eventsCSV()
        #expect(events.components(separatedBy: "dose1_taken").count == 2, "one Dose 1, not two")
    }

    @Test("a client event id makes a replay return the recorded event instead of a second one")
    func clientEventID() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            let body = #"{"type": "water", "id": "client-123"}"#
            let first = try await client.execute(uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(body))
            #expect(ServerFixture.json(first)["id"] as? String == "client-123")
            fixture.set(WallClock.date(2026, 11, 21, 22, 40))
            let again = try await client.execute(uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(body))
            #expect(again.status == .ok)
            #expect(ServerFixture.json(again)["replayed"] as? Bool == true)
        }
    }

    /// A body is taken exactly as sent or refused by name: a misspelled key, a repeated key, a string for a number or
    /// a list, an unsafe event id, a body that is not JSON, or a query parameter a route does not take.
    static let strictness:
        [(method: HTTPRequest.Method, uri: String, body: String, contentType: String?, status: HTTPResponse.Status, names: String)] = [
            (.post, "/v1/events/log", #"{"type":"water","occurred_at":"2026-11-22T02:10:00Z"}"#, "application/json", .badRequest, "occurred_at"),
            (.post, "/v1/doses/take", #"{"type":"dose1","timestmap":"2026-11-22T02:10:00Z"}"#, "application/json", .badRequest, "timestmap"),
            (.post, "/v1/events/log", #"{"type":"water","type":"bathroom"}"#, "application/json", .badRequest, "appears twice"),
            (.post, "/v1/events/log", #"{"type":"water","\u0074ype":"bathroom"}"#, "application/json", .badRequest, "appears twice"),
            (
                .post, "/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":100,"amount":200}]}"#, "application/json", .badRequest,
                "appears twice"
            ),
            (
                .post, "/v1/medications", #"{"entries":[{"medication_id":"modafinil","amount":100,"dose":200}]}"#, "application/json", .badRequest,
                "dose"
            ),
            (.post, "/v1/undo", #"{"everything":true}"#, "application/json", .badRequest, "everything"),
            (.post, "/v1/events/log", #"{"type":"water"}"#, "text/plain", .unsupportedMediaType, "application/json"),
            (.post, "/v1/events/log", #"{"type":"water"}"#, nil, .unsupportedMediaType, "no Content-Type"),
            (.post, "/v1/events/log", #"{"type":"water"}"#, "application/json; charset=iso-8859-1", .unsupportedMediaType, "UTF-8"),
            (.post, "/v1/events/log", #"{"type":"water"}"#, "application/json;charset=\"UTF-16\"", .unsupportedMediaType, "UTF-8"),
            (.patch, "/v1/settings", #"{"target_interval":"180"}"#, "application/json", .badRequest, "target_interval"),
            (.patch, "/v1/settings", #"{"allow_snoozing":"false"}"#, "application/json", .badRequest, "allow_snoozing"),
            (.patch, "/v1/settings", #"{"colour":"red"}"#, "application/json", .badRequest, "colour"),
            (.post, "/v1/doses/take", #"{"type":"dose1","confirm":"early"}"#, "application/json", .badRequest, "not a list"),
            (.post, "/v1/events/log", #"{"type":"water","id":"../../etc/passwd"}"#, "application/json", .badRequest, "not an event id"),
            (.post, "/v1/events/log", #"{"type":"water","id":"<b>x</b>"}"#, "application/json", .badRequest, "not an event id"),
            (.get, "/v1/export?start_date=xx", "", nil, .badRequest, "start_date"),
            (.get, "/v1/status?verbose=1", "", nil, .badRequest, "verbose"),
            (.get, "/v1/sessions?form=2026-11-01", "", nil, .badRequest, "form"),
        ]

    @Test(
        "a JSON body may say it is UTF-8, in any case and quoted or not",
        arguments: ["application/json; charset=utf-8", "application/json;charset=\"UTF-8\""])
    func utf8Declared(contentType: String) async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 2, 30))
        var sent = fixture.auth
        sent[.contentType] = contentType
        let headers = sent
        try await fixture.test { client in
            let response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: headers, body: buffer(#"{"type":"dose1"}"#))
            #expect(response.status == .ok, "\(contentType) → \(response.status)")
        }
    }

    @Test(
        "strict bodies and queries: unknown or repeated keys, wrong types, unsafe ids and non-JSON bodies are refused by name; nothing is stored",
        arguments: strictness)
    func strictBodies(method: HTTPRequest.Method, uri: String, body: String, contentType: String?, status: HTTPResponse.Status, names: String)
        async throws
    {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 2, 30))
        var sent = fixture.auth
        sent[.contentType] = contentType
        let headers = sent
        try await fixture.test { client in
            let response = try await client.execute(uri: uri, method: method, headers: headers, body: buffer(body))
            #expect(response.status == status, "\(method) \(uri) \(body) → \(response.status)")
            let message = (ServerFixture.json(response)["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(names), "\(message)")
            #expect(response.headers[.contentSecurityPolicy] != nil)
            let snapshot = try fixture.environment.useCases().night.status()
            #expect(snapshot.session == nil && snapshot.settings.targetIntervalMinutes == 165 && snapshot.settings.allowSnoozing)
        }
    }

    @Test("the HTTP edge answers each SPEC §4 code with the status its number names", arguments: ErrorCode.allCases)
    func statusOfEachCode(code: ErrorCode) {
        #expect(code.httpStatus.code == Int(code.wire.prefix(3)))
        #expect((400...599).contains(code.httpStatus.code))
    }

    @Test("typed values are taken: numbers, true/false, a list of confirmations, a UUID event id; HEAD answers as GET without a body")
    func typedValues() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 22, 2, 30))
        try await fixture.test { client in
            var response = try await client.execute(
                uri: "/v1/settings", method: .patch, headers: fixture.auth,
                body: buffer(#"{"target_interval":180,"allow_snoozing":false,"quick_log":["bathroom","water"]}"#))
            #expect(response.status == .ok && ServerFixture.json(response)["quick_log"] as? String == "bathroom,water")
            response = try await client.execute(
                uri: "/v1/events/log", method: .post, headers: fixture.auth,
                body: buffer(#"{"type":"water","id":"6F9619FF-8B86-D011-B42D-00C04FC964FF"}"#))
            #expect(response.status == .ok && ServerFixture.json(response)["id"] as? String == "6F9619FF-8B86-D011-B42D-00C04FC964FF")
            response = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type":"dose1","confirm":["early"]}"#))
            #expect(response.status == .ok)
            let get = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth)
            let head = try await client.execute(uri: "/v1/status", method: .head, headers: fixture.auth)
            #expect(
                head.status == .ok && head.body.readableBytes == 0 && head.headers[.contentType] == get.headers[.contentType],
                "\(head.status) \(head.body.readableBytes) \(String(describing: head.headers[.contentType]))")
            #expect(try await client.execute(uri: "/v1/status", method: .head).status == .unauthorized, "HEAD needs the token as GET does")
        }
        fixture.expectNoInternalErrors()
    }

    @Test("limits and bad input: 413 for a large body, 400 for malformed JSON and bad fields, 404 for unknown routes")
    func limits() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            let large = String(repeating: "a", count: ServerLimits.body + 1)
            var response = try await client.execute(uri: "/v1/events/log", method: .post, headers: fixture.auth, body: buffer(large))
            #expect(response.status == .contentTooLarge)
            #expect(ServerFixture.code(response) == "413_TOO_LARGE")
            for bad in [
                "{bad", "[1,2]", #"{"type": 5}"#, #"{"type": "dose3"}"#, #"{"type": "dose1", "timestamp": "later"}"#,
                #"{"type": "dose1", "confirm": "yes"}"#,
            ] {
                response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(bad))
                #expect(response.status == .badRequest, "\(bad)")
                #expect(ServerFixture.code(response) == "400_INVALID_INPUT")
            }
            // Imports may be larger (20 MiB): a 100 KiB upload reaches the importer, which says what is wrong with it.
            response = try await client.execute(
                uri: "/v1/import", method: .post, headers: fixture.auth, body: buffer(String(repeating: "x", count: 100_000)))
            #expect(response.status == .badRequest)
            #expect((ServerFixture.json(response)["error"] as? [String: Any])?["message"] as? String != nil)
            response = try await client.execute(uri: "/v1/nothing", method: .get, headers: fixture.auth)
            #expect(response.status == .notFound)
            response = try await client.execute(uri: "/v1/sessions/2026-13-01", method: .get, headers: fixture.auth)
            #expect(response.status == .badRequest)
            response = try await client.execute(
                uri: "/v1/settings", method: .patch, headers: fixture.auth, body: buffer(#"{"target_interval": 200}"#))
            #expect(response.status == .badRequest)
            response = try await client.execute(
                uri: "/v1/settings", method: .patch, headers: fixture.auth, body: buffer(#"{"target_interval": 195, "allow_snoozing": false}"#))
            #expect(ServerFixture.json(response)["target_interval"] as? String == "195")
            #expect(ServerFixture.json(response)["allow_snoozing"] as? String == "false")
            // One refused key refuses the whole change: the valid key before it is not applied either.
            response = try await client.execute(
                uri: "/v1/settings", method: .patch, headers: fixture.auth, body: buffer(#"{"allow_snoozing": true, "max_snoozes": 99}"#))
            #expect(response.status == .badRequest)
            response = try await client.execute(uri: "/v1/settings", method: .get, headers: fixture.auth)
            #expect(ServerFixture.json(response)["allow_snoozing"] as? String == "false")
        }
    }

    @Test("revocation applies to the very next request")
    func revocation() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth).status == .ok)
            _ = try fixture.environment.useCases(at: StoreClock(now: Date(), machineTimeZoneID: "UTC", makeID: { "r" }, random: .system)).devices
                .revoke("test")
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth).status == .unauthorized)
        }
    }

    @Test("tokens: 256 random bits, stored only as a hash, compared in constant time")
    func tokens() {
        let a = DeviceTokens.generate(.system)
        let b = DeviceTokens.generate(.system)
        #expect(a != b)
        #expect(a.count == 4 + 64)
        #expect(DeviceTokens.hash(a).count == 64)
        #expect(DeviceTokens.constantTimeEqual(DeviceTokens.hash(a), DeviceTokens.hash(a)))
        #expect(!DeviceTokens.constantTimeEqual(DeviceTokens.hash(a), DeviceTokens.hash(b)))
        #expect(!DeviceTokens.constantTimeEqual("ab", "abc"))
    }

    @Test("a device sending too many requests gets 429 with Retry-After")
    func rateLimit() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30))
        try await fixture.test { client in
            for _ in 0..<ServerLimits.requestsPerMinute {
                #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth).status == .ok)
            }
            let limited = try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "60")
            fixture.set(WallClock.date(2026, 11, 21, 22, 31))
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth).status == .ok)
        }
    }
}

@Suite("HTTP API: record keeping, export, import, clear-all")
struct RecordRouteTests {
    @Test("check-in, pre-sleep, medications, corrections, reminders, insights over HTTP")
    func records() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 21, 30))
        try await fixture.test { client in
            var response = try await client.execute(
                uri: "/v1/presleep", method: .post, headers: fixture.auth, body: buffer(#"{"stress_level": 2, "caffeine_cups": 1}"#))
            #expect(ServerFixture.json(response)["completion_state"] as? String == "partial")
            fixture.set(WallClock.date(2026, 11, 21, 22, 30))
            response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type": "dose1"}"#))
            let dose1 = try #require(ServerFixture.json(response)["id"] as? String)
            response = try await client.execute(uri: "/v1/reminders", method: .get, headers: fixture.auth)
            #expect((ServerFixture.json(response)["reminders"] as? [Any])?.count == 12)
            fixture.set(WallClock.date(2026, 11, 22, 1, 15))
            response = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: buffer(#"{"type": "dose2"}"#))
            fixture.set(WallClock.date(2026, 11, 22, 8, 0))
            response = try await client.execute(
                uri: "/v1/medications", method: .post, headers: fixture.auth,
                body: buffer(
                    #"{"entries": [{"medication_id": "adderall_ir", "amount": 10}, {"medication_id": "modafinil", "amount": 0.2, "unit": "g"}]}"#))
            #expect(((try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [[String: Any]])?.count == 2)
            response = try await client.execute(
                uri: "/v1/medications", method: .post, headers: fixture.auth,
                body: buffer(#"{"entries": [{"medication_id": "adderall_ir", "amount": 10}]}"#))
            #expect(ServerFixture.code(response) == "409_DUPLICATE_MEDICATION")
            response = try await client.execute(
                uri: "/v1/checkins", method: .post, headers: fixture.auth, body: buffer(#"{"sleep_quality": 4, "had_hallucinations": true}"#))
            #expect(ServerFixture.json(response)["wellness_score"] as? Int == 59)
            response = try await client.execute(uri: "/v1/checkins", method: .post, headers: fixture.auth, body: buffer(#"{"sleep_qualty": 4}"#))
            #expect(response.status == .badRequest)
            response = try await client.execute(
                uri: "/v1/checkins/2026-11-21", method: .patch, headers: fixture.auth, body: buffer(#"{"sleep_quality": 5}"#))
            #expect(ServerFixture.json(response)["sleep_quality"] as? Int == 5)
            response = try await client.execute(
                uri: "/v1/events/\(dose1)", method: .patch, headers: fixture.auth, body: buffer(#"{"note": "corrected"}"#))
            #expect((ServerFixture.json(response)["after"] as? [String: Any])?["note"] as? String == "corrected")
            response = try await client.execute(uri: "/v1/events/nope", method: .delete, headers: fixture.auth)
            #expect(response.status == .notFound)
            response = try await client.execute(uri: "/v1/insights", method: .get, headers: fixture.auth)
            #expect(((ServerFixture.json(response)["timing"] as? [String: Any])?["on_target"] as? [String: Any])?["nights"] as? Int == 1)
        }
    }

    @Test("export bundle, import it into another server, clear-all with its phrase; no file is left in the scratch folder")
    func exportImportClear() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-scratch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let leftBehind: @Sendable () throws -> [String] = { try FileManager.default.contentsOfDirectory(atPath: scratch.path) }
        let source = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 30), scratchFolder: scratch)
        let zip = DataBox()
        let auth = source.auth
        try await source.test { client in
            _ = try await client.execute(uri: "/v1/doses/take", method: .post, headers: auth, body: buffer(#"{"type": "dose1"}"#))
            source.set(WallClock.date(2026, 11, 22, 12, 0))
            let response = try await client.execute(uri: "/v1/export", method: .get, headers: auth)
            #expect(response.headers[.contentType] == "application/zip")
            zip.set(Data(response.body.readableBytesView))
        }
        #expect(try leftBehind().isEmpty)
        let target = try ServerFixture(now: WallClock.date(2026, 11, 22, 12, 0), scratchFolder: scratch)
        let targetAuth = target.auth
        let bundle = zip.get()
        try await target.test { client in
            var response = try await client.execute(uri: "/v1/import", method: .post, headers: targetAuth, body: ByteBuffer(bytes: bundle))
            #expect((ServerFixture.json(response)["imported"] as? [String: Any])?["sessions.csv"] as? Int == 1)
            response = try await client.execute(uri: "/v1/import", method: .post, headers: targetAuth, body: buffer("PK not a bundle"))
            #expect(response.status == .badRequest)
            #expect(try leftBehind().isEmpty, "neither a good nor a refused upload leaves a file behind")
            response = try await client.execute(uri: "/v1/clear-all", method: .post, headers: targetAuth, body: buffer(#"{"confirm": "yes"}"#))
            #expect(response.status == .badRequest)
            response = try await client.execute(
                uri: "/v1/clear-all", method: .post, headers: targetAuth, body: buffer(#"{"confirm": "Clear All Data — This cannot be undone."}"#))
            #expect(ServerFixture.json(response)["remaining_rows"] as? Int == 0)
            // The device table was cleared too: the token no longer works.
            response = try await client.execute(uri: "/v1/status", method: .get, headers: targetAuth)
            #expect(response.status == .unauthorized)
        }
    }
}

/// Bytes handed out of a test closure.
final class DataBox: Sendable {
    private let state = Mutex(Data())
    func set(_ data: Data) { state.withLock { $0 = data } }
    func get() -> Data { state.withLock { $0 } }
}
