public import DoseCore
import Foundation

/// Where a PostgreSQL store lives, read from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or `postgresql://`).
/// `?sslmode=disable|prefer|require` chooses TLS (default `prefer` for another host, `disable` on loopback);
/// `?search_path=NAME` keeps the store in one schema (tests give each store its own).
public struct PostgresLocation: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The schema the store's tables live in (nil: PostgreSQL's default, `public`).
    public var schema: String?

    /// How the connection is encrypted.
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    /// Whether `text` names a PostgreSQL store (and not a SQLite file).
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses a URL; a malformed one is refused naming what is wrong and what is allowed, never echoing a password.
    public init(url text: String) throws(DoseError) {
        let allowed = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]"
        func refuse(_ problem: String) -> DoseError { .invalidInput(field: "database", problem: problem, allowed: allowed) }
        guard Self.isPostgres(text) else { throw refuse("the URL does not start with postgres:// or postgresql://") }
        guard let components = URLComponents(string: text) else { throw refuse("the URL cannot be read") }
        guard let host = components.host, !host.isEmpty else { throw refuse("the URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("the URL names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw refuse("the URL names no database after the host") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw refuse("port \(port) is out of range") }
        self.host = host
        self.port = port
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
        tls = loopback ? .disable : .prefer
        schema = nil
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: item.value ?? "") else {
                    throw refuse("sslmode '\(item.value ?? "")' is not one of disable, prefer, require")
                }
                tls = mode
            case "search_path":
                let name = item.value ?? ""
                guard Self.isPlainName(name) else { throw refuse("search_path '\(name)' is not a plain name (a–z, 0–9, _; at most 63)") }
                schema = name
            default:
                throw refuse("the URL option '\(item.name)' is not known")
            }
        }
    }

    /// The URL without its password, for messages and logs.
    public var redacted: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)" + (schema.map { "?search_path=\($0)" } ?? "")
    }

    /// A lowercase identifier PostgreSQL needs no quoting for.
    static func isPlainName(_ name: String) -> Bool {
        (1...63).contains(name.count) && name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
