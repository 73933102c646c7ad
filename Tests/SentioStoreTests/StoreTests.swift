import Foundation
import SentioStore
import SentioStoreTestSupport
import SentioTestSupport
import SQLKit
import Testing

@Suite("Database addresses")
struct AddressTests {
    @Test("addresses parse, and a password never shows", arguments: [
        ("sqlite:/tmp/x.db", "sqlite:/tmp/x.db"),
        ("postgres://sentio:s3cret@127.0.0.1:5433/app", "postgres://sentio:***@127.0.0.1:5433/app"),
        ("postgresql://u@db.example/app", "postgres://u@db.example:5432/app"),
    ])
    func addresses(text: String, shown: String) throws {
        #expect(try DatabaseLocation(parsing: text).description == shown)
    }

    @Test("bad addresses are typed errors that hide the password", arguments: [
        "mysql://u:p@h/db", "sqlite:", "postgres://u:hunter2@/db", "postgres://u:hunter2@host", "",
    ])
    func badAddresses(text: String) {
        #expect(throws: StoreError.self) { try DatabaseLocation(parsing: text) }
        do { _ = try DatabaseLocation(parsing: text) } catch { #expect(!error.description.contains("hunter2")) }
    }
}

@Suite("SentioStore on SQLite")
struct SqliteStoreTests {
    @Test("a new database is migrated to the newest version, and reopening changes nothing") func migrates() async throws { try await StoreChecks.migrates(.sqlite) }
    @Test("a schema newer than the program is refused, not damaged") func newerSchema() async throws { try await StoreChecks.newerSchema(.sqlite) }
    @Test("accounts: names are unique whatever their case, sessions expire, deleting a user ends their sessions and is audited") func accounts() async throws { try await StoreChecks.accounts(.sqlite) }
    @Test("a transaction that throws leaves nothing behind") func rollback() async throws { try await StoreChecks.rollback(.sqlite) }
    @Test("200 concurrent writes all land") func concurrentWrites() async throws { try await StoreChecks.concurrentWrites(.sqlite) }
    @Test("two hand-overs of the administrator role at once leave one administrator") func handOvers() async throws { try await StoreChecks.handOvers(.sqlite) }
    @Test("rooms: codes are well formed, expired rooms are not found") func rooms() async throws { try await StoreChecks.rooms(.sqlite) }
}

@Suite("SentioStore on PostgreSQL", .requires(.postgres))
struct PostgresStoreTests {
    @Test("a new database is migrated to the newest version, and reopening changes nothing") func migrates() async throws { try await StoreChecks.migrates(.postgres) }
    @Test("a schema newer than the program is refused, not damaged") func newerSchema() async throws { try await StoreChecks.newerSchema(.postgres) }
    @Test("accounts: names are unique whatever their case, sessions expire, deleting a user ends their sessions and is audited") func accounts() async throws { try await StoreChecks.accounts(.postgres) }
    @Test("a transaction that throws leaves nothing behind") func rollback() async throws { try await StoreChecks.rollback(.postgres) }
    @Test("200 concurrent writes all land") func concurrentWrites() async throws { try await StoreChecks.concurrentWrites(.postgres) }
    @Test("two hand-overs of the administrator role at once leave one administrator") func handOvers() async throws { try await StoreChecks.handOvers(.postgres) }
    @Test("rooms: codes are well formed, expired rooms are not found") func rooms() async throws { try await StoreChecks.rooms(.postgres) }
}

/// The store's behaviour, checked the same way on each database.
enum StoreChecks {
    static func migrates(_ backend: Backend) async throws {
        let location = try await TestDatabase.fresh(backend)
        for _ in 0..<2 {
            let store = try await Store.open(location)
            let versions = try await store.read { db in
                try await db.raw("SELECT version FROM schema_migrations ORDER BY version").all().map { try $0.decode(column: "version", as: Int.self) }
            }
            #expect(versions == Schema.migrations.map(\.version))
            await store.close()
        }
    }

    static func newerSchema(_ backend: Backend) async throws {
        let location = try await TestDatabase.fresh(backend)
        let store = try await Store.open(location)
        try await store.read { db in
            try await db.raw("INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(bind: Schema.version + 1), 'future', 0)").run()
        }
        await store.close()
        await #expect(throws: StoreError.schemaTooNew(found: Schema.version + 1, known: Schema.version)) {
            _ = try await Store.open(location)
        }
    }

    static func accounts(_ backend: Backend) async throws {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        defer { Task { await store.close() } }
        let accounts = Accounts(store: store)
        let ada = try await accounts.create(username: "Ada", displayName: "Ada Lovelace", role: .professor, passwordHash: "h1", actor: nil)
        #expect(ada.username == "ada")
        await #expect(throws: StoreError.conflict("a user named 'ada'")) {
            _ = try await accounts.create(username: "ADA", displayName: "x", role: .student, passwordHash: "h2", actor: nil)
        }
        let found = try #require(try await accounts.credentials(username: "aDa"))
        #expect(found.user == ada && found.passwordHash == "h1")
        #expect(try await accounts.credentials(username: "nobody") == nil)

