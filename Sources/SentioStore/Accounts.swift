import Foundation
import SQLKit

/// What a signed-in person may do. A guest (signed out) has no role.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case admin, professor, student, player

    public static func < (a: Role, b: Role) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A person with an account. The password hash never leaves the store's repository except to be
/// checked.
public struct User: Sendable, Codable, Equatable {
    public var id: String
    public var username: String
    public var displayName: String
    public var role: Role
    public var createdAt: Int64
    /// The password was chosen by someone else (an import, the administrator): until the user
    /// sets their own, the server lets them do nothing else.
    public var mustChangePassword: Bool

    public init(id: String, username: String, displayName: String, role: Role, createdAt: Int64, mustChangePassword: Bool = false) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.role = role
        self.createdAt = createdAt
        self.mustChangePassword = mustChangePassword
    }
}

/// A signed-in browser: found by the SHA-256 of its cookie's token.
public struct SessionRecord: Sendable, Equatable {
    public var tokenHash: String
    public var userID: String
    public var csrfToken: String
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(tokenHash: String, userID: String, csrfToken: String, createdAt: Int64, expiresAt: Int64) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Users, their sign-in sessions and the audit trail.
public struct Accounts: Sendable {
    let store: Store

    public init(store: Store) { self.store = store }

    /// What is wrong with a user name, or nil: 3 to 40 ASCII letters, digits, dots, dashes or
    /// underscores. ASCII only, so that no name can read as another's in a second script (a
    /// Cyrillic "о" in "rооt"). Names are stored lower-cased (``normalized(_:)``).
    public static func usernameProblem(_ name: String) -> String? {
        guard (3...40).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            return "a user name has 3 to 40 letters a–z, digits, dots, dashes or underscores"
        }
        return nil
    }

    /// A user name as the store keeps it: without surrounding spaces, lower-cased.
    public static func normalized(_ name: String) -> String { name.trimmingCharacters(in: .whitespaces).lowercased() }

    /// Adds a user; fails with ``StoreError/conflict(_:)`` when the name is taken (names compare
    /// case-insensitively: they are stored lower-cased). `mustChangePassword` when someone other
    /// than the user chose the password.
    public func create(username: String, displayName: String, role: Role, passwordHash: String, actor: String?,
                       mustChangePassword: Bool = false) async throws -> User {
        do {
            return try await store.transaction { db in
                try await Self.insert(db, username: username, displayName: displayName, role: role, passwordHash: passwordHash,
                                      actor: actor, mustChangePassword: mustChangePassword)
            }
        } catch let error where isUniqueViolation(error) {
            throw StoreError.conflict("a user named '\(username.lowercased())'")
        }
    }

    /// Adds a user within the caller's transaction (an import adds many in one), with the audit
    /// entry; a name taken is the database's unique violation.
    public static func insert(_ db: any SQLDatabase, username: String, displayName: String, role: Role, passwordHash: String, actor: String?,
                              mustChangePassword: Bool) async throws -> User {
        let user = User(id: RandomID.make(), username: username.lowercased(), displayName: displayName, role: role,
                        createdAt: Clock.milliseconds(), mustChangePassword: mustChangePassword)
        try await db.insert(into: "users")
            .columns("id", "username", "display_name", "role", "password_hash", "created_at", "must_change_password")
            .values(SQLBind(user.id), SQLBind(user.username), SQLBind(user.displayName), SQLBind(user.role.rawValue),
                    SQLBind(passwordHash), SQLBind(user.createdAt), SQLBind(mustChangePassword ? 1 : 0))
            .run()
        try await Audit.append(db, actor: actor, action: "user.create", subject: user.id, detail: "\(user.username) as \(role.rawValue)")
        return user
    }

    /// The user named `username` (compared as stored: lower-cased), within a transaction.
    public static func user(_ db: any SQLDatabase, named username: String) async throws -> User? {
        try await db.select().columns("*").from("users").where("username", .equal, SQLBind(username.lowercased())).first().map(user)
    }

    /// The user and their password hash, by name.
    public func credentials(username: String) async throws -> (user: User, passwordHash: String)? {
        try await store.read { db in
            guard let row = try await db.select().columns("*").from("users")
                .where("username", .equal, SQLBind(username.lowercased())).first()
            else { return nil }
            return (try Self.user(row), try row.decode(column: "password_hash", as: String.self))
        }
    }

