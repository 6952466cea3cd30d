import DoseCore
import Foundation
import GRDB

/// A row type of DoseTap's tables: Codable, with its `CodingKeys` as the column names and `Columns` for queries.
/// Each one also names `StoredInstant`'s date strategies itself: GRDB asks for them through its own protocol's
/// requirement, which a default in this protocol's extension would not answer.
protocol StoredRecord: Codable, FetchableRecord, PersistableRecord {}

/// How instants are stored: fixed-width UTC text with milliseconds (`ISO8601.string`), so text order is time order
/// and an index on an instant column serves a range query.
enum StoredInstant {
    static let encoding = DatabaseDateEncodingStrategy.custom { ISO8601.string($0) }
    static let decoding = DatabaseDateDecodingStrategy.custom { String.fromDatabaseValue($0).flatMap(ISO8601.parse) }
}
