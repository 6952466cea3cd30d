import DoseApp
import DoseCore
import DoseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DoseServer

/// The installable app: its manifest and worker as a browser fetches them, and the period lookup an offline phone runs,
/// executed by an independent JavaScript engine (Node's V8) against DoseCore's answers.
@Suite("The installable app: manifest, worker, and the offline period lookup")
struct AppShellTests {
    static let dose1 = WallClock.date(2026, 11, 21, 22, 30)
    static let minutes: [Double] = [-1, 0, 149, 149.99, 150, 224, 225, 239, 239.99, 240, 269, 269.99, 270, 600]

    @Test("period.js, run by node, finds the same period as DoseCore on both sides of 150, 240 and 270 minutes")
    func periodLookupAgreesWithDoseCore() throws {
        let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
        #expect(node != nil, "node is needed; .ci/run installs Debian's nodejs")
        guard let node else { return }
        let periods = Dose2Period.periods(dose1: Self.dose1, window: .label)
        let sent = JSONValue(response: periods.map(PeriodResponse.init)).rendered()
        let instants = Self.minutes.map { Self.dose1.addingTimeInterval($0 * 60) }
        let script = """
            require(process.argv[1]);
            const periods = \(sent);
            const instants = \(JSONValue(response: instants).rendered());
            console.log(JSON.stringify(instants.map((t) => { const p = DoseTapPeriods.at(periods, Date.parse(t)); return p ? p.kind + ":" + p.confirm.join(",") : "none"; })));
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/DoseServer/Resources/period.js")
        process.arguments = ["-e", script, library.standardized.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let device = JSONValue.parse(Data(text.utf8))
        let core = instants.map { instant -> String in
            guard let period = Dose2Period.period(at: instant, in: periods) else { return "none" }
            return period.kind.rawValue + ":" + period.confirmations.map(\.rawValue).joined(separator: ",")
        }
        #expect(device == JSONValue.strings(core), "node said \(text)")
        #expect(core.first == "none" && core[3] == "before_window:early" && core[4] == "window:" && core[9] == "after_window:late")
        #expect(core[12] == "expired:after_skip,late")
    }

    @Test("the manifest is valid JSON with the name, standalone display, night colours, Tonight as the start, and its icons served")
    func manifest() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        try await fixture.test { client in
            let response = try await client.execute(uri: "/manifest.webmanifest", method: .get)
            #expect(response.status == .ok && response.headers[.contentType] == "application/manifest+json")
            let manifest = try #require(JSONValue.parse(Data(buffer: response.body)))
            #expect(manifest["name"]?.stringValue == "DoseTap" && manifest["display"]?.stringValue == "standalone")
            #expect(manifest["start_url"]?.stringValue == "/" && manifest["background_color"]?.stringValue == "#000000")
            guard case .array(let icons) = manifest["icons"] ?? .null else {
                Issue.record("no icons")
                return
            }
            #expect(Set(icons.compactMap { $0["sizes"]?.stringValue }) == ["any", "192x192", "512x512"])
            for icon in icons {
                let path = icon["src"]?.stringValue ?? ""
                let image = try await client.execute(uri: path, method: .get)
                #expect(image.status == .ok && image.headers[.contentType] == icon["type"]?.stringValue, "\(path)")
                if let size = icon["sizes"]?.stringValue, size != "any" {
                    // A PNG's width and height sit at bytes 16–23 of its header.
                    let bytes = Array(image.body.readableBytesView)
                    let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
                    #expect("\(width)x\(width)" == size && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
                }
            }
        }
    }

    @Test("the worker is served open, never cached by HTTP, with its version written in; pages link the manifest")
    func worker() async throws {
        let fixture = try ServerFixture(now: WallClock.date(2026, 11, 21, 22, 0))
        try await fixture.test { client in
            let response = try await client.execute(uri: "/sw.js", method: .get)
            let text = String(buffer: response.body)
            #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
            #expect(text.contains("dosetap-shell-\(AppShell.version)") && !text.contains("__SHELL_VERSION__"))
            #expect(AppShell.version.count == 12)
            // Every page shares the layout, the not-paired notice too.
            let page = try await client.execute(uri: "/", method: .get)
            #expect(String(buffer: page.body).contains(#"<link rel="manifest" href="/manifest.webmanifest">"#))
        }
    }
}
