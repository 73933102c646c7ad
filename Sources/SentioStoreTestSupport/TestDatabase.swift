import Foundation
import Logging
import PostgresNIO
import SentioStore
import SentioTestSupport
import Testing

/// The two databases every store test runs on.
public enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    public var testDescription: String { rawValue }
}

/// A fresh, empty database of the given kind: a new SQLite file in a temporary folder, or a new
/// database on the PostgreSQL server of `SENTIO_TEST_POSTGRES` (the role may create databases;
/// scripts/with-postgres throws the whole server away afterwards).
public enum TestDatabase {
    public static func fresh(_ backend: Backend) async throws -> DatabaseLocation {
        switch backend {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-store-\(RandomID.make(bytes: 6))")
            return .sqlite(path: dir.appendingPathComponent("sentio.db").path)
        case .postgres:
            let base = try DatabaseLocation(parsing: try Requirement.postgres.path())
            guard case .postgres(var address) = base else { throw StoreError.badLocation("SENTIO_TEST_POSTGRES", reason: "not postgres://") }
            let name = "t_" + RandomID.make(bytes: 6)
            let configuration = PostgresConnection.Configuration(
                host: address.host, port: address.port, username: address.user, password: address.password,
                database: address.database, tls: .disable)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "test"))
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test"))
            try await connection.close()
            address.database = name
            return .postgres(address)
        }
    }

}
