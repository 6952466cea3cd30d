import Foundation
import GRDB
import Testing

@Suite("dosetap end to end: concurrent writers")
struct ConcurrencyTests {
    @Test("eight CLI processes logging at once lose nothing")
    func eightWriters() throws {
        let cli = try CLI()
        let perProcess = 25
        var processes: [(Process, Pipe)] = []
        for writer in 0..<8 {
            // Each process is a shell loop of separate dosetap runs, so eight processes contend for the lock.
            let script: String = (0..<perProcess).map { index -> String in
                let minute = String(format: "%02d", index)
                return "\"$BIN\" log dream --note w\(writer)-\(index) --db \"$DB\" --tz UTC --json --now 2026-11-21T23:\(minute):0\(writer).000Z"
            }.joined(separator: "\n")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.environment = ["BIN": CLI.binary.path, "DB": cli.database, "HOME": cli.directory.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            processes.append((process, pipe))
        }
        for (process, _) in processes { try process.run() }
        var acknowledged = Set<String>()
        for (process, pipe) in processes {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            for line in output.split(separator: "\n") {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                if let id = object?["id"] as? String { acknowledged.insert(id) }
            }
        }
        #expect(acknowledged.count == 8 * perProcess)
        let stored = try DatabaseQueue(path: cli.database).read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM sleep_events")) }
        #expect(stored == acknowledged)
        let sessions = try DatabaseQueue(path: cli.database).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sleep_sessions") }
        #expect(sessions == 1)
        let integrity = try DatabaseQueue(path: cli.database).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }
}
