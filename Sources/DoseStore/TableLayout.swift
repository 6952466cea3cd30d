import Foundation
import GRDB

/// A table's columns and primary key as SQLite declares them: what a staged import diffs by, `PostgresSQLiteCopy` copies by,
/// and `store copy` digests by.
struct TableLayout: Sendable {
    var name: String
    /// Every column, in declaration order.
    var columns: [String]
    /// The primary key's columns, in key order; empty for a table without one.
    var key: [String]

    init(_ table: String, _ db: Database) throws {
        let info = try Row.fetchAll(db, sql: "SELECT name, pk FROM pragma_table_info(?)", arguments: [table])
        name = table
        columns = info.map { $0["name"] }
        key = info.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] }
    }
}

extension String {
    /// The name as an SQL identifier (SQLite and PostgreSQL quote alike).
    var sqlIdentifier: String { "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
