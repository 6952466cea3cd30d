import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DoseServer

/// The OpenAPI document is written beside the handlers; these tests hold the two together, and schemathesis (in CI)
/// checks every answer of the live server against it.
@Suite("The published API contract (/openapi.json) agrees with the router and the rules")
struct APIContractTests {
    static let document: JSONValue = JSONValue.parse(Data(APIContract.document.utf8)) ?? .null

    static func at(_ path: String...) -> JSONValue? {
        path.reduce(Optional(document)) { value, key in value?[key] }
    }

    /// A schema's `enum` as texts (null left out), or its `items`' enum for a list.
    static func names(_ schema: JSONValue?) -> [String] {
        guard let schema else { return [] }
        if case .array(let values) = schema["enum"] ?? schema["items"]?["enum"] ?? .null { return values.compactMap(\.stringValue).sorted() }
        return []
    }

    static func components(_ name: String) -> JSONValue? { at("components", "schemas", name) }

    @Test("it is OpenAPI 3.1 and names both ways in: a device token and the paired browser's cookie")
    func header() {
        #expect(Self.at("openapi")?.stringValue == "3.1.0")
        #expect(Self.at("components", "securitySchemes", "deviceToken", "scheme")?.stringValue == "bearer")
        #expect(Self.at("components", "securitySchemes", "pairedBrowser", "name")?.stringValue == AuthMiddleware.cookie)
    }

