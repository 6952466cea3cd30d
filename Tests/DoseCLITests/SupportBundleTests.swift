import Foundation
import Testing

/// Every entry of a zip, decompressed by Python's zipfile (an independent reader), by name.
private func entries(of zip: String) throws -> [String: String] {
    let script =
        "import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({n: z.read(n).decode('utf-8', 'replace') for n in z.namelist()}))"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, zip]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (try JSONSerialization.jsonObject(with: data) as? [String: String]) ?? [:]
}

@Suite("The support bundle: reviewed first, and nothing in it identifies the person", .serialized)
struct SupportBundleTests {
    static let canaries = [
        "canary-note-dose1", "canary-note-event", "canary-note-checkin", "canary-note-med", "Alice's iPhone", "Bob-Tablet", "192.168.1.23",
        "canary-host.example", "Modafinil", "modafinil", "canary-topic", "canary-pharmacy", "canary-spill", "Xyrem", "xyrem", "XYWAV", "xywav",
    ]

    /// A night with notes everywhere, two named devices, an escalation address, another medication, and a diagnostic log
    /// that an older build filled with free text.
    static func night() throws -> (CLI, tokens: [String]) {
        let cli = try CLI()
        #expect(try cli.run(["settings", "set", "medication_product", "xyrem"], now: "2026-11-21 12:00").status == 0)
        #expect(try cli.run(["supply", "log", "--bottles", "2", "--reason", "canary-pharmacy"], now: "2026-11-21 22:00").status == 0)
        #expect(try cli.run(["supply", "adjust", "--remove", "5", "--reason", "canary-spill"], now: "2026-11-21 22:10").status == 0)
        #expect(try cli.run(["dose1", "--note", "canary-note-dose1"], now: "2026-11-21 22:30").status == 0)
        #expect(try cli.run(["log", "bathroom", "--note", "canary-note-event"], now: "2026-11-21 23:40").status == 0)
        #expect(try cli.run(["dose2"], now: "2026-11-22 01:20").status == 0)
        #expect(try cli.run(["med", "log", "modafinil:200", "--note", "canary-note-med"], now: "2026-11-22 08:00").status == 0)
        #expect(try cli.run(["checkin", "--notes", "canary-note-checkin"], now: "2026-11-22 08:05").status == 0)
        let tokens = try ["Alice's iPhone", "Bob-Tablet"].map { try cli.run(["device", "add", $0]).json["token"] as? String ?? "missing" }
        #expect(try cli.run(["settings", "set", "escalation_contact", "https://canary-host.example/canary-topic"]).status == 0)
        let log = cli.directory.appendingPathComponent("dosetap-diagnostic.log")
        try """
        2026-11-22T03:30:00.000Z warning dosetap.push "push delivery failed" attempt=2 device=Alice's iPhone status=410
        serve listening on 192.168.1.23:8080 for Bob-Tablet, token \(tokens[0])
        2026-11-22T03:31:00.000Z error dosetap "request failed" request_id=3f2a error=\(tokens[1])

        """.write(to: log, atomically: true, encoding: .utf8)
        return (cli, tokens)
    }

