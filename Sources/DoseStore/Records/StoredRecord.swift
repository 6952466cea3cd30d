import DoseCore
import Foundation
import GRDB

/// A row type of DoseTap's tables: Codable, with its `CodingKeys` as the column names and `Columns` for queries.
/// Its instants are stored as `StoredInstant` text (the extension below answers GRDB's date-strategy requirements).
protocol StoredRecord: Codable, FetchableRecord, PersistableRecord {}

/// How instants are stored: fixed-width UTC text with milliseconds (`ISO8601.string`), so text order is time order
/// and an index on an instant column serves a range query.
enum StoredInstant {
    static let encoding = DatabaseDateEncodingStrategy.custom { ISO8601.string($0) }
    static let decoding = DatabaseDateDecodingStrategy.custom { String.fromDatabaseValue($0).flatMap(ISO8601.parse) }
}

extension StoredRecord {
    /// Instants are written as `StoredInstant` text, which the schema's `length(…) = 24` checks expect.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { StoredInstant.encoding }
    /// Instants are read from `StoredInstant` text.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { StoredInstant.decoding }
}
