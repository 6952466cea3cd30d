import Foundation
import Testing

/// `serve --metrics-port` (issue 56) read as an operator's monitoring would: curl on loopback, checked by Prometheus's
/// own `promtool check metrics` (Debian's prometheus package).
@Suite("serve --metrics-port, checked by promtool", .serialized)
struct MetricsCLITests {
    static let now = "2026-11-21 21:00"

    /// A port nothing listens on now, chosen by the kernel.
    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func promtool(_ text: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    @Test(
        "/metrics has request latency by route, reminder lateness, the queues, connection waits and streams; promtool finds nothing; the API port does not serve it",
        PeopleCLITests.enabled)
    func metricsPassPromtool() async throws {
        let (store, _, _) = try PSQL.grantedStore()
        _ = try PeopleCLITests.run(["person", "add", "alice@example.org"], store, now: Self.now)
        let device = try PeopleCLITests.run(["device", "add", "phone", "--person", "alice@example.org"], store, now: Self.now)
        let token = try #require(device.json["token"] as? String, "\(device.stdout)")
        let port = try Self.freePort()
        let server = try Server(
            try CLI(), now: Self.now, arguments: ["--metrics-port", String(port), "--clock-runs"], variables: ["DOSETAP_DATABASE_URL": store])
        // Dose 1 150 minutes ago: the window opens now, and its reminder goes out within a second or two.
        let dose1 = CLI.instant("2026-11-21 18:30", zone: "America/New_York")
        let taken = try Curl.call(server.base + "/v1/doses/take", post: #"{"type":"dose1","timestamp":"\#(dose1)"}"#, bearer: token)
        #expect(taken.status == 200, "\(taken.body.prefix(300))")
        _ = try Curl.call(server.base + "/v1/status", bearer: token)
        var text = ""
        var waited = 0
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            waited += 1
            text = try Curl.call("http://127.0.0.1:\(port)/metrics").body
        } while !text.contains("dosetap_reminder_lateness_seconds_count 1") && waited < 100
        for expected in [
            #"dosetap_request_duration_seconds_count{route="/v1/status",method="GET",status="200"} 1"#,
            "dosetap_reminder_lateness_seconds_count 1", #"dosetap_reminder_jobs{state="pending"}"#, #"dosetap_mail{state="queued"} 0"#,
            "dosetap_database_connection_wait_seconds_count", "dosetap_open_streams 0",
        ] {
            #expect(text.contains(expected), "\(expected) in:\n\(text.prefix(3000))")
        }
        let checked = try Self.promtool(text)
        #expect(checked.status == 0, "promtool: \(checked.output)")
        let onTheAPI = try Curl.call(server.base + "/metrics")
        #expect(onTheAPI.status != 200 && !onTheAPI.body.contains("dosetap_request_duration"), "the API's port does not serve the metrics")
        #expect(try await server.terminate(within: .seconds(20)) == 0)
    }
}
