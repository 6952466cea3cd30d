import DoseCore
import Foundation
import PostgresNIO

/// The export bundle of one person of a shared store, read straight from PostgreSQL in one snapshot and written by
/// the code the file's bundle is written by (`ExportBundle.write`), so the two are the same to the byte. Each table
/// comes through a cursor a few thousand rows at a time.
extension PostgresStore {
    /// Writes `person`'s export bundle to `path`; returns the number of data rows per table file.
    public func exportBundle(of person: String, to path: String, analytics: String, clock: StoreClock, rowsPerFetch: Int = 4000) throws
        -> [String: Int]
    {
        let (tables, counts, settings, explicit) = try transaction(readOnly: true, seeing: .person(person)) { session in
            let layouts = try Self.bundleLayouts(session)
            var tables: [(file: String, columns: [String], text: String)] = []
            var counts: [String: Int] = [:]
            for spec in ExportBundle.tables {
                let stored = Dictionary(uniqueKeysWithValues: (layouts[spec.table] ?? []).map { ($0.name, $0) })
                let columns = try spec.columns.map { name in
                    guard let column = stored[name] else {
                        throw PostgresFailure(state: "DT001", message: "PostgreSQL's \(spec.table) has no \(name); the migrations are out of step")
                    }
                    return column
                }
                let (text, count) = try Self.bundleCSV(spec, columns: columns, of: person, rowsPerFetch: rowsPerFetch, session)
                tables.append((spec.file, columns.map(\.name), text))
                counts[spec.file] = count
            }
            let explicit = try PostgresSettingsTransaction(session: session, person: person).storedSettings()
            return (tables, counts, try SettingsStore.settings(from: explicit, machineTimeZoneID: clock.machineTimeZoneID), explicit)
        }
        try ExportBundle.write(
            tables: tables, settings: settings, explicit: explicit, events: try eventsCSV(of: person, rowsPerFetch: rowsPerFetch),
            analytics: analytics, to: path, clock: clock)
        return counts
    }

    /// A column as the SQLite store keeps it: instants as fixed-width UTC text, dates as text, flags as 0 and 1. What a
    /// workspace copies and the bundle writes alike.
    static func asSQLiteKeepsIt(_ column: String, type: String) -> String {
        switch type {
        case "timestamp with time zone": "dosetap_instant(\(column.sqlIdentifier))"
        case "date": "to_char(\(column.sqlIdentifier), 'YYYY-MM-DD')"
        case "boolean": "\(column.sqlIdentifier)::int"
        default: column.sqlIdentifier
        }
    }

    /// `text` as a quoted SQL literal, for a statement that takes no parameters (a cursor's).
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A column of a bundle table and its PostgreSQL type.
    struct BundleColumn {
        let name: String
        let type: String

        /// The column as SQLite keeps it (`asSQLiteKeepsIt`).
        var selected: String { PostgresStore.asSQLiteKeepsIt(name, type: type) }

        /// The cell of `row` at `index`, read as SQLite's storage class for the column's type.
        func cell(_ cell: PostgresCell) throws -> ExportBundle.Cell? {
            switch type {
            case "smallint", "integer", "bigint", "boolean": try cell.decode(Int64?.self).map { .integer($0) }
            case "double precision", "real": try cell.decode(Double?.self).map { .real($0) }
            default: try cell.decode(String?.self).map { .text($0) }
            }
        }
    }

    /// Each bundle table's columns and their types, without the person's id.
    private static func bundleLayouts(_ session: PostgresSession) throws -> [String: [BundleColumn]] {
        var binds = PostgresBindings()
        binds.append(ExportBundle.tables.map(\.table))
        let rows = try session.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT c.relname::text, a.attname::text, format_type(a.atttypid, NULL) FROM pg_attribute AS a
                    JOIN pg_class AS c ON c.oid = a.attrelid
                    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname = ANY($1::text[])
                        AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> 'person_id'
                    """, binds: binds))
        var layouts: [String: [BundleColumn]] = [:]
        for row in rows {
            let (table, name, type) = try row.decode((String, String, String).self)
            layouts[table, default: []].append(BundleColumn(name: name, type: type))
        }
        return layouts
    }

    /// One table of `person` as the bundle's CSV, ordered as the file orders it (text compared byte by byte, as SQLite's
    /// BINARY collation does), and its row count.
    private static func bundleCSV(
        _ spec: ExportBundle.TableFile, columns: [BundleColumn], of person: String, rowsPerFetch: Int, _ session: PostgresSession
    ) throws -> (String, Int) {
        let types = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0.type) })
        let order = spec.order.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map { column in
            types[column] == "text" ? "\(column.sqlIdentifier) COLLATE \"C\"" : column.sqlIdentifier
        }
        var out = CSV.row(columns.map(\.name))
        var count = 0
        let select = """
            SELECT \(columns.map(\.selected).joined(separator: ", ")) FROM \(spec.table.sqlIdentifier)
            WHERE person_id = \(PostgresStore.literal(person)) ORDER BY \(order.joined(separator: ", "))
            """
        try session.forEachRow(throughCursor: select, rowsPerFetch: rowsPerFetch) { row in
            let cells = row.makeRandomAccess()
            out += CSV.row(
                try columns.enumerated().map { index, column in
                    ExportBundle.field(try column.cell(cells[index]), column: column.name, of: spec)
                })
            count += 1
        }
        return (out, count)
    }
}
