import Foundation
import Logging
import PostgresNIO
import SentioStore

/// Fresh databases on the test PostgreSQL server (scripts/with-postgres gives the role CREATEDB).
enum PostgresDatabases {
    static func fresh(_ base: DatabaseLocation) async throws -> DatabaseLocation {
        guard case .postgres(var address) = base else { throw TestFailure("SENTIO_TEST_POSTGRES is not a postgres:// address") }
        let name = "s_" + RandomID.make(bytes: 6)
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: address.host, port: address.port, username: address.user, password: address.password,
                                 database: address.database, tls: .disable),
            id: 1, logger: Logger(label: "test"))
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test"))
        try await connection.close()
        address.database = name
        return .postgres(address)
    }
}
