import Foundation

/// Where a store keeps its data: an SQLite file (the embedded default) or a PostgreSQL server
/// (when several Sentio servers share one database).
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// An SQLite database file; created with its folder when missing.
    case sqlite(path: String)
    /// A PostgreSQL database, e.g. `postgres://user:password@127.0.0.1:5432/sentio`.
    case postgres(PostgresAddress)

    /// Parses `sqlite:PATH` or `postgres://USER:PASSWORD@HOST[:PORT]/DATABASE` (also `postgresql://`).
    public init(parsing text: String) throws(StoreError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw .badLocation(text, reason: "sqlite: needs a file path, e.g. sqlite:/var/lib/sentio/sentio.db") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresAddress(parsing: text))
        } else {
            throw .badLocation(redacted(text), reason: "expected sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
    }

    /// The location with any password replaced by `***`, for logs and messages.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let address): address.description
        }
    }
}

/// A PostgreSQL server, user and database. Its `description` never shows the password.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, user: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    init(parsing text: String) throws(StoreError) {
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty,
              let user = url.user, !user.isEmpty
        else { throw .badLocation(redacted(text), reason: "a PostgreSQL address needs a user and a host: postgres://USER:PASSWORD@HOST:PORT/DATABASE") }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty else { throw .badLocation(redacted(text), reason: "the address names no database (…/DATABASE)") }
        self.init(host: host, port: url.port ?? 5432, user: user,
                  password: url.password?.removingPercentEncoding ?? url.password, database: database)
    }

    public var description: String {
        "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }
}

/// `text` with the password of a `scheme://user:password@…` address replaced by `***`.
func redacted(_ text: String) -> String {
    guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex),
          let colon = text.range(of: ":", range: scheme.upperBound..<at.lowerBound)
    else { return text }
    return text.replacingCharacters(in: colon.upperBound..<at.lowerBound, with: "***")
}
