import Foundation
import Logging
import PostgresNIO

/// Messages between servers that share one PostgreSQL database, over LISTEN/NOTIFY.
///
/// Each server delivers its own messages to its own listeners directly; the broadcaster carries
/// them to the other servers. With SQLite there is only one server, so it carries nothing.
/// A NOTIFY payload is limited to 8,000 bytes, so larger messages go through the
/// `broadcasts` table and the notification carries only their id.
public final class Broadcaster: Sendable {
    /// This process's id; a server ignores its own notifications.
    public let origin: String
    let store: Store
    static let channel = "sentio_broadcast"
    static let inlineLimit = 7_000

    public init(store: Store) {
        self.store = store
        self.origin = RandomID.make(bytes: 8)
    }

    /// Sends `payload` on `topic` to the other servers (none with SQLite).
    public func publish(topic: String, payload: String) async throws {
        guard store.kind == .postgres else { return }
        let header = "\(origin) \(topic) "
        if header.utf8.count + payload.utf8.count <= Self.inlineLimit {
            try await store.read { db in
                try await db.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: header + "=" + payload))").run()
            }
        } else {
            try await store.transaction { db in
                let id = try await db.raw("INSERT INTO broadcasts (at, payload) VALUES (\(bind: Clock.milliseconds()), \(bind: payload)) RETURNING id")
                    .first()?.decode(column: "id", as: Int64.self) ?? 0
                try await db.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: header + "#" + String(id)))").run()
            }
        }
    }

    /// Listens until the task is cancelled, handing each message from another server to `deliver`.
    /// Returns at once with SQLite.
    /// `listening` is called each time the listener is (re)connected and will see new messages.
    public func run(logger: Logger, listening: @escaping @Sendable () -> Void = {},
                    deliver: @escaping @Sendable (_ topic: String, _ payload: String) async -> Void) async {
        guard let address = store.postgresAddress else { return }
        while !Task.isCancelled {
            do {
                // A connection of its own: a pooled one would be handed back between messages.
                let configuration = PostgresConnection.Configuration(
                    host: address.host, port: address.port, username: address.user, password: address.password,
                    database: address.database, tls: .disable)
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.channel) { notifications in
                    listening()
                    for try await notification in notifications {
                        guard let (origin, topic, body) = Self.split(notification.payload), origin != self.origin else { continue }
                        if body.hasPrefix("=") {
                            await deliver(topic, String(body.dropFirst()))
                        } else if let id = Int64(body.dropFirst()) {
                            let payload = try await store.read { db in
                                try await db.raw("SELECT payload FROM broadcasts WHERE id = \(bind: id)").first()?.decode(column: "payload", as: String.self)
                            }
                            if let payload { await deliver(topic, payload) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("broadcast listener lost its connection; reconnecting", metadata: ["error": "\(describe(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Removes large messages older than `age` seconds (every server has read them by then).
    public func sweep(olderThan age: TimeInterval = 60) async throws {
        guard store.kind == .postgres else { return }
        try await store.read { db in
            try await db.raw("DELETE FROM broadcasts WHERE at < \(bind: Clock.milliseconds() - Int64(age * 1000))").run()
        }
    }

    static func split(_ text: String) -> (String, String, Substring)? {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return (String(parts[0]), String(parts[1]), parts[2])
    }
}