    @Test(
        "no note, device name, token, address or medication name is in any file of the zip; times move to 2000-01-01 with the interval kept",
        .readsSQLiteFile)
    func canaries() throws {
        let (cli, tokens) = try Self.night()
        let zip = cli.directory.appendingPathComponent("support.zip").path
        let run = try cli.run(["support-bundle", "--out", zip, "--yes"], now: "2026-11-22 09:00")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("===== events.csv"), "--yes prints the review to stderr")
        let files = try entries(of: zip)
        #expect(files.keys.sorted() == ["app_metadata.json", "debug_log.txt", "events.csv", "inventory.csv", "medications.csv", "readme.txt"])
        for (name, text) in files {
            for canary in Self.canaries + tokens {
                #expect(!text.contains(canary), "\(canary) is in \(name)")
            }
        }
        let events = files["events.csv"] ?? ""
        // Dose 1 at 22:30 EST (03:30Z) on 2026-11-22 UTC moves to 2000-01-01T03:30Z; Dose 2 at 01:20 EST keeps its 170 minutes.
        #expect(events.contains(",dose1_taken,user,2000-01-01T03:30:00.000Z,America/New_York,1,\r\n"), "\(events)")
        #expect(events.contains(",dose2_taken,user,2000-01-01T06:20:00.000Z,America/New_York,2,\r\n"))
        #expect(!events.contains("2026-"))
        #expect(files["medications.csv"]?.contains(",wakefulness_agent,2000-01-01T13:00:00.000Z") == true, "\(files["medications.csv"] ?? "")")
        #expect(files["app_metadata.json"]?.contains(#""escalation_contact": "(set, withheld)""#) == true)
        #expect(files["app_metadata.json"]?.contains(#""medication_product": "sodium_oxybate""#) == true)
        // The refill at 22:00 EST (03:00Z) moves with everything else; its reason is left out.
        let inventory = files["inventory.csv"] ?? ""
        #expect(inventory.contains(",refill_logged,2000-01-01T03:00:00.000Z,360,,2\r\n"), "\(inventory)")
        #expect(inventory.contains(",inventory_adjustment,2000-01-01T03:10:00.000Z,-5,,\r\n"), "\(inventory)")
        #expect(
            files["debug_log.txt"] == #"2000-01-01T03:30:00.000Z warning dosetap.push "push delivery failed" attempt=2 status=410"# + "\n"
                + #"2000-01-01T03:31:00.000Z error dosetap "request failed" request_id=3f2a"# + "\n", "the log's times move with the rest")
        for (name, text) in files {
            #expect(!text.contains("2026-"), "\(name) holds a real date")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: zip)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("pseudonyms are stable within a bundle and differ between two bundles of the same data")
    func pseudonyms() throws {
        let (cli, _) = try Self.night()
        func ids(_ name: String) throws -> [String] {
            let zip = cli.directory.appendingPathComponent(name).path
            #expect(try cli.run(["support-bundle", "--out", zip, "--yes"], now: "2026-11-22 09:00").status == 0)
            return (try entries(of: zip)["events.csv"] ?? "").split(separator: "\r\n").dropFirst().map { String($0.prefix { $0 != "," }) }
        }
        let first = try ids("one.zip")
        let second = try ids("two.zip")
        #expect(first.count == 3 && Set(first).count == 3 && first.allSatisfy { $0.hasPrefix("p-") && $0.count == 18 })
        #expect(Set(first).isDisjoint(with: second), "two bundles share no pseudonym")
    }

    @Test("nothing is written before the review: --review shows every file and writes nothing; without a terminal or --yes it is refused")
    func reviewFirst() throws {
        let (cli, _) = try Self.night()
        let zip = cli.directory.appendingPathComponent("support.zip").path
        var run = try cli.run(["support-bundle", "--out", zip, "--review"], now: "2026-11-22 09:00", json: false)
        #expect(run.status == 0)
        for name in ["readme.txt", "events.csv", "medications.csv", "app_metadata.json", "debug_log.txt"] {
            #expect(run.stdout.contains("===== \(name) ("), "the review shows \(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: zip))
        run = try cli.run(["support-bundle", "--out", zip], now: "2026-11-22 09:00")
        #expect(run.status == 64 && run.errorCode == "400_INVALID_INPUT")
        #expect(!FileManager.default.fileExists(atPath: zip))
        run = try cli.run(["support-bundle", "--out", zip, "--review", "--yes"], now: "2026-11-22 09:00")
        #expect(run.status == 64)
        // The raw database only on request, with its warning first.
        run = try cli.run(["support-bundle", "--out", zip, "--yes", "--include-database"], now: "2026-11-22 09:00")
        #expect(run.status == 0 && run.stderr.contains("Warning: The raw database holds everything"))
        let database = try entries(of: zip)["database.sqlite"] ?? ""
        #expect(database.hasPrefix("SQLite format 3") && database.contains("canary-note-dose1"), "the opted-in database is the raw one")
    }
}
