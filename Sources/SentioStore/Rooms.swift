import Foundation
import SQLKit

/// A pairing room: a desktop page opens it, a phone joins it by its code, and what the phone's
/// streams produce reaches the desktop, whichever server each of them reached.
public struct Room: Sendable, Codable, Equatable {
    /// Six characters from an alphabet without look-alikes (no 0/O, 1/I/L), easy to type on a phone.
    public var code: String
    /// What the desktop wants from the phone: `camera`, `motion`, …
    public var purpose: String
    public var createdAt: Int64
    public var expiresAt: Int64
}

/// The rooms table.
public struct Rooms: Sendable {
    let store: Store
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    public init(store: Store) { self.store = store }

    /// Whether `code` has the shape of a room code (checked before any query).
    public static func isWellFormed(_ code: String) -> Bool {
        code.count == 6 && code.allSatisfy { alphabet.contains($0) }
    }

    /// Opens a room that lives `lifetime` seconds.
    public func open(purpose: String, lifetime: TimeInterval = 3600) async throws -> Room {
        let now = Clock.milliseconds()
        for _ in 0..<8 {
            var generator = SystemRandomNumberGenerator()
            let code = String((0..<6).map { _ in Self.alphabet.randomElement(using: &generator)! })
            let room = Room(code: code, purpose: purpose, createdAt: now, expiresAt: now + Int64(lifetime * 1000))
            do {
                try await store.read { db in
                    try await db.insert(into: "rooms").columns("code", "purpose", "created_at", "expires_at")
                        .values(SQLBind(room.code), SQLBind(room.purpose), SQLBind(room.createdAt), SQLBind(room.expiresAt)).run()
                }
                return room
            } catch let error where isUniqueViolation(error) {
                continue  // a live room has this code; draw again
            }
        }
        throw StoreError.conflict("a free room code (8 draws collided)")
    }

    /// The room if it exists and has not expired.
    public func find(_ code: String, now: Int64 = Clock.milliseconds()) async throws -> Room? {
        guard Self.isWellFormed(code) else { return nil }
        return try await store.read { db in
            guard let row = try await db.select().columns("*").from("rooms").where("code", .equal, SQLBind(code))
                .where("expires_at", .greaterThan, SQLBind(now)).first()
            else { return nil }
            return Room(code: try row.decode(column: "code", as: String.self), purpose: try row.decode(column: "purpose", as: String.self),
                        createdAt: try row.decode(column: "created_at", as: Int64.self),
                        expiresAt: try row.decode(column: "expires_at", as: Int64.self))
        }
    }

    public func count() async throws -> Int {
        try await store.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM rooms").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Forgets expired rooms.
    public func deleteExpired(now: Int64 = Clock.milliseconds()) async throws {
        try await store.read { db in
            try await db.delete(from: "rooms").where("expires_at", .lessThanOrEqual, SQLBind(now)).run()
        }
    }
}
