import Foundation
import SQLKit

/// An application's own tables: its migrations, numbered from 1 within the application, applied
/// after the platform's (``Schema``) by ``Store/migrate(_:)``. Each application owns its tables
/// through its repository type, so the store needs to know none of them.
public struct AppSchema: Sendable {
    /// A short name, unique among the applications ("iv", "attendance"); it prefixes nothing,
    /// it only keys the migrations' history.
    public let app: String
    public let migrations: [Migration]

    public init(app: String, migrations: [Migration]) {
        self.app = app
        self.migrations = migrations
    }

    /// The newest version this program knows.
    public var version: Int { migrations.last?.version ?? 0 }
}

extension Store {
    /// Brings `schema`'s tables to its newest version in one transaction (each step once, in
    /// order); on PostgreSQL servers that start together take turns (an advisory lock). Safe to
    /// call at every start.
    public func migrate(_ schema: AppSchema) async throws {
        let kind = self.kind
        try await transaction { db in
            if kind == .postgres {
                try await db.raw("SELECT pg_advisory_xact_lock(7365746)").run()
            }
            let current = try await db.raw("SELECT MAX(version) AS v FROM app_migrations WHERE app = \(bind: schema.app)")
                .first()?.decode(column: "v", as: Int?.self) ?? 0
            guard current <= schema.version else { throw StoreError.schemaTooNew(found: current, known: schema.version) }
            for migration in schema.migrations where migration.version > current {
                do {
                    for statement in migration.statements(kind) {
                        try await db.raw(SQLQueryString(statement)).run()
                    }
                    try await db.insert(into: "app_migrations")
                        .columns("app", "version", "name", "applied_at")
                        .values(SQLBind(schema.app), SQLBind(migration.version), SQLBind(migration.name), SQLBind(Clock.milliseconds()))
                        .run()
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError.migrationFailed(version: migration.version, name: "\(schema.app): \(migration.name)", reason: describe(error))
                }
                logger.info("migrated", metadata: ["app": "\(schema.app)", "version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
    }
}
