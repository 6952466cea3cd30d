import DoseCore
public import Foundation

/// The diagnostic log's rules: what a line may hold. It is written beside the database and goes into support bundles,
/// so it holds no health data, notes, names, tokens or addresses by construction: a message is kept only when it is one
/// of the fixed sentences the code logs (anything with a value in it is withheld), a metadata value only under a known
/// key and only as a short token that is not an address, and a label only when it is one of DoseTap's own.
public enum DiagnosticLog {
    /// The file in the database's folder; the one before it is `….1`.
    public static let fileName = "dosetap-diagnostic.log"
    /// The most one file holds before it is rotated; with the rotated one, the log never passes twice this.
    public static let maximumBytes = 256 * 1024

    /// The sentences the code logs, fixed at compile time.
    public static let messages: Set<String> = [
        "serve started", "request failed", "push delivery failed", "webhook delivery failed", "the VAPID key could not be read; no push was sent",
        "the server certificate was renewed", "the server certificate is due", "the server certificate could not be renewed",
    ]
    /// The labels kept.
    public static let labels: Set<String> = ["dosetap", "dosetap.push", "dosetap.webhook"]
    /// What stands for a message that is not one of `messages`.
    public static let withheld = "(message withheld)"

    /// One line of the file: `instant level label "message" key=value …`, only the safe parts of what was logged.
    public static func line(at instant: String, level: String, label: String, message: String, metadata: [String: String]) -> String {
        let safeLabel = labels.contains(label) ? label : "other"
        let safeLevel = ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level) ? level : "info"
        var line = "\(isInstant(instant) ? instant : "-") \(safeLevel) \(safeLabel) \"\(messages.contains(message) ? message : withheld)\""
        // A key `isSafe` does not know takes no value at all, so unknown keys are dropped.
        for key in metadata.keys.sorted() {
            guard let value = metadata[key], isSafe(value, for: key) else { continue }
            line += " \(key)=\(value)"
        }
        return line
    }

    /// Whether `value` may stand under `key`: each key takes one narrow shape, and none of them fits a name, a note, a
    /// token (`dtp_…`), an address (IPv4 has dots, IPv6 colons) or an e-mail. Counts and codes are digits; `error` is a
    /// type name; `outcome`, `channel` and `kind` are lowercase words; `request_id` is hexadecimal with dashes.
    public static func isSafe(_ value: String, for key: String) -> Bool {
        let scalars = value.unicodeScalars
        guard !value.isEmpty, scalars.allSatisfy(\.isASCII) else { return false }
        switch key {
        case "attempt", "status", "duration_ms", "schema":
            return value.count <= 6 && scalars.allSatisfy { ("0"..."9").contains($0) }
        case "error":
            return value.count <= 60 && ("A"..."Z").contains(scalars.first!)
                && scalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." }
        case "outcome", "channel", "kind":
            return value.count <= 30 && scalars.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
        case "request_id":
            return value.count <= 36
                && scalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) || $0 == "-" }
        default:
            return false
        }
    }

    /// The lines of a log file that are exactly what `line` writes, each rebuilt from its checked parts; anything else
    /// (a line from an older build, a hand edit) is left out. Support bundles carry the log through this, moving each
    /// line's instant by `shift` seconds as they move every other time.
    public static func sanitized(_ text: String, shift: TimeInterval = 0) -> String {
        var kept: [String] = []
        for raw in text.split(separator: "\n") {
            let parts = raw.split(separator: "\"", omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let head = parts[0].split(separator: " ")
            guard head.count == 3 else { continue }
            var metadata: [String: String] = [:]
            for pair in parts[2].split(separator: " ") {
                let sides = pair.split(separator: "=", maxSplits: 1)
                if sides.count == 2 { metadata[String(sides[0])] = String(sides[1]) }
            }
            let instant = ISO8601.parse(String(head[0])).map { ISO8601.string($0.addingTimeInterval(shift)) } ?? "-"
            let rebuilt = line(at: instant, level: String(head[1]), label: String(head[2]), message: String(parts[1]), metadata: metadata)
            kept.append(rebuilt)
        }
        return kept.map { $0 + "\n" }.joined()
    }

    /// `2026-11-25T12:00:00.000Z`, nothing else.
    static func isInstant(_ text: String) -> Bool {
        text.count == 24 && text.hasSuffix("Z") && text.allSatisfy { $0.isNumber || "-:.TZ".contains($0) }
    }
}

/// The diagnostic log's files in a folder.
public enum DiagnosticLogFile {
    /// The current file's path in `folder`; the rotated one adds `.1`.
    public static func path(in folder: URL) -> String { folder.appendingPathComponent(DiagnosticLog.fileName).path }

    /// Both files' text, older first; empty when there is no log yet.
    public static func read(in folder: URL) -> String {
        let current = path(in: folder)
        return [current + ".1", current].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined()
    }
}
