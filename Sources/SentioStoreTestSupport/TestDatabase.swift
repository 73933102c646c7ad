import Foundation
import Logging
import PostgresNIO
import SentioStore
import SentioTestSupport
import SQLKit
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

    /// Opens `connections` of the store's PostgreSQL connections at once (the pool grows only
    /// when asked), so that requests a test then fires together run together rather than one
    /// waiting for a connection to be made while the other finishes. Nothing on SQLite.
    public static func warm(_ store: Store, connections: Int = 4) async throws {
        guard store.kind == .postgres else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask { try await store.read { db in try await db.raw("SELECT pg_sleep(0.05)").run() } }
            }
            try await group.waitForAll()
        }
    }

}
