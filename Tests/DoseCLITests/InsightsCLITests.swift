import Foundation
import GRDB
import Testing

/// `dosetap insights`, `planner`, `report` and `export --format sessions` on the built binary.
@Suite("dosetap insights, planner, report and sessions.csv end to end")
struct InsightsCLITests {
    /// Nights from 2026-11-01 with Dose 1 at 22:30 and Dose 2 after each interval (nil: skipped), each checked in.
    static func record(_ cli: CLI, _ intervals: [Int?]) throws {
        for (index, interval) in intervals.enumerated() {
            let day = String(format: "2026-11-%02d", index + 1)
            let next = String(format: "2026-11-%02d", index + 2)
            #expect(try cli.run(["dose1"], now: "\(day) 22:30").status == 0)
            let dose1 = try #require(
                ISO8601DateFormatter().date(from: CLI.instant("\(day) 22:30", zone: cli.zone).replacingOccurrences(of: ".000", with: "")))
            if let interval {
                let at = ISO8601DateFormatter().string(from: dose1.addingTimeInterval(Double(interval * 60)))
                #expect(try cli.run(["dose2"] + (interval >= 240 ? ["--confirm", "late"] : []), now: at).status == 0)
            } else {
                #expect(try cli.run(["skip", "--reason", "felt unwell"], now: "\(next) 01:50").status == 0)
            }
            #expect(try cli.run(["checkin", "--quality", String(2 + index % 3)], now: "\(next) 07:30").status == 0)
        }
    }

    @Test("the CLI's figures, the report's and sessions.csv's are the same nights and the same numbers")
    func figuresAgree() throws {
        let cli = try CLI()
        let intervals: [Int?] = [165, 170, 180, nil, 150, 200, 168, 250]
        try Self.record(cli, intervals)
        let now = "2026-11-09 20:00"
        var run = try cli.run(["insights", "--nights", "30"], now: now)
        let insights = run.json
        let timing = try #require(insights["timing"] as? [String: [String: Any]])
        // D18. On target (±10 of 165): 165, 170, 168 → 3 of 8 decided = 37.5%. In window: 150, 180, 200. Late (≥ 240): 250.
        // Early (< 150): none. Skipped 1.
        #expect(timing["on_target"]?["nights"] as? Int == 3 && timing["on_target"]?["percent"] as? Double == 37.5)
        #expect(timing["in_window"]?["nights"] as? Int == 3 && timing["late"]?["nights"] as? Int == 1)
        #expect(timing["early"]?["nights"] as? Int == 0 && timing["skipped"]?["nights"] as? Int == 1)
        // Sorted 150 165 168 170 180 200 250: median 170.
        #expect((insights["interval"] as? [String: Any])?["median"] as? Double == 170)
        #expect((insights["interval"] as? [String: Any])?["inside_window_percent"] as? Double == 85.7)
        run = try cli.run(["insights", "--nights", "30"], now: now, json: false)
        #expect(run.stdout.contains("On target: 37.5% (3 of 8)") && run.stdout.contains("Median interval: 170 min"))
        #expect(run.stdout.contains("Notable 2026-11-08: Dose 2 at "), "\(run.stdout)")

        let out = cli.directory.appendingPathComponent("report.html").path
        run = try cli.run(["report", "--nights", "30", "--out", out], now: now)
        #expect(run.json["on_target_percent"] as? Double == 37.5 && run.json["nights"] as? Int == 8)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        #expect(html.contains("<dt>On target</dt><dd>37.5% (3 of 8)") && html.contains("<dt>Median interval</dt><dd>170 min"))
        #expect(
            !html.contains("<script") && !html.contains("src=") && !html.contains("href=") && !html.contains("url("), "no script, nothing fetched")
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        run = try cli.run(["export", "--format", "sessions"], now: now, json: false)
        let rows = run.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.count == 9 && rows[0][0] == "session_date" && rows[0].count == 33)
        let timingColumn = try #require(rows[0].firstIndex(of: "timing"))
        #expect(
            rows.dropFirst().map { $0[timingColumn] } == [
                "on_target", "on_target", "in_window", "skipped", "in_window", "in_window", "on_target", "late",
            ])
        let intervalColumn = try #require(rows[0].firstIndex(of: "interval_minutes"))
        #expect(rows.dropFirst().map { Int($0[intervalColumn]) } == intervals)

        // The bundle carries it beside the tables, and importing the bundle reads past it.
        let bundle = cli.directory.appendingPathComponent("bundle.zip").path
        #expect(try cli.run(["export", "--format", "bundle", "--out", bundle], now: now).status == 0)
        let listing = try CLI.execute(
            ["-c", "import zipfile,sys; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", bundle],
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(listing.stdout.contains("sessions_analytics.csv") && listing.stdout.contains("sessions.csv"))
        let other = try CLI()
        run = try other.run(["import", bundle], now: now)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let imported = try other.run(["insights", "--nights", "30"], now: now).json
        #expect(imported["timing"] as? NSDictionary == insights["timing"] as? NSDictionary)
    }

    @Test("--pdf without Chromium says Chromium is needed, keeps the HTML, and exits with the input error")
    func pdfWithoutChromium() throws {
        let cli = try CLI()
        try Self.record(cli, [165, 170, 175])
        let out = cli.directory.appendingPathComponent("r.html").path
        let run = try cli.run(
            ["report", "--out", out, "--pdf"], now: "2026-11-04 20:00", json: false, environment: ["DOSETAP_CHROMIUM": "/nonexistent/chromium"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("a PDF needs Chromium") && run.stderr.contains("apt-get install chromium") && run.stderr.contains(out))
        #expect(FileManager.default.fileExists(atPath: out))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("r.pdf").path))
    }

    @Test(
        "--pdf with Chromium prints a PDF whose text holds the figures",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/pdfinfo")))
    func pdfWithChromium() throws {
        let cli = try CLI()
        try Self.record(cli, [165, 170, 190])
        let out = cli.directory.appendingPathComponent("r.html").path
        let run = try cli.run(["report", "--out", out, "--pdf", "--paper", "letter"], now: "2026-11-04 20:00")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let pdf = cli.directory.appendingPathComponent("r.pdf").path
        let text = try CLI.execute([pdf, "-"], executable: URL(fileURLWithPath: "/usr/bin/pdftotext"))
        #expect(text.stdout.contains("66.7% (2 of 3)") && text.stdout.contains("not medical advice"), "\(text.stdout)")
        // The product and the amounts a clinician needs (D18), and the file as private as the HTML.
        #expect(text.stdout.contains("XYWAV") && text.stdout.contains("2.25 g"), "\(text.stdout)")
        #expect(try FileManager.default.attributesOfItem(atPath: pdf)[.posixPermissions] as? Int == 0o600)
        // No empty page at the end: the last page holds the disclaimer (issue 53).
        let info = try CLI.execute([pdf], executable: URL(fileURLWithPath: "/usr/bin/pdfinfo")).stdout
        let pages = Int(info.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last ?? "") ?? 0
        let last = try CLI.execute(["-f", String(pages), "-l", String(pages), pdf, "-"], executable: URL(fileURLWithPath: "/usr/bin/pdftotext"))
        #expect(pages > 0 && last.stdout.contains("not medical advice"), "page \(pages) of \(pages): \(last.stdout)")
    }

    @Test("planner apply: refused without --yes or off the suggestion, applied with both, and audited with its reason", .readsSQLiteFile)
    func plannerApply() throws {
        let cli = try CLI()
        try Self.record(cli, [195, 192, 198, 195, 190, 200, 196])
        let now = "2026-11-08 20:00"
        var run = try cli.run(["planner"], now: now)
        #expect(run.json["suggested_target"] as? Int == 180 && run.json["kind"] as? String == "nudge_up")
        run = try cli.run(["planner", "apply", "180"], now: now)
        #expect(run.errorCode == "400_INVALID_INPUT" && run.stdout.contains("confirm"))
        run = try cli.run(["planner", "apply", "195", "--yes"], now: now)
        #expect(run.errorCode == "400_INVALID_INPUT")
        #expect(try cli.run(["settings", "get", "target_interval"], now: now, json: false).stdout.contains("165"))
        run = try cli.run(["planner", "apply", "180", "--yes"], now: now)
        #expect(run.status == 0 && run.json["applied_target"] as? Int == 180)
        let queue = try DatabaseQueue(path: cli.database)
        let details = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT details FROM audit_log WHERE action = 'setting' AND entity_id = 'target_interval'")
        }
        #expect(details.count == 1 && details[0].contains("\"to\":\"180\"") && details[0].contains("weekly planner: Dose 2 came"))
    }
}
