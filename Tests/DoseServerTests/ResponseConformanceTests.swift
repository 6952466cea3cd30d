import Crypto
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

/// Drives the real router through whole nights and holds every answer to the published document: the status must be
/// one the operation documents, and a JSON body must conform to the schema documented for that status. The walk must
/// reach every JSON operation's success answer, so a route, a status or a field cannot drift from openapi.json without
/// a failing `swift test` (schemathesis in CI then fuzzes the same document against a live server).
@Suite("Every answer of the API conforms to /openapi.json")
struct ResponseConformanceTests {
    static let document = APIContractTests.document
    static let schemas = SchemaCheck(document: document)

    /// The document's path template for a concrete path; a literal segment wins over a parameter, as in the router.
    static func template(for path: String) -> String? {
        let parts = path.split(separator: "/")
        let candidates = (document["paths"]?.objectValue ?? [:]).keys.filter { template in
            let pattern = template.split(separator: "/")
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
        return candidates.max { $0.filter { $0 == "{" }.count > $1.filter { $0 == "{" }.count }
    }

    /// The operation's documented response for a status, with a `$ref` into components.responses followed.
    static func documented(_ template: String, _ method: String, _ status: Int) -> JSONValue? {
        guard let response = document["paths"]?[template]?[method.lowercased()]?["responses"]?[String(status)] else { return nil }
        if let reference = response["$ref"]?.stringValue {
            return reference.dropFirst(2).split(separator: "/").reduce(Optional(document)) { node, key in node?[String(key)] }
        }
        return response
    }

    /// Every JSON operation with a success answer: "METHOD /template".
    static var operationsWithJSONSuccess: Set<String> {
        var operations = Set<String>()
        for (template, item) in document["paths"]?.objectValue ?? [:] where template.hasPrefix("/v1/") || ["/health", "/ready"].contains(template) {
            for (method, operation) in item.objectValue ?? [:] {
                let succeeds = (operation["responses"]?.objectValue ?? [:]).contains { status, response in
                    status.hasPrefix("2") && response["content"]?["application/json"] != nil
                }
                if succeeds { operations.insert("\(method.uppercased()) \(template)") }
            }
        }
        return operations
    }

    /// One walk's client: every call is checked, and what it reached is remembered.
    final class Walk: Sendable {
        let client: any TestClientProtocol
        let auth: HTTPFields
        let reached = Mutex<Set<String>>([])

        init(_ client: any TestClientProtocol, _ fixture: ServerFixture) {
            self.client = client
            auth = fixture.auth
        }

        /// A walk whose calls carry `auth` unless a call gives its own.
        init(_ client: any TestClientProtocol, auth: HTTPFields) {
            self.client = client
            self.auth = auth
        }

        /// Calls the router and checks the answer against the document; returns the JSON body (null for none).
        @discardableResult
        func call(
            _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, expect status: HTTPResponse.Status,
            contentType: String = "application/json", as caller: HTTPFields? = nil, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> JSONValue {
            var headers = caller ?? auth
            headers[.contentType] = contentType
            let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
            let text = String(buffer: response.body)
            #expect(response.status == status, "\(method) \(path): \(text.prefix(300))", sourceLocation: sourceLocation)
            let route = path.split(separator: "?").first.map(String.init) ?? path
            guard let template = ResponseConformanceTests.template(for: route) else {
                Issue.record("\(method) \(route) is not in the document", sourceLocation: sourceLocation)
                return .null
            }
            guard let documented = ResponseConformanceTests.documented(template, method.rawValue, response.status.code) else {
                Issue.record(
                    "\(method) \(template) answered \(response.status.code), which the document does not list", sourceLocation: sourceLocation)
                return .null
            }
            reached.withLock { _ = $0.insert("\(method.rawValue) \(template) \(response.status.code)") }
            guard let schema = documented["content"]?["application/json"]?["schema"] else { return .null }
            guard let json = JSONValue.parse(Data(text.utf8)) else {
                Issue.record(
                    "\(method) \(template) \(response.status.code): the body is not JSON: \(text.prefix(200))", sourceLocation: sourceLocation)
                return .null
            }
            let problems = ResponseConformanceTests.schemas.problems(json, schema)
            #expect(problems == [], "\(method) \(template) \(response.status.code)", sourceLocation: sourceLocation)
            return json
        }
    }

    static func subscriptionBody(endpoint: String) -> String {
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let auth = Data((0..<16).map { UInt8($0 * 7 + 3) })
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return #"{"endpoint": "\#(endpoint)", "keys": {"p256dh": "\#(base64URL(key))", "auth": "\#(base64URL(auth))"}}"#
    }

    @Test("a whole night and the morning after, every record, setting and supply route, refusals included")
    func night() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 1, 20, 0))
        let reached = try await fixture.testReturning { client in
            let walk = Walk(client, fixture)
            // Seven steady nights near 195 minutes against the 165 target: insights with figures, and the planner's nudge.
            try await InsightsRouteTests.record(fixture, client, intervals: [195, 192, 198, 195, 190, 200, 196])
            try await walk.call(.get, "/v1/insights?nights=30", expect: .ok)
            try await walk.call(.post, "/v1/insights/planner", #"{"target_interval": 180}"#, expect: .badRequest)
            try await walk.call(.post, "/v1/insights/planner", #"{"target_interval": 180, "confirm": true}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 21, 22, 0))
            try await walk.call(.get, "/health", expect: .ok)
            // A SQLite file has one engine, which fires its reminders: ready whenever the file answers.
            try await walk.call(.get, "/ready", expect: .ok)
            try await walk.call(.get, "/v1/status", expect: .ok)
            try await walk.call(.post, "/v1/presleep", #"{"stress_level": 2, "caffeine_cups": 1}"#, expect: .ok)
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2"}"#, expect: .unprocessableContent)
            fixture.set(WallClock.date(2026, 11, 21, 22, 30))
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose1"}"#, expect: .ok)
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose1"}"#, expect: .conflict)
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2", "nonsense": 1}"#, expect: .badRequest)
            try await walk.call(.post, "/v1/doses/take", "type=dose2", expect: .unsupportedMediaType, contentType: "text/plain")
            let logged = try await walk.call(.post, "/v1/events/log", #"{"type": "bathroom", "note": "once"}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 21, 22, 31))
            try await walk.call(.get, "/v1/reminders", expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 1, 5))
            try await walk.call(.post, "/v1/doses/snooze", "{}", expect: .ok)
            try await walk.call(.get, "/v1/alarm/log", expect: .ok)
            try await walk.call(.post, "/v1/alarm/ack", "{}", expect: .ok)
            try await walk.call(.post, "/v1/alarm/test", "{}", expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 1, 20))
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2"}"#, expect: .ok)
            try await walk.call(.post, "/v1/undo", "{}", expect: .ok)
            try await walk.call(.post, "/v1/undo", "{}", expect: .unprocessableContent)
            fixture.set(WallClock.date(2026, 11, 22, 1, 21))
            try await walk.call(.post, "/v1/doses/skip", #"{"reason": "asleep"}"#, expect: .ok)
            // Dose 2 after all, one extra, then a second that the nightly maximum refuses and the record keeps (D20).
            fixture.set(WallClock.date(2026, 11, 22, 1, 22))
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2", "confirm": ["after_skip"]}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 1, 30))
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2", "confirm": ["extra"]}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 1, 40))
            try await walk.call(.post, "/v1/doses/take", #"{"type": "dose2", "confirm": ["extra"]}"#, expect: .unprocessableContent)
            try await walk.call(.post, "/v1/events/took-anyway", #"{"amount_mg": 99999}"#, expect: .badRequest)
            try await walk.call(.post, "/v1/events/took-anyway", #"{"note": "taken before I read the refusal"}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 6, 30))
            try await walk.call(.post, "/v1/events/wake", "{}", expect: .ok)
            try await walk.call(.post, "/v1/checkins", #"{"sleep_quality": 4, "feel_rested": "moderate"}"#, expect: .ok)
            fixture.set(WallClock.date(2026, 11, 22, 9, 0))
            try await walk.call(.patch, "/v1/checkins/2026-11-21", #"{"sleep_quality": 3}"#, expect: .ok)
            let history = try await walk.call(.get, "/v1/sessions", expect: .ok)
            try await walk.call(.get, "/v1/sessions?from=2026-11-01&to=2026-11-30", expect: .ok)
            try await walk.call(.get, "/v1/sessions?from=2026-13-01", expect: .badRequest)
            try await walk.call(.get, "/v1/sessions/2026-11-21", expect: .ok)
            try await walk.call(.get, "/v1/sessions/2026-10-01", expect: .notFound)
            let nightID = try #require(history["groups"]?.items?.first?["nights"]?.items?.first?["session_id"]?.stringValue)
            try await walk.call(.get, "/v1/nights/\(nightID)", expect: .ok)
            let eventID = try #require(logged["id"]?.stringValue)
            try await walk.call(.patch, "/v1/events/\(eventID)", #"{"note": "twice"}"#, expect: .ok)
            try await walk.call(.delete, "/v1/events/\(eventID)", expect: .ok)
            try await walk.call(.get, "/v1/settings", expect: .ok)
            try await walk.call(.patch, "/v1/settings", #"{"max_snoozes": 2}"#, expect: .ok)
            try await walk.call(.patch, "/v1/settings", #"{"max_snoozes": 9}"#, expect: .badRequest)
            let medication = try await walk.call(
                .post, "/v1/medications", #"{"entries": [{"medication_id": "adderall_ir", "amount": 10}]}"#, expect: .ok)
            try await walk.call(.get, "/v1/medications", expect: .ok)
            let medicationID = try #require(medication.items?.first?["id"]?.stringValue)
            try await walk.call(.delete, "/v1/medications/\(medicationID)", expect: .ok)
            try await walk.call(.get, "/v1/insights", expect: .ok)
            try await walk.call(.get, "/v1/supply", expect: .ok)
            let refill = try await walk.call(.post, "/v1/supply/refills", #"{"bottles": 1}"#, expect: .created)
            try await walk.call(.post, "/v1/supply/adjustments", #"{"counted_ml": 100, "reason": "counted"}"#, expect: .created)
            let entryID = try #require(refill["entry"]?["id"]?.stringValue)
            try await walk.call(.delete, "/v1/supply/entries/\(entryID)", expect: .ok)
            try await walk.call(.post, "/v1/push/subscriptions", Self.subscriptionBody(endpoint: "http://127.0.0.1:9/push"), expect: .created)
            try await walk.call(.get, "/v1/push/subscriptions", expect: .ok)
            try await walk.call(.delete, "/v1/push/subscriptions", #"{"endpoint": "http://127.0.0.1:9/push"}"#, expect: .ok)
            // The night's own events.csv, imported again: every event is already there, and the report says so.
            let export = try await client.execute(uri: "/v1/export/events.csv", method: .get, headers: fixture.auth)
            try await walk.call(.post, "/v1/import", String(buffer: export.body), expect: .ok, contentType: "application/octet-stream")
            // A night is deleted once its last dose is 8 hours old: the dose taken anyway at 01:40.
            fixture.set(WallClock.date(2026, 11, 22, 9, 45))
            try await walk.call(.delete, "/v1/sessions/2026-11-21", expect: .ok)
            try await walk.call(.post, "/v1/clear-all", #"{"confirm": "delete"}"#, expect: .badRequest)
            try await walk.call(.post, "/v1/clear-all", #"{"confirm": "\#(AppDatabase.clearAllPhrase)"}"#, expect: .ok)
            return walk.reached.withLock { $0 }
        }
        let successes = Set(reached.filter { $0.hasSuffix(" 200") || $0.hasSuffix(" 201") }.map { String($0.dropLast(4)) })
        let expected = Self.operationsWithJSONSuccess.filter { !Self.needsSharedStore($0) }
        #expect(expected.subtracting(successes).sorted() == [], "operations the walk never reached with success")
    }

    /// Whether an operation is one of sharing's, which answer only on a shared PostgreSQL store (on a file: 403).
    static func needsSharedStore(_ operation: String) -> Bool {
        ["/v1/shares", "/v1/people", "/v1/audit", "/v1/invitations/", "/v1/ladder"].contains { operation.contains(" " + $0) }
    }

    @Test("sharing on a shared store: every sharing operation and every route a grant opens answers as documented", SharedStoreFixture.enabled)
    func sharing() async throws {
        let fixture = try SharedStoreFixture(now: WallClock.date(2026, 11, 21, 22, 30), names: ["alice", "bob", "carol"])
        let alice = try #require(fixture.people["alice"]?.id)
        let reachedBox = Mutex<Set<String>>([])
        try await fixture.test { client in
            let walk = Walk(client, auth: fixture.auth("alice"))
            let bob = fixture.auth("bob")
            let invitation = try await walk.call(
                .post, "/v1/shares", #"{"email": "bob@example.org", "grants": ["log", "report", "alarms"]}"#, expect: .created)
            let token = String(invitation["invite_url"]?.stringValue?.split(separator: "=").last ?? "")
            let carols = try await walk.call(.post, "/v1/shares", #"{"email": "carol@example.org", "grants": ["view"]}"#, expect: .created)
            let carolsToken = String(carols["invite_url"]?.stringValue?.split(separator: "=").last ?? "")
            try await walk.call(.post, "/v1/invitations/decline", #"{"token": "\#(carolsToken)"}"#, expect: .ok, as: fixture.auth("carol"))
            try await walk.call(.post, "/v1/invitations/accept", #"{"token": "\#(token)"}"#, expect: .ok, as: bob)
            try await walk.call(.get, "/v1/people", expect: .ok, as: bob)
            let people = "/v1/people/\(alice)"
            try await walk.call(.post, "\(people)/doses/take", #"{"type": "dose1"}"#, expect: .ok, as: bob)
            try await walk.call(.post, "\(people)/events/log", #"{"type": "bathroom"}"#, expect: .ok, as: bob)
            try await walk.call(.post, "\(people)/doses/snooze", "{}", expect: .unprocessableContent, as: bob)
            fixture.time.set(WallClock.date(2026, 11, 22, 1, 5))
            try await walk.call(.post, "\(people)/doses/snooze", "{}", expect: .ok, as: bob)
            try await walk.call(.post, "\(people)/alarm/ack", "{}", expect: .ok, as: bob)
            try await walk.call(.post, "\(people)/doses/skip", #"{"reason": "asleep"}"#, expect: .ok, as: bob)
            fixture.time.set(WallClock.date(2026, 11, 22, 6, 30))
            try await walk.call(.post, "\(people)/events/wake", #"{"confirm": ["end_night"]}"#, expect: .ok, as: bob)
            try await walk.call(.get, "\(people)/status", expect: .ok, as: bob)
            let nights = try await walk.call(.get, "\(people)/sessions", expect: .ok, as: bob)
            let night = nights["groups"]?.items?.first?["nights"]?.items?.first?["session_id"]?.stringValue ?? "none"
            for route in ["sessions/2026-11-21", "nights/\(night)", "reminders", "alarm/log", "medications", "supply", "insights"] {
                try await walk.call(.get, "\(people)/\(route)", expect: .ok, as: bob)
            }
            try await walk.call(.get, "/v1/shares", expect: .ok)
            try await walk.call(.put, "/v1/ladder", #"{"rungs": [{"email": "bob@example.org", "minutes_after_dose1": 225}]}"#, expect: .ok)
            try await walk.call(.get, "/v1/ladder", expect: .ok)
            try await walk.call(.get, "/v1/audit", expect: .ok)
            let shareID = invitation["id"]?.stringValue ?? ""
            try await walk.call(.delete, "/v1/shares/\(shareID)", expect: .ok)
            try await walk.call(.get, "\(people)/status", expect: .notFound, as: bob)
            reachedBox.withLock { $0 = walk.reached.withLock { $0 } }
        }
        let reached = reachedBox.withLock { $0 }
        let successes = Set(reached.filter { $0.hasSuffix(" 200") || $0.hasSuffix(" 201") }.map { String($0.dropLast(4)) })
        let expected = Self.operationsWithJSONSuccess.filter(Self.needsSharedStore)
        #expect(expected.subtracting(successes).sorted() == [], "sharing operations the walk never reached with success")
    }
}

extension JSONValue {
    /// The items of an array; nil for anything else.
    var items: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

extension ServerFixture {
    /// `test(_:)` for a body that returns what it found.
    func testReturning<Value: Sendable>(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let found = Mutex<Value?>(nil)
        try await test { client in
            let value = try await body(client)
            found.withLock { $0 = value }
        }
        return try #require(found.withLock { $0 })
    }
}