        let now = Clock.milliseconds()
        try await accounts.createSession(SessionRecord(tokenHash: "live", userID: ada.id, csrfToken: "c", createdAt: now, expiresAt: now + 60_000))
        try await accounts.createSession(SessionRecord(tokenHash: "old", userID: ada.id, csrfToken: "c", createdAt: now - 120_000, expiresAt: now - 60_000))
        #expect(try await accounts.session(tokenHash: "live")?.1 == ada)
        #expect(try await accounts.session(tokenHash: "old") == nil)
        #expect(try await accounts.deleteExpiredSessions() == 1)

        try await accounts.delete(id: ada.id, actor: "admin-1")
        #expect(try await accounts.session(tokenHash: "live") == nil)
        #expect(try await accounts.user(id: ada.id) == nil)
        await #expect(throws: StoreError.notFound("user \(ada.id)")) { try await accounts.delete(id: ada.id, actor: nil) }
        let trail = try await Audit.recent(store).map(\.action)
        #expect(trail == ["user.delete", "user.create"])
    }

    static func rollback(_ backend: Backend) async throws {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        defer { Task { await store.close() } }
        struct Planned: Error {}
        await #expect(throws: Planned.self) {
            try await store.transaction { db in
                try await Audit.append(db, actor: nil, action: "first", subject: nil, detail: nil)
                throw Planned()
            }
        }
        #expect(try await Audit.recent(store).isEmpty)
    }

    static func handOvers(_ backend: Backend) async throws {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        defer { Task { await store.close() } }
        let accounts = Accounts(store: store)
        let admin = try await accounts.create(username: "root", displayName: "Root", role: .admin, passwordHash: "h", actor: nil)
        let b = try await accounts.create(username: "bea", displayName: "Bea", role: .professor, passwordHash: "h", actor: nil)
        let c = try await accounts.create(username: "cy", displayName: "Cy", role: .professor, passwordHash: "h", actor: nil)
        try await TestDatabase.warm(store)
        async let toB = outcome { try await accounts.handOverAdmin(from: admin.id, to: b.id, newRole: .professor) }
        async let toC = outcome { try await accounts.handOverAdmin(from: admin.id, to: c.id, newRole: .professor) }
        let results = [await toB, await toC]
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        #expect(results.contains { if case .failure(StoreError.notAllowed) = $0 { true } else { false } })
        let roles = try await accounts.users().map(\.role)
        #expect(roles.filter { $0 == .admin }.count == 1)
        #expect(try await Audit.recent(store).filter { $0.action == "admin.handover" }.count == 1)
        // Sequentially the same: the former administrator can hand over nothing; an unknown
        // user is not found and changes nothing.
        await #expect(throws: StoreError.notAllowed("only an administrator can hand the role over")) {
            try await accounts.handOverAdmin(from: admin.id, to: b.id, newRole: .student)
        }
        let now = try #require(try await accounts.users().first { $0.role == .admin })
        await #expect(throws: StoreError.notFound("user nobody")) { try await accounts.handOverAdmin(from: now.id, to: "nobody", newRole: .student) }
        #expect(try await accounts.user(id: now.id)?.role == .admin)
    }

    static func concurrentWrites(_ backend: Backend) async throws {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        defer { Task { await store.close() } }
        let rooms = Rooms(store: store)
        let codes = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await rooms.open(purpose: "camera").code } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(codes.count == 200)
        #expect(try await rooms.count() == 200)
        for code in codes.prefix(20) { #expect(try await rooms.find(code)?.code == code) }
    }

    static func rooms(_ backend: Backend) async throws {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        defer { Task { await store.close() } }
        let rooms = Rooms(store: store)
        let room = try await rooms.open(purpose: "motion", lifetime: 60)
        #expect(Rooms.isWellFormed(room.code))
        #expect(try await rooms.find(room.code) == room)
        #expect(try await rooms.find(room.code, now: room.expiresAt) == nil)
        #expect(try await rooms.find("'; DROP TABLE rooms; --") == nil)
        #expect(try await rooms.find("AAAAA0") == nil)
    }
}

@Suite("Two servers on one PostgreSQL", .requires(.postgres))
struct BroadcastTests {
    @Test("a message published by one store reaches the other, small and over NOTIFY's 8,000 bytes")
    func crossServer() async throws {
        let location = try await TestDatabase.fresh(.postgres)
        let one = try await Store.open(location), two = try await Store.open(location)
        defer { Task { await one.close(); await two.close() } }
        let sender = Broadcaster(store: one), receiver = Broadcaster(store: two)
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let listening = Task {
            await receiver.run(logger: .init(label: "test"), listening: { readyContinuation.yield() }) { topic, payload in
                continuation.yield("\(topic):\(payload.count)")
            }
        }
        defer { listening.cancel() }
        var readiness = ready.makeAsyncIterator()
        _ = await readiness.next()
        var received = stream.makeAsyncIterator()
        try await sender.publish(topic: "room.ABCDEF", payload: "hello")
        #expect(await received.next() == "room.ABCDEF:5")
        try await sender.publish(topic: "room.ABCDEF", payload: String(repeating: "x", count: 20_000))
        #expect(await received.next() == "room.ABCDEF:20000")
        // Its own messages do not come back to the sender's listener.
        #expect(sender.origin != receiver.origin)
    }
}