    public func user(id: String) async throws -> User? {
        try await store.read { db in
            try await db.select().columns("*").from("users").where("id", .equal, SQLBind(id)).first().map(Self.user)
        }
    }

    public func users() async throws -> [User] {
        try await store.read { db in
            try await db.select().columns("*").from("users").orderBy("username").all().map(Self.user)
        }
    }

    public func count() async throws -> Int {
        try await store.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Removes a user with their sessions (by cascade); the audit trail keeps the event. The
    /// last administrator cannot be removed (nobody could manage the server after): fails with
    /// ``StoreError/notAllowed(_:)``.
    public func delete(id: String, actor: String?) async throws {
        try await store.transaction { db in
            guard let row = try await db.select().columns("id", "role").from("users").where("id", .equal, SQLBind(id)).first()
            else { throw StoreError.notFound("user \(id)") }
            if try row.decode(column: "role", as: String.self) == Role.admin.rawValue {
                // Every administrator's row locked first, so that two administrators deleting each
                // other at once (PostgreSQL, read committed) cannot both see the other remain.
                let admins = try await db.raw("UPDATE users SET role = role WHERE role = \(bind: Role.admin.rawValue) RETURNING id").all()
                guard admins.count > 1 else {
                    throw StoreError.notAllowed("the last administrator cannot be deleted; hand the role to someone first")
                }
            }
            try await db.delete(from: "sessions").where("user_id", .equal, SQLBind(id)).run()
            try await db.delete(from: "users").where("id", .equal, SQLBind(id)).run()
            try await Audit.append(db, actor: actor, action: "user.delete", subject: id, detail: nil)
        }
        try await store.scrub()
    }

    /// Hands the administrator role from `from` to `to` in one transaction: `to` becomes an
    /// administrator, `from` takes `newRole`. The caller has checked `from`'s password and face.
    /// Fails with ``StoreError/notAllowed(_:)`` when `from` is no longer an administrator.
    public func handOverAdmin(from: String, to: String, newRole: Role) async throws {
        try await store.transaction { db in
            for id in [from, to] {
                guard try await db.select().column("id").from("users").where("id", .equal, SQLBind(id)).first() != nil
                else { throw StoreError.notFound("user \(id)") }
            }
            // `from` steps down first, only if still an administrator: of two hand-overs at once
            // on PostgreSQL (read committed) the second matches no row and changes nothing,
            // instead of leaving two administrators.
            guard try await db.raw("""
                UPDATE users SET role = \(bind: newRole.rawValue) WHERE id = \(bind: from) AND role = \(bind: Role.admin.rawValue) RETURNING id
                """).first() != nil else { throw StoreError.notAllowed("only an administrator can hand the role over") }
            guard try await db.raw("UPDATE users SET role = \(bind: Role.admin.rawValue) WHERE id = \(bind: to) RETURNING id").first() != nil
            else { throw StoreError.notFound("user \(to)") }
            try await Audit.append(db, actor: from, action: "admin.handover", subject: to, detail: "previous administrator is now \(newRole.rawValue)")
        }
    }

    /// Sets `id`'s password hash and clears the must-change flag; every other session of the
    /// user ends (a password changed because it leaked must not leave the leak signed in).
    public func setPassword(id: String, passwordHash: String, keepSession tokenHash: String?) async throws {
        try await store.transaction { db in
            guard try await db.raw("""
                UPDATE users SET password_hash = \(bind: passwordHash), must_change_password = 0 WHERE id = \(bind: id) RETURNING id
                """).first() != nil else { throw StoreError.notFound("user \(id)") }
            try await db.raw("DELETE FROM sessions WHERE user_id = \(bind: id) AND token_hash <> \(bind: tokenHash ?? "")").run()
            try await Audit.append(db, actor: id, action: "password.change", subject: id, detail: nil)
        }
    }

    // MARK: Sessions

    public func createSession(_ session: SessionRecord) async throws {
        try await store.read { db in
            try await db.insert(into: "sessions")
                .columns("token_hash", "user_id", "csrf_token", "created_at", "expires_at")
                .values(SQLBind(session.tokenHash), SQLBind(session.userID), SQLBind(session.csrfToken),
                        SQLBind(session.createdAt), SQLBind(session.expiresAt))
                .run()
        }
    }

    /// The live session with this token hash and its user; expired sessions are not returned.
    public func session(tokenHash: String, now: Int64 = Clock.milliseconds()) async throws -> (SessionRecord, User)? {
        try await store.read { db in
            guard let row = try await db.select().columns("*").from("sessions")
                .where("token_hash", .equal, SQLBind(tokenHash)).where("expires_at", .greaterThan, SQLBind(now)).first()
            else { return nil }
            let record = SessionRecord(
                tokenHash: try row.decode(column: "token_hash", as: String.self),
                userID: try row.decode(column: "user_id", as: String.self),
                csrfToken: try row.decode(column: "csrf_token", as: String.self),
                createdAt: try row.decode(column: "created_at", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self))
            guard let userRow = try await db.select().columns("*").from("users").where("id", .equal, SQLBind(record.userID)).first()
            else { return nil }
            return (record, try Self.user(userRow))
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await store.read { db in
            try await db.delete(from: "sessions").where("token_hash", .equal, SQLBind(tokenHash)).run()
        }
    }

    /// Forgets sessions past their expiry; returns how many.
    @discardableResult
    public func deleteExpiredSessions(now: Int64 = Clock.milliseconds()) async throws -> Int {
        try await store.read { db in
            let n = try await db.raw("SELECT COUNT(*) AS n FROM sessions WHERE expires_at <= \(bind: now)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            try await db.delete(from: "sessions").where("expires_at", .lessThanOrEqual, SQLBind(now)).run()
            return n
        }
    }

    static func user(_ row: any SQLRow) throws -> User {
        User(id: try row.decode(column: "id", as: String.self),
             username: try row.decode(column: "username", as: String.self),
             displayName: try row.decode(column: "display_name", as: String.self),
             role: Role(rawValue: try row.decode(column: "role", as: String.self)) ?? .player,
             createdAt: try row.decode(column: "created_at", as: Int64.self),
             mustChangePassword: try row.decode(column: "must_change_password", as: Int.self) != 0)
    }
}

/// The audit trail: who did what to whom, appended in the same transaction as the change.
public enum Audit {
    public struct Entry: Sendable, Codable, Equatable {
        public var id: Int64
        public var at: Int64
        public var actor: String?
        public var action: String
        public var subject: String?
        public var detail: String?
    }

    public static func append(_ db: any SQLDatabase, actor: String?, action: String, subject: String?, detail: String?) async throws {
        try await db.insert(into: "audit_log")
            .columns("at", "actor", "action", "subject", "detail")
            .values(SQLBind(Clock.milliseconds()), SQLBind(actor), SQLBind(action), SQLBind(subject), SQLBind(detail))
            .run()
    }

    /// The newest entries first.
    public static func recent(_ store: Store, limit: Int = 100) async throws -> [Entry] {
        try await store.read { db in
            try await db.select().columns("*").from("audit_log").orderBy("id", .descending).limit(limit).all().map { row in
                Entry(id: try row.decode(column: "id", as: Int64.self), at: try row.decode(column: "at", as: Int64.self),
                      actor: try row.decode(column: "actor", as: String?.self), action: try row.decode(column: "action", as: String.self),
                      subject: try row.decode(column: "subject", as: String?.self), detail: try row.decode(column: "detail", as: String?.self))
            }
        }
    }
}

/// Random identifiers and tokens from the system's generator.
public enum RandomID {
    /// 128 random bits as 32 lower-case hex digits.
    public static func make(bytes: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

extension Store {
    /// Locks the user's row in `users` until the transaction ends (a no-op UPDATE), so one
    /// user's writes take turns on PostgreSQL (read committed) as they do on SQLite. False when
    /// there is no such user.
    public static func lockUser(_ db: any SQLDatabase, _ id: String) async throws -> Bool {
        try await db.raw("UPDATE users SET role = role WHERE id = \(bind: id) RETURNING id").first() != nil
    }

    /// Whether a database error is a unique-constraint violation, on either database (for the
    /// applications' repositories, which see the same errors).
    public static func isUniqueViolation(_ error: any Error) -> Bool { SentioStore.isUniqueViolation(error) }
}

/// Whether a database error is a unique-constraint violation, on either database.
func isUniqueViolation(_ error: any Error) -> Bool {
    let text = describe(error) + String(reflecting: error)
    return text.contains("UNIQUE constraint failed") || text.contains("duplicate key value") || text.contains("23505")
}
