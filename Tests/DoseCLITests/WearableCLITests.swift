import Foundation
import Testing

/// The built `dosetap` importing WHOOP's export beside a night, and every surface that shows the night's sleep.
@Suite("dosetap import of WHOOP's export, end to end")
struct WearableCLITests {
    static let sleeps = """
        Cycle start time,Cycle end time,Cycle timezone,Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %,Nap
        2026-11-20 23:10:00,2026-11-21 23:05:00,UTC-05:00,2026-11-20 23:10:00,2026-11-21 06:55:00,88,14.6,420,465,210,95,115,45,480,20,90,70,false

        """
    static let cycles = """
        Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),Skin temp (celsius),Blood oxygen %,Day Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm),Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %
        2026-11-20 23:10:00,2026-11-21 23:05:00,UTC-05:00,62,54,48.5,33.4,95.2,9.8,2100,150,70,2026-11-20 23:10:00,2026-11-21 06:55:00,88,14.6,420,465,210,95,115,45,480,20,90,70

        """

    /// WHOOP's zip, written by Python's zipfile in a folder the way WHOOP names it.
    static func zip(in directory: URL) throws -> String {
        for (name, text) in [("sleeps.csv", sleeps), ("physiological_cycles.csv", cycles)] {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let out = directory.appendingPathComponent("my_whoop_data.zip").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n for n in ('sleeps.csv', 'physiological_cycles.csv'): z.write(sys.argv[2] + '/' + n, 'my_whoop_data_2026_11_21/' + n)",
            out, directory.path,
        ]
        try process.run()
        process.waitUntilExit()
        return out
    }

    @Test("the zip imports once, the night shows WHOOP's figures in text, JSON, sessions.csv, history and the report; again adds nothing")
    func night() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-20 23:00")
        try cli.run(["dose2"], now: "2026-11-21 01:50")
        try cli.run(["checkin", "--quality", "4"], now: "2026-11-21 07:10")
        let zip = try Self.zip(in: cli.directory)
        var run = try cli.run(["import", zip], now: "2026-11-21 13:00")
        #expect(run.status == 0 && (run.json["imported"] as? [String: Int]) == ["sleeps": 1], "\(run.stdout)\(run.stderr)")
        run = try cli.run(["import", zip], now: "2026-11-21 13:05")
        #expect(run.status == 0 && (run.json["imported"] as? [String: Int]) == [:] && (run.json["skipped"] as? [String: Int]) == ["sleeps": 1])

        run = try cli.run(["session", "show", "2026-11-20"])
        let night = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])?.first)
        let sleep = try #require(night["sleep"] as? [String: Any])
        #expect(sleep["sources"] as? [String] == ["WHOOP"] && sleep["minutes_asleep"] as? Double == 420 && sleep["waso_minutes"] as? Double == 45)
        #expect(sleep["wake_count"] is NSNull && sleep["stage_at_dose2"] is NSNull && sleep["has_timeline"] as? Bool == false)
        #expect((sleep["stage_minutes"] as? [String: Double])?["deep"] == 95 && sleep["sleep_onset"] as? String == "2026-11-21T04:10:00.000Z")
        #expect((sleep["recovery"] as? [String: Any])?["recovery_percent"] as? Double == 62)

        run = try cli.run(["session", "show", "2026-11-20"], json: false)
        #expect(
            run.stdout.contains("Sleep (WHOOP): Asleep 7 h from 23:10 to 06:55; awake 45 min after falling asleep; deep 1 h 35 min, REM 1 h 55 min."))
        #expect(run.stdout.contains("Morning readings: recovery 62%"))

        run = try cli.run(["export", "--format", "sessions"], json: false)
        let rows = run.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
        let header = try #require(rows.first)
        let row = try #require(rows.dropFirst().first)
        func column(_ name: String) -> String? { header.firstIndex(of: name).map { row[$0] } }
        #expect(column("sleep_source") == "WHOOP" && column("minutes_asleep") == "420" && column("deep_minutes") == "95")
        #expect(column("wake_count") == "" && column("stage_at_dose2") == "" && column("recovery_percent") == "62")

        let report = cli.directory.appendingPathComponent("report.html").path
        run = try cli.run(["report", "--from", "2026-11-20", "--to", "2026-11-20", "--out", report], now: "2026-11-21 13:10", json: false)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(run.status == 0 && html.contains("<th scope=\"col\">Sleep (wearable)</th>"))
        #expect(html.contains("<td data-label=\"Sleep (wearable)\">7 h asleep, deep 95 min, awake 45 min, recovery 62% (WHOOP)</td>"))
    }

    @Test("a malformed WHOOP file and a refused priority exit with their codes and leave the database byte for byte", .readsSQLiteFile)
    func refusals() throws {
        let cli = try CLI()
        try cli.run(["dose1"], now: "2026-11-20 23:00")
        let before = try cli.databaseBytes()
        let bad = cli.directory.appendingPathComponent("sleeps.csv")
        try Self.sleeps.replacingOccurrences(of: ",420,", with: ",NaN,").write(to: bad, atomically: true, encoding: .utf8)
        var run = try cli.run(["import", bad.path], now: "2026-11-21 13:00", json: false)
        #expect(
            run.status == 65 && run.stderr.contains("sleeps.csv row 1: 'Asleep duration (min)' is not a number of minutes from 0 to 1440"),
            "\(run.stderr)")
        run = try cli.run(["settings", "set", "sleep_source_priority", "watch,,whoop"], now: "2026-11-21 13:00", json: false)
        #expect(run.status == 64 && run.stderr.contains("sleep_source_priority"))
        #expect(try cli.databaseBytes() == before)
        run = try cli.run(["settings", "set", "sleep_source_priority", "whoop,watch"], now: "2026-11-21 13:00")
        #expect(run.status == 0)
        run = try cli.run(["settings", "get", "sleep_source_priority"], json: false)
        #expect(run.stdout.contains("whoop,watch"))
    }
}
