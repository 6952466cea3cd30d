import Foundation

/// RFC 4180 CSV with the spreadsheet formula-injection guard (SPEC §5.2).
public enum CSV {
    /// Line ending of every row (RFC 4180).
    public static let newline = "\r\n"

    /// One field. Free text starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a spreadsheet
    /// shows it instead of running it; fields with commas, quotes or line breaks are quoted.
    public static func field(_ value: String?, freeText: Bool = false) -> String {
        guard var text = value else { return "" }
        if freeText, let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            text = "'" + text
        }
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }

    /// One row, newline included.
    public static func row(_ fields: [String]) -> String {
        fields.joined(separator: ",") + newline
    }
}
