import Foundation

/// RFC 4180 CSV with the spreadsheet formula-injection guard (SPEC §5.2).
public enum CSV {
    /// Line ending of every row (RFC 4180).
    public static let newline = "\r\n"

    /// One field. Free text starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a spreadsheet
    /// shows it instead of running it; fields with commas, quotes or line breaks are quoted.
    /// Text that begins with `'` is prefixed too, so that `unguard` can always remove exactly one and a note
    /// survives an export and an import unchanged.
    public static func field(_ value: String?, freeText: Bool = false) -> String {
        guard var text = value else { return "" }
        if freeText, needsGuard(text) { text = "'" + text }
        // Checked on bytes: exports run this for every field of every row.
        if text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }

    /// The characters a spreadsheet may take as the start of a formula, with their look-alikes: fullwidth (＝ ＋ － ＠),
    /// small forms (﹦ ﹢ ﹣ ﹫), the minus sign (−) and dashes that some spreadsheets read as minus.
    static let formulaStarts: Set<Unicode.Scalar> = [
        "=", "+", "-", "@", "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}", "\u{FE66}", "\u{FE62}", "\u{FE63}", "\u{FE6B}", "\u{2212}", "\u{2010}",
        "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}",
    ]

    /// Whether free text needs the guard: it starts with a formula character, a tab, CR or `'`, or with one after
    /// spaces or invisible characters (a spreadsheet may skip those).
    static func needsGuard(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        if ["\t", "\r", "'"].contains(first) { return true }
        let significant = text.unicodeScalars.first { !($0.properties.isWhitespace || $0.properties.generalCategory == .format) }
        return significant.map(formulaStarts.contains) ?? false
    }

    /// Removes the formula guard from imported free text.
    public static func unguard(_ text: String) -> String {
        text.hasPrefix("'") ? String(text.dropFirst()) : text
    }

    /// A malformed CSV file: the row (1 = header) and what is wrong.
    public struct ParseError: Error, Hashable, Sendable {
        public var row: Int
        public var problem: String
    }

    /// Parses RFC 4180 text strictly: quoted fields may hold commas, quotes (doubled) and line breaks; rows end
    /// with CRLF or LF; every row must have as many fields as the header. Returns the header and the rows.
    /// Long by design: one pass of one state machine over the characters, which is how RFC 4180's quoting is read
    /// correctly; split, its states would have to be passed around.
    public static func parse(_ text: String, maximumRows: Int = 1_000_000) throws(ParseError) -> (header: [String], rows: [[String]]) {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var fieldStarted = false
        var afterQuote = false
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func endField() {
            row.append(field)
            field = ""
            fieldStarted = false
            afterQuote = false
        }
        func endRow() throws(ParseError) {
            endField()
            rows.append(row)
            row = []
            if rows.count > maximumRows + 1 { throw ParseError(row: rows.count, problem: "more than \(maximumRows) rows") }
        }
        while index < scalars.count {
            let character = scalars[index]
            if quoted {
                if character == "\"" {
                    if index + 1 < scalars.count, scalars[index + 1] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    field.unicodeScalars.append(character)
                }
            } else if character == "," {
                endField()
                fieldStarted = true
            } else if character == "\r" || character == "\n" {
                if character == "\r" {
                    guard index + 1 < scalars.count, scalars[index + 1] == "\n" else {
                        throw ParseError(row: rows.count + 1, problem: "a carriage return outside quotes")
                    }
                    index += 1
                }
                try endRow()
            } else if character == "\"" {
                guard field.isEmpty, !afterQuote else { throw ParseError(row: rows.count + 1, problem: "a quote inside an unquoted field") }
                quoted = true
                fieldStarted = true
            } else {
                guard !afterQuote else { throw ParseError(row: rows.count + 1, problem: "text after a closing quote") }
                field.unicodeScalars.append(character)
                fieldStarted = true
            }
            index += 1
        }
        if quoted { throw ParseError(row: rows.count + 1, problem: "a quoted field is not closed (the file is truncated?)") }
        if fieldStarted || !field.isEmpty || !row.isEmpty { try endRow() }
        guard let header = rows.first else { throw ParseError(row: 1, problem: "the file is empty; a header is required") }
        for (offset, values) in rows.enumerated().dropFirst() where values.count != header.count {
            throw ParseError(row: offset + 1, problem: "\(values.count) fields where the header has \(header.count)")
        }
        return (header, Array(rows.dropFirst()))
    }

    /// Data rows in CSV text (records after the header), counting line breaks outside quotes.
    public static func dataRowCount(_ text: String) -> Int {
        var quoted = false
        var rows = 0
        for byte in text.utf8 {
            if byte == 0x22 { quoted.toggle() } else if byte == 0x0A, !quoted { rows += 1 }
        }
        return max(0, rows - 1)
    }

    /// One row, newline included.
    public static func row(_ fields: [String]) -> String {
        fields.joined(separator: ",") + newline
    }
}
