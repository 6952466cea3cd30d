import DoseApp
public import Foundation

/// The starting corpus for the targets that are not seeded by the hostile-input tests (those write theirs when
/// `DOSETAP_FUZZ_SEEDS` names a folder): the inputs that once broke the server, and ordinary valid ones.
public enum FuzzSeeds {
    /// Seeds per target, as named files. Long by design: it is the corpus itself, one list per target.
    public static func all() throws -> [FuzzTarget: [(name: String, data: Data)]] {
        func texts(_ items: [String]) -> [(name: String, data: Data)] {
            items.enumerated().map { ("seed-\($0.offset)", Data($0.element.utf8)) }
        }
        var seeds: [FuzzTarget: [(name: String, data: Data)]] = [:]
        seeds[.requestBody] = texts([
            #"{"type":"dose1"}"#, #"{"type":"dose2","confirm":["early","late"],"timestamp":"2026-11-22T06:30:00Z","note":"ok"}"#,
            #"{"sequence":2,"reason":"slept"}"#, #"{"minutes":10}"#, #"{"type":"bathroom","note":"e\u0301"}"#,
            #"{"entries":[{"medication_id":"modafinil","amount":1e300,"unit":"mg"}]}"#,
            #"{"entries":[{"medication_id":"modafinil","amount":"5","unit":"mg"}]}"#,
            #"{"entries":[{"medication_id":"xywav","amount":4.5,"unit":"g","taken_at":"2026-11-22T06:30:00Z"}],"confirm":["duplicate"]}"#,
            #"{"entries":[{"medication_id":"modafinil","amount":1e-300,"unit":"mg"}]}"#, #"{"entries":[{"medication_id":"adderall_ir"}]}"#,
            #"{"target_interval":165,"allow_snoozing":true,"time_zone":"Europe/Paris"}"#, #"{"timestamp":null,"note":null}"#,
            #"{"sleep_quality":4,"feel_rested":"well","grogginess":"mild","sleep_inertia_duration":"five_to_fifteen","dream_recall":"none","#
                + #""mental_clarity":7,"mood":"good","anxiety_level":"none","readiness_for_day":4}"#,
            #"{"caffeine_cups":2,"stress_level":3,"notes":"fine"}"#, #"{"confirm":"Clear All Data — This cannot be undone."}"#,
            "[1,2]", "", "{", #"{"a":1e999}"#, #"{"minutes":-0,"sequence":true}"#,
        ])
        seeds[.form] = texts([
            "csrf=abc&action=dose1", "medication=modafinil&amount=200&unit=mg", "a=%zz&b=%", "q=bathroom&q=water&q=snack", "+%20+=+",
        ])
        seeds[.clockInput] = texts([
            "2026-11-22T06:30:00Z", "2026-11-22T06:30:00.123+05:45", "22:30", "24:00", "2026-02-30T00:00:00Z", "America/New_York", "UTC",
            "dosetap://dose2", "dosetap://log?event=bathroom&notes=x", "2026-11-21", "9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00Z",
        ])
        seeds[.medicationEntry] = texts([
            "adderall_ir:10mg", "xywav:2.25g", "xyrem:4.5mL", "modafinil:200", "modafinil", "modafinil:99999999999999999999mg", ":10", "",
            "modafinil:1e300", "lumryz:4.5 g", "adderall_ir:.5mg",
        ])
        let keys =
            #""keys":{"p256dh":"BLWGUQbSOIJ0JdQ_0ShSswcExoObv6HrjWTiKJZPrjFIsOALpwiKaxw5MJg7S1fbkPAwr6xoysJeWyvRA1nA66s","#
            + #""auth":"MDEyMzQ1Njc4OWFiY2RlZg"}"#
        seeds[.pushSubscription] = texts([
            #"{"endpoint":"https://fcm.googleapis.com/fcm/send/abc","expirationTime":null,"# + keys + "}",
            #"{"endpoint":"https://a/","# + keys + "}", #"{"endpoint":"http://127.0.0.1:9/p","role":"contact","# + keys + "}",
            #"{"endpoint":"https://[::ffff:10.0.0.1]/x","expirationTime":1.5,"# + keys + "}", #"{"endpoint":"https://169.254.169.254/latest"}"#,
            "https://[fe80::1%25eth0]/x",
        ])
        let link = ActionLink(
            action: .snooze, sessionID: "night-1", expiresAt: FuzzFixture.now.addingTimeInterval(3_600), nonce: String(repeating: "ab", count: 16))
        seeds[.actionLink] = texts([
            FuzzTarget.linkSigner.token(for: link), FuzzTarget.linkSigner.token(for: link.issued(to: "device-1")), "take.bmlnaHQ.1.ab.x", "....",
            "a.b.c.d.e.f.g",
        ])
        let bundle = FuzzFixture.validBundle
        seeds[.bundle] = [("valid.zip", try FuzzFixture.zip(bundle))]
        seeds[.bundleEntry] = bundle.enumerated().map { ("entry-\($0.offset)-\($0.element.name)", Data([UInt8($0.offset)]) + $0.element.data) }
        if let events = bundle.first(where: { $0.name == "events.csv" })?.data {
            let text = String(decoding: events, as: UTF8.self)
            seeds[.eventsCSV] = [
                ("valid.csv", events), ("crlf-lf.csv", Data(text.replacingOccurrences(of: "\r\n", with: "\n").utf8)),
                ("bom.csv", Data([0xEF, 0xBB, 0xBF]) + events),
            ]
        }
        return seeds
    }

    /// Writes every seed under `folder/TARGET/NAME`.
    public static func write(to folder: URL) throws {
        for (target, files) in try all() {
            let directory = folder.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, data) in files { try data.write(to: directory.appendingPathComponent(name)) }
        }
    }
}
