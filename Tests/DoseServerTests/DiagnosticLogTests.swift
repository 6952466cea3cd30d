import DoseApp
import DoseServer
import Foundation
import Logging
import Testing

@Suite("The diagnostic log holds no health data, notes, names, tokens or addresses, by construction")
struct DiagnosticLogTests {
    /// Text that must never reach the file, whichever way it is logged.
    static let canaries = [
        "canary-note-7731", "Alice's iPhone", "dtp_9f8e7d6c5b4a", "192.168.1.23", "10.0.0.7", "fe80::1ff:fe23:4567:890a", "modafinil",
        "woke with heart racing", "alice@example.org",
    ]

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("canaries in messages, metadata values, metadata keys and labels never reach the file; fixed messages and plain codes do")
    func canariesNeverWritten() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let factory = DiagnosticLogHandler.factory(folder: folder, now: { Date(timeIntervalSince1970: 1_795_318_200) })
        let logger = Logger(label: "dosetap.push", factory: factory)
        for canary in Self.canaries {
            logger.warning("push delivery failed", metadata: ["attempt": "2", "device": "\(canary)", "status": "\(canary)", "error": "\(canary)"])
            logger.error("request failed: \(canary)", metadata: ["path": "/v1/sessions/\(canary)", "request_id": "3f2a-9c"])
            logger.info("\(canary)")
            Logger(label: canary, factory: factory).info("serve started", metadata: [canary: "1"])
        }
        logger.warning("push delivery failed", metadata: ["attempt": "3", "status": "410", "error": "HTTPClientError"])
        let text = DiagnosticLogFile.read(in: folder)
        for canary in Self.canaries {
            #expect(!text.contains(canary), "\(canary) reached the log")
        }
        #expect(text.contains(#"2026-11-22T03:30:00.000Z warning dosetap.push "push delivery failed" attempt=3 error=HTTPClientError status=410"#))
        #expect(text.contains(#"error dosetap.push "(message withheld)" request_id=3f2a-9c"#))
        #expect(text.contains(#"info other "serve started""#))
        #expect(DiagnosticLog.sanitized(text) == text, "what the handler writes passes the bundle's check unchanged")
    }

    @Test("lines not written by the handler are dropped or rebuilt from their safe parts when a bundle carries the log")
    func sanitizedLines() {
        let hostile = """
            2026-11-22T03:30:00.000Z warning dosetap.push "push delivery failed" attempt=3 device=alice
            free text from an older build: canary-note-7731 at 192.168.1.23
            2026-11-22T03:30:00.000Z info dosetap "woke with heart racing" attempt=1
            2026-11-22T03:30:00.000Z info dosetap "request failed" status=10.0.0.7 error=dtp_9f8e7d6c5b4a
            """
        let cleaned = DiagnosticLog.sanitized(hostile)
        #expect(
            cleaned == """
                2026-11-22T03:30:00.000Z warning dosetap.push "push delivery failed" attempt=3
                2026-11-22T03:30:00.000Z info dosetap "(message withheld)" attempt=1
                2026-11-22T03:30:00.000Z info dosetap "request failed"

                """)
    }

    @Test("the file is capped: past the limit it rotates to ….1, and the two never hold more than twice the cap")
    func rotation() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(
            label: "dosetap", factory: DiagnosticLogHandler.factory(folder: folder, maximumBytes: 4_096, now: { Date(timeIntervalSince1970: 0) }))
        for attempt in 0..<500 { logger.warning("webhook delivery failed", metadata: ["attempt": "\(attempt)"]) }
        let path = DiagnosticLogFile.path(in: folder)
        let current = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let rotated = try FileManager.default.attributesOfItem(atPath: path + ".1")[.size] as? Int ?? 0
        #expect(current <= 4_096 && rotated <= 4_096 && rotated > 3_000, "\(current) and \(rotated) bytes")
        #expect(DiagnosticLogFile.read(in: folder).hasSuffix("attempt=499\n"), "the newest line is kept")
    }
}
