import DoseApp
import DoseCore
import DoseStore
import DoseTestSupport
import Foundation
import Testing

@Suite("Work in progress goes to the environment's scratch folder, and nothing is left there")
struct ScratchFolderTests {
    /// A fresh folder standing in for the system's temporary one.
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dosetap-scratch-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func contents(_ folder: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path) }

    @Test("the work gets an owner-only folder inside the scratch folder, which is removed when the work returns and when it throws")
    func workFolder() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var environment = try AppFixture(at: WallClock.date(2026, 11, 21, 22, 30)).environment
        environment.scratchFolder = scratch
        let app = environment.useCases()
        let seen = try app.inScratchFolder("dosetap-export") { folder in
            #expect(folder.deletingLastPathComponent().standardizedFileURL.path == scratch.standardizedFileURL.path)
            #expect(folder.lastPathComponent.hasPrefix("dosetap-export-"))
            let permissions = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            #expect(permissions == 0o700)
            try Data("health data".utf8).write(to: folder.appendingPathComponent("events.csv"))
            return try Self.contents(scratch)
        }
        #expect(seen.count == 1)
        #expect(try Self.contents(scratch).isEmpty)
        #expect(throws: DoseError.self) {
            try app.inScratchFolder("dosetap-import") { folder in
                try Data("half an upload".utf8).write(to: folder.appendingPathComponent("upload"))
                throw DoseError.invalidFile(problem: "not a DoseTap file")
            }
        }
        #expect(try Self.contents(scratch).isEmpty, "a failed import leaves nothing behind either")
    }

    @Test("a support bundle with the raw database copies the store into the scratch folder and removes the copy")
    func supportBundleCopy() throws {
        let scratch = try Self.scratch()
        let out = try Self.scratch()
        defer { for folder in [scratch, out] { try? FileManager.default.removeItem(at: folder) } }
        let fixture = try AppFixture(at: WallClock.date(2026, 11, 21, 22, 30))
        try fixture.perform(.dose1, at: WallClock.date(2026, 11, 21, 22, 30))
        var environment = fixture.environment
        environment.scratchFolder = scratch.appendingPathComponent("not-yet-made")
        let app = environment.useCases()
        let path = out.appendingPathComponent("support.zip").path
        #expect(throws: (any Error).self, "the copy goes to the scratch folder, so a missing one stops it") {
            try app.support.write(try app.support.bundle(diagnosticLog: "", version: "test"), to: path, includeDatabase: true)
        }
        environment.scratchFolder = scratch
        try environment.useCases().support.write(try app.support.bundle(diagnosticLog: "", version: "test"), to: path, includeDatabase: true)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try Self.contents(scratch).isEmpty)
    }
}
