import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// Each person's heavy work is bounded (issue 55 item 7): past `HeavyWork.perPerson` at once, a heavy request is refused
/// 429 with `Retry-After` before any of it is read, and the night's own routes are never counted.
@Suite("Heavy work per person: insights, reports, exports and imports bounded, the night never held")
struct HeavyWorkTests {
    @Test(
        "which paths are heavy, the person's own and a grantee's",
        arguments: [
            ("/v1/insights", true), ("/v1/export", true), ("/v1/export/events.csv", true), ("/v1/export/sessions.csv", true),
            ("/v1/analytics/export", true), ("/v1/import", true), ("/insights", true), ("/report", true), ("/report/file", true),
            ("/ui/support-bundle", true), ("/v1/people/p-1/insights", true), ("/v1/people/p-1/export/sessions.csv", true),
            ("/people/p-1/report/file", true), ("/people/p-1/insights", true),
            ("/v1/status", false), ("/v1/doses/take", false), ("/v1/events/log", false), ("/", false), ("/history", false),
            ("/v1/people/p-1/status", false), ("/people/p-1/", false), ("/people/p-1", false), ("/v1/insights/planner", false),
            ("/v1/insightsx", false), ("/report/file/x", false),
        ])
    func heavyPaths(_ path: String, _ heavy: Bool) {
        #expect(HeavyWork.isHeavy(path) == heavy)
    }

    @Test("with two running, a third is refused 429 with Retry-After and the words; the night answers meanwhile; one done lets one in")
    func boundedPerPerson() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        let heavy = HeavyWork()
        let router = DoseTapServer.router(environment: fixture.environment, internalErrors: fixture.internalErrors, heavy: heavy)
        try await Application(router: router).test(.router) { client in
            #expect(try await client.execute(uri: "/v1/insights?nights=7", method: .get, headers: fixture.auth).status == .ok)
            #expect(heavy.inFlight == 0, "a request done is counted done")
            // Two of the person's heavy requests running (a phone's insights, a computer's export).
            try heavy.admit("local")
            try heavy.admit("local")
            for uri in ["/v1/insights?nights=7", "/v1/export/events.csv", "/report/file?nights=7"] {
                let refused = try await client.execute(uri: uri, method: .get, headers: fixture.auth)
                #expect(refused.status == .tooManyRequests, "\(uri)")
                #expect(refused.headers[.retryAfter] == "5", "\(uri): \(refused.headers)")
            }
            let refused = try await client.execute(uri: "/v1/insights?nights=7", method: .get, headers: fixture.auth)
            let message = (ServerFixture.json(refused)["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(ServerFixture.code(refused) == "429_RATE_LIMIT" && message.contains("as many as run at once for one person"), "\(message)")
            // The night is never held up by it.
            let dose1 = try await client.execute(
                uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: ByteBuffer(string: #"{"type":"dose1"}"#))
            #expect(dose1.status == .ok)
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: fixture.auth).status == .ok)
            #expect(heavy.inFlight == 2, "a refused request takes no place")
            heavy.finish("local")
            #expect(try await client.execute(uri: "/v1/insights?nights=7", method: .get, headers: fixture.auth).status == .ok)
            #expect(heavy.inFlight == 1)
        }
        fixture.expectNoInternalErrors()
    }

    @Test("a person's heavy work does not count against another's")
    func eachPersonApart() throws {
        let heavy = HeavyWork()
        for _ in 0..<HeavyWork.perPerson { try heavy.admit("alice") }
        #expect(throws: DoseError.self) { try heavy.admit("alice") }
        try heavy.admit("bob")
        heavy.finish("alice")
        try heavy.admit("alice")
        #expect(heavy.inFlight == HeavyWork.perPerson + 1)
    }
}