    @Test("every route the router serves is described with its method, and the document describes no route the router lacks")
    func routes() throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        // The router describes a parameter as the document does: `/v1/sessions/{date}`.
        let served = Set(fixture.router().routes.map { "\($0.method.rawValue.lowercased()) \($0.path.description)" })
        var described: Set<String> = []
        for (path, operations) in Self.at("paths")?.objectValue ?? [:] {
            for method in (operations.objectValue ?? [:]).keys { described.insert("\(method) \(path)") }
        }
        #expect(served.count >= 50)
        #expect(served.subtracting(described).sorted() == [], "served but not described")
        // A person's routes for someone who shares with them are served by that person's site through
        // `SharedAccessMiddleware`, not by routes of their own: each must be a route a grant opens, and each such route
        // must be described.
        let sharedPrefix = "/v1/people/{person}/"
        let sharedDescribed = Set(described.filter { $0.contains(" " + sharedPrefix) })
        let opened = Set(
            SharedRoutes.opened.values.flatMap { $0 }.map { method, route in
                "\(method.rawValue.lowercased()) \(sharedPrefix)\(route.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/"))"
            })
        #expect(sharedDescribed == opened, "the shared routes described are the ones grants open")
        // So are the pages of theirs a grant opens under `/people/{person}/`.
        let pagePrefix = "/people/{person}/"
        let pagesDescribed = Set(described.filter { $0.contains(" " + pagePrefix) })
        let pagesOpened = Set(
            SharedRoutes.pages.values.flatMap { $0 }.map { method, route in "\(method.rawValue.lowercased()) \(pagePrefix)\(route)" })
        #expect(pagesDescribed == pagesOpened, "the shared pages described are the ones grants open")
        #expect(described.subtracting(served).subtracting(sharedDescribed).subtracting(pagesDescribed).sorted() == [], "described but not served")
    }

    @Test("every operation says which statuses it answers, each refusal with the SPEC §4 error body, and open routes need no token")
    func responses() {
        for (path, operations) in Self.at("paths")?.objectValue ?? [:] {
            for (method, operation) in operations.objectValue ?? [:] {
                let statuses = (operation["responses"]?.objectValue ?? [:]).keys
                #expect(["200", "201", "303"].contains { statuses.contains($0) }, "\(method) \(path) has no success")
                let open = operation["security"] == .array([])
                #expect(
                    open == AuthMiddleware.isOpen(path.replacingOccurrences(of: "{token}", with: "x")),
                    "\(method) \(path): open in the document and the server alike")
                if path.hasPrefix("/v1/") {
                    for status in statuses where !status.hasPrefix("2") {
                        #expect(
                            operation["responses"]?[status]?["$ref"]?.stringValue == "#/components/responses/\(status)", "\(method) \(path) \(status)"
                        )
                    }
                    #expect(statuses.contains("401") && statuses.contains("429"), "\(method) \(path) needs a token and is rate limited")
                }
            }
        }
    }

    @Test("the enumerations are the rules' own: error codes, confirmations, phases, reminders, settings, events, check-in answers")
    func enumerations() {
        func sorted<T: RawRepresentable>(_ values: [T]) -> [String] where T.RawValue == String { values.map(\.rawValue).sorted() }
        #expect(
            Self.names(Self.components("Error")?["properties"]?["error"]?["properties"]?["code"])
                == (ErrorCode.allCases.map(\.wire) + ["500_INTERNAL"]).sorted())
        #expect(Self.names(Self.components("TakeRequest")?["properties"]?["confirm"]) == sorted(ConfirmKind.nightKinds))
        #expect(Self.names(Self.components("Status")?["properties"]?["phase"]) == sorted(NightPhase.allCases))
        let period = Self.components("Status")?["properties"]?["dose2_periods"]?["items"]?["properties"]
        #expect(Self.names(period?["kind"]) == sorted(Dose2Period.Kind.allCases))
        #expect(Self.names(period?["confirm"]?["items"]) == sorted(ConfirmKind.nightKinds))
        #expect(Self.names(Self.components("Reminder")?["properties"]?["kind"]) == sorted(ReminderKind.allCases))
        #expect(Self.names(Self.components("Event")?["properties"]?["source"]) == sorted(EventSource.allCases))
        let catalogue = SleepEventCatalogue.standard.definitions.map(\.type.rawValue).sorted()
        #expect(Self.names(Self.components("LogRequest")?["properties"]?["type"]) == catalogue)
        let settings = Self.components("SettingsPatch")?["properties"]
        // Every setting, and beside them the confirmations a change may carry.
        #expect((settings?.objectValue ?? [:]).keys.sorted() == (DoseSettings(timeZoneID: "UTC").listing().map(\.key) + ["confirm"]).sorted())
        #expect(Self.names(settings?["confirm"]?["items"]) == SettingsBody.acceptedConfirmations.map(\.rawValue).sorted())
        #expect(settings?["target_interval"]?["enum"] == .array(DoseSettings.targetIntervalOptions.map(JSONValue.int)))
        #expect(settings?["undo_window_seconds"]?["enum"] == .array(DoseSettings.undoWindowOptions.map(JSONValue.int)))
        #expect(settings?["max_snoozes"]?["maximum"] == .int(DoseSettings.maxSnoozesRange.upperBound))
        #expect(Self.names(settings?["quick_log"]) == catalogue)
        let zones = Self.names(settings?["time_zone"])
        #expect(zones.count > 300)
        let refused = zones.filter { (try? DoseSettings(timeZoneID: "UTC").setting("time_zone", to: $0)) == nil }
        #expect(refused == [], "every zone the document offers is one the settings take")
        let checkIn = Self.components("CheckInAnswers")?["properties"]
        #expect((checkIn?.objectValue ?? [:]).keys.sorted() == MorningCheckIn.fieldNames.sorted())
        #expect(Self.names(checkIn?["feel_rested"]) == sorted(FeelRested.allCases))
        #expect(Self.names(checkIn?["mood"]) == sorted(Mood.allCases))
        #expect(Self.names(checkIn?["sleep_environment"]?["properties"]?["sleep_aids_used"]) == sorted(SleepAid.allCases))
        #expect(
            Self.names(checkIn?["physical_symptoms"]?["properties"]?["headache"]?["properties"]?["severity"]) == sorted(HeadacheSeverity.allCases))
        let preSleep = Self.components("PreSleepRequest")?["properties"]
        #expect((preSleep?.objectValue ?? [:]).keys.sorted() == (PreSleepLog.fieldNames + ["timestamp"]).sorted())
        #expect(Self.names(preSleep?["intended_sleep_time"]) == sorted(IntendedSleepTime.allCases))
    }

    @Test("the request schemas name exactly the keys each route takes")
    func requestKeys() {
        let expected: [String: Set<String>] = [
            "TakeRequest": ["type", "timestamp", "note", "confirm", "id"], "SkipRequest": ["sequence", "reason", "timestamp", "note", "id"],
            "SnoozeRequest": ["minutes", "timestamp", "id"], "LogRequest": ["type", "timestamp", "note", "confirm", "id"],
            "WakeRequest": ["timestamp", "confirm", "id"],
            "EmptyRequest": [], "ClearAllRequest": ["confirm"], "EventEditRequest": ["timestamp", "note"],
            "MedicationsRequest": ["entries", "confirm"],
        ]
        for (name, keys) in expected {
            #expect(Set((Self.components(name)?["properties"]?.objectValue ?? [:]).keys) == keys, "\(name)")
            #expect(Self.components(name)?["additionalProperties"] == .bool(false), "\(name) is strict")
        }
    }

    @Test("GET /openapi.json is open, JSON, and the document the tests read")
    func served() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        try await fixture.test { client in
            let response = try await client.execute(uri: "/openapi.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(JSONValue.parse(Data(response.body.readableBytesView)) == Self.document)
        }
    }
}

