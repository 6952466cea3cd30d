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

    @Test("a heavy request counts until its answer is written or dropped unwritten, once, however often it is let go")
    func ticketsHoldUntilWritten() throws {
        let heavy = HeavyWork()
        let first = try HeavyWork.Ticket(heavy, person: "p")
        var second: HeavyWork.Ticket? = try HeavyWork.Ticket(heavy, person: "p")
        #expect(throws: DoseError.self) { try HeavyWork.Ticket(heavy, person: "p") }
        #expect(heavy.inFlight == 2 && second != nil)
        first.release()
        first.release()
        #expect(heavy.inFlight == 1, "let go twice, counted done once")
        second = nil
        #expect(heavy.inFlight == 0, "an answer dropped unwritten lets its place go")
        _ = try HeavyWork.Ticket(heavy, person: "someone else")
    }

    @Test("events.csv and the bundle are sent from a scratch file a piece at a time: the export's bytes, and the folder gone once sent")
    func exportsFromScratchFiles() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-heavy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0), scratchFolder: scratch)
        let heavy = HeavyWork()
        let router = DoseTapServer.router(environment: fixture.environment, internalErrors: fixture.internalErrors, heavy: heavy)
        try await Application(router: router).test(.router) { client in
            _ = try await client.execute(uri: "/v1/doses/take", method: .post, headers: fixture.auth, body: ByteBuffer(string: #"{"type":"dose1"}"#))
            let csv = try await client.execute(uri: "/v1/export/events.csv", method: .get, headers: fixture.auth)
            #expect(csv.status == .ok && csv.headers[.contentDisposition] == "attachment; filename=\"events.csv\"")
            #expect(String(buffer: csv.body) == (try fixture.environment.useCases().transfer.eventsCSV()))
            #expect(csv.headers[.contentLength] == String(csv.body.readableBytes), "its length said before the first piece")
            let bundle = try await client.execute(uri: "/v1/export", method: .get, headers: fixture.auth)
            #expect(bundle.status == .ok && bundle.headers[.contentType] == "application/zip")
            #expect(bundle.body.getBytes(at: 0, length: 2) == [0x50, 0x4B], "a zip")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "nothing left in the scratch folder")
        #expect(heavy.inFlight == 0, "each counted done once written")
        fixture.expectNoInternalErrors()
    }

    @Test("a file larger than a piece is sent whole, in pieces, and its folder removed after")
    func largeFileInPieces() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-pieces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var environment = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0)).environment
        environment.scratchFolder = scratch
        let app = environment.useCases()
        let bytes = (0..<(ScratchExport.piece * 3 + 123)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let router = Router(context: DoseRequestContext.self)
        router.get("/file") { _, _ in
            let export = try ScratchExport(app, prefix: "dosetap-export")
            try Data(bytes).write(to: URL(fileURLWithPath: export.path("big.bin")))
            return try export.response("big.bin", type: "application/octet-stream")
        }
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/file", method: .get)
            #expect(response.body.readableBytes == bytes.count && response.body.getBytes(at: 0, length: bytes.count) == bytes)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }
}
