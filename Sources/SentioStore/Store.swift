import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import PostgresNIO
import SQLiteKit
import SQLKit

/// The applications' data, in SQLite or PostgreSQL behind one SQL interface (sql-kit).
///
/// Open one per process with ``open(_:logger:)``: it migrates the schema to the newest version and
/// keeps the connections. Every query goes through ``read(_:)``, ``write(_:)`` (a transaction) or
/// ``transaction(_:)``, so a flow that writes several rows writes all or none of them. A write
/// that returns has been committed: SQLite runs in WAL mode with `synchronous=FULL` and PostgreSQL
/// commits before answering, so a process killed afterwards loses nothing it acknowledged.
/// Queries are never logged: their bound values include password hashes and session tokens.
public final class Store: Sendable {
    /// Which kind of database this store talks to; a few statements differ between the two.
    public enum Kind: String, Sendable { case sqlite, postgres }

    public let kind: Kind
    public let location: DatabaseLocation
    let logger: Logger
    private let backend: Backend

    private enum Backend: Sendable {
        case sqlite(SQLiteConnection, AsyncLock)
        case postgres(PostgresClient, Task<Void, Never>)
    }

    private init(kind: Kind, location: DatabaseLocation, logger: Logger, backend: Backend) {
        self.kind = kind
        self.location = location
        self.logger = logger
        self.backend = backend
    }

    /// Opens (creating if needed) the database at `location` and migrates it to ``Schema/version``.
    public static func open(_ location: DatabaseLocation, logger: Logger = Logger(label: "sentio.store")) async throws -> Store {
        let store: Store
        switch location {
        case .sqlite(let path):
            let url = URL(fileURLWithPath: path)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw StoreError.unavailable(location.description, reason: "cannot create its folder: \(error.localizedDescription)")
            }
            let connection: SQLiteConnection
            do {
                connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            } catch {
                throw StoreError.unavailable(location.description, reason: String(describing: error))
            }
            store = Store(kind: .sqlite, location: location, logger: logger, backend: .sqlite(connection, AsyncLock()))
            // WAL: readers never block the writer and a commit is one append; FULL: the WAL is
            // synced at each commit. foreign_keys is off by default in SQLite.
            try await store.read { db in
                try await db.raw("PRAGMA journal_mode=WAL").run()
                try await db.raw("PRAGMA synchronous=FULL").run()
                try await db.raw("PRAGMA foreign_keys=ON").run()
                try await db.raw("PRAGMA busy_timeout=5000").run()
                // Deleted rows are overwritten, not only unlinked: a deleted face photo must not
                // be readable from the file's free pages (see ``scrub()``).
                try await db.raw("PRAGMA secure_delete=ON").run()
            }
        case .postgres(let address):
            let configuration = PostgresClient.Configuration(
                host: address.host, port: address.port, username: address.user,
                password: address.password, database: address.database, tls: .disable)
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            let runner = Task { await client.run() }
            store = Store(kind: .postgres, location: location, logger: logger, backend: .postgres(client, runner))
            do {
                try await store.read { db in try await db.raw("SELECT 1").run() }
            } catch {
                await store.close()
                throw StoreError.unavailable(location.description, reason: describe(error))
            }
        }
        do {
            try await Schema.migrate(store)
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// Runs `body` with the database; for queries that read, or a single statement that writes.
    /// After deleting personal data (a face, a photo, an account): on SQLite, the write-ahead
    /// log is checkpointed into the database and truncated, so the deleted rows' old pages are
    /// gone from the log file as well as from the database (issue 34, finding 12). PostgreSQL
    /// keeps dead rows until VACUUM reclaims them (autovacuum; docs/deploy.md).
    public func scrub() async throws {
        guard kind == .sqlite else { return }
        try await read { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite(let connection, let lock):
            return try await lock.withLock { try await body(connection.sql(queryLogLevel: nil)) }
        case .postgres(let client, _):
            return try await client.withConnection { connection in try await body(connection.sql(queryLogLevel: nil, logger: logger)) }
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite(let connection, let lock):
            // IMMEDIATE takes the write lock at once, so two processes on one file never
            // deadlock upgrading a read lock.
            return try await lock.withLock { try await Self.run(body, on: connection.sql(queryLogLevel: nil), begin: "BEGIN IMMEDIATE") }
        case .postgres(let client, _):
            return try await client.withConnection { connection in
                try await Self.run(body, on: connection.sql(queryLogLevel: nil, logger: logger), begin: "BEGIN")
            }
        }
    }

    /// `body` between `begin` and COMMIT on one connection; ROLLBACK when it throws.
    private static func run<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T, on db: any SQLDatabase,
                                         begin: String) async throws -> T {
        try await db.raw(SQLQueryString(begin)).run()
        do {
            let result = try await body(db)
            try await db.raw("COMMIT").run()
            return result
        } catch {
            try? await db.raw("ROLLBACK").run()
            throw error
        }
    }

    /// A PostgreSQL connection of the store's pool, for what SQL cannot say (LISTEN/NOTIFY).
    func withPostgresConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T? {
        guard case .postgres(let client, _) = backend else { return nil }
        return try await client.withConnection { connection in try await body(connection) }
    }

    /// The PostgreSQL address, when this store is on PostgreSQL.
    var postgresAddress: PostgresAddress? {
        if case .postgres(let address) = location { address } else { nil }
    }

    /// Closes the connections; pending work finishes first.
    public func close() async {
        switch backend {
        case .sqlite(let connection, let lock):
            _ = try? await lock.withLock { try await connection.close() }
        case .postgres(_, let runner):
            runner.cancel()
            await runner.value
        }
    }
}

/// PostgresNIO's errors hide the server's message behind `String(reflecting:)`.
func describe(_ error: any Error) -> String {
    if let psql = error as? PSQLError {
        if let message = psql.serverInfo?[.message] { return message }
        return String(reflecting: psql.code)
    }
    return String(describing: error)
}