/// The request side of the contract: each JSON body the document describes is the one its route's type decodes.
@Suite("The document's request bodies are the body types the routes decode")
struct RequestBodyContractTests {
    /// Which body type each JSON route decodes.
    static let bodies: [String: RequestBodies.Kind] = [
        "post /v1/doses/take": .take, "post /v1/doses/skip": .skip, "post /v1/doses/snooze": .snooze, "post /v1/undo": .undo,
        "post /v1/events/log": .log, "post /v1/events/wake": .wake, "post /v1/checkins": .checkIn, "patch /v1/checkins/{date}": .editCheckIn,
        "post /v1/presleep": .preSleep, "patch /v1/events/{id}": .editEvent, "patch /v1/settings": .settings, "post /v1/medications": .medications,
        "post /v1/clear-all": .clearAll, "post /v1/push/subscriptions": .pushSubscription, "delete /v1/push/subscriptions": .pushSubscription,
        "post /v1/alarm/ack": .alarmAck, "post /v1/alarm/test": .undo, "post /v1/insights/planner": .planner, "post /v1/supply/refills": .refill,
        "post /v1/supply/adjustments": .adjustment, "post /v1/shares": .share, "post /v1/invitations/accept": .invitationAnswer,
        "put /v1/ladder": .ladder, "post /v1/events/took-anyway": .tookAnyway,
        "post /v1/invitations/decline": .invitationAnswer, "post /v1/people/{person}/doses/take": .take,
        "post /v1/people/{person}/doses/skip": .skip, "post /v1/people/{person}/doses/snooze": .snooze,
        "post /v1/people/{person}/events/log": .log, "post /v1/people/{person}/events/wake": .wake,
        "post /v1/people/{person}/alarm/ack": .alarmAck,
    ]

    /// The JSON request schemas of the document, by "method path".
    static var documented: [String: JSONValue] {
        var schemas: [String: JSONValue] = [:]
        for (path, operations) in APIContractTests.at("paths")?.objectValue ?? [:] {
            for (method, operation) in operations.objectValue ?? [:] {
                guard var schema = operation["requestBody"]?["content"]?["application/json"]?["schema"] else { continue }
                if let reference = schema["$ref"]?.stringValue {
                    schema = APIContractTests.components(String(reference.split(separator: "/").last ?? "")) ?? .null
                }
                schemas["\(method) \(path)"] = schema
            }
        }
        return schemas
    }

    /// Whether decoding refused `key` as one the body does not take (the body types', the models' and the settings' words).
    static func refusedAsUnknown(_ kind: RequestBodies.Kind, _ key: String) -> Bool {
        do {
            try RequestBodies.decode(kind, Data(JSONValue.object([key: .null]).rendered().utf8))
            return false
        } catch {
            let text = "\(error)"
            return text.contains("does not take the key '\(key)'") || text.contains("'\(key)' is not a")
        }
    }

    @Test(
        "every JSON body route has its type; a type that lists its keys lists exactly the document's; every documented key is taken, any other refused"
    )
    func requestBodies() {
        let documented = Self.documented
        #expect(Set(documented.keys) == Set(Self.bodies.keys), "routes with a JSON body")
        #expect(Set(Self.bodies.values) == Set(RequestBodies.Kind.allCases), "every body type is some route's")
        for (route, schema) in documented {
            guard let kind = Self.bodies[route] else { continue }
            let keys = (schema["properties"]?.objectValue ?? [:]).keys.sorted()
            #expect(schema["additionalProperties"] == .bool(false), "\(route) says no other key is taken")
            if let listed = RequestBodies.keys(kind) { #expect(listed == keys, "\(route): the type takes \(listed), the document \(keys)") }
            for key in keys { #expect(!Self.refusedAsUnknown(kind, key), "\(route) documents \(key) but refuses it") }
            #expect(Self.refusedAsUnknown(kind, "zz_undocumented"), "\(route) takes a key the document does not list")
        }
    }
}

@Suite("Methods an address does not take")
struct MethodNotAllowedTests {
    @Test("a known address asked with another method answers 405 with Allow; an unknown address answers 404")
    func methodNotAllowed() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        // (path, method, the Allow header, or nil for an address no route has). A literal segment wins over a
        // parameter, as in the router: /v1/events/log is not /v1/events/:id.
        let cases: [(String, HTTPRequest.Method, String?)] = [
            ("/health", .delete, "GET, HEAD"), ("/v1/sessions/2026-11-21", .put, "DELETE, GET, HEAD"), ("/v1/doses/take", .get, "POST"),
            ("/v1/events/log", .options, "POST"), ("/v1/events/abc", .post, "DELETE, PATCH"), ("/v1/nothing-here", .get, nil),
        ]
        try await fixture.test { client in
            for (path, method, allow) in cases {
                let response = try await client.execute(uri: path, method: method, headers: fixture.auth)
                #expect(response.status == (allow == nil ? .notFound : .methodNotAllowed), "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                #expect(ServerFixture.code(response) == (allow == nil ? "404_NOT_FOUND" : "405_METHOD_NOT_ALLOWED"))
            }
        }
    }
}
