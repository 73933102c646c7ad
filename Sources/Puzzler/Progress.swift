import Foundation
import SQLKit
import SentioStore

/// A player of the game.
public struct Player: Sendable, Codable, Equatable {
    public var id: String
    /// The account's user id, nil for a guest.
    public var userID: String?
    /// Eight letters that bring this player to another device.
    public var resumeCode: String
    public var points: Int
    public var meteors: Int
}

/// One level as a player sees it on the map.
public struct LevelProgress: Sendable, Codable, Equatable {
    public var id: LevelID
    public var state: LevelState
    /// Seconds the solving attempt took.
    public var seconds: Double?
    /// The hints bought, in tier order.
    public var hints: [String]
    public var hintsLeft: Int
}

/// A meteor round: points are credited no faster than meteors fall.
public struct MeteorRound: Sendable, Codable, Equatable {
    public var round: String
    public var seed: Int
    public var spawnSeconds: Double
}

/// The game's state in the store: players, their levels, hints, meteor points, pairings, and
/// the event record the difficulty is measured from. Every write is one transaction.
public struct PuzzlerProgress: Sendable {
    public let store: Store
    /// One meteor falls every this many seconds; a round credits at most one per interval
    /// (50 points ≈ 2 minutes of play, the original's 2–3 minutes per hint).
    public static let spawnSeconds = 2.5
    /// A round older than this credits nothing more.
    public static let roundMinutes = 15.0

    public init(store: Store) { self.store = store }

    public static func prepare(_ store: Store) async throws { try await store.migrate(PuzzlerSchema.schema) }

    // MARK: Players

    /// The account's player, made on first use.
    public func player(user userID: String, now: Int64 = Clock.milliseconds()) async throws -> Player {
        if let found = try await store.read({ db in try await Self.player(db, where: "user_id", userID) }) { return found }
        do {
            return try await store.transaction { db in try await Self.newPlayer(db, userID: userID, now: now) }
        } catch where Store.isUniqueViolation(error) {
            // Made at the same moment by another request.
            guard let found = try await store.read({ db in try await Self.player(db, where: "user_id", userID) }) else { throw error }
            return found
        }
    }

    /// The guest player of a device token; nil when the token is unknown.
    public func player(deviceToken token: String) async throws -> Player? {
        let hash = Self.hash(token)
        return try await store.read { db in
            guard let row = try await db.raw("SELECT player FROM pz_devices WHERE token_hash = \(bind: hash)").first() else { return nil }
            return try await Self.player(db, where: "id", try row.decode(column: "player", as: String.self))
        }
    }

    /// A new guest player and the device token that names it (the cookie's value; only its
    /// hash is stored).
    public func newGuest(now: Int64 = Clock.milliseconds()) async throws -> (Player, token: String) {
        let token = Self.randomToken()
        let player = try await store.transaction { db in
            let player = try await Self.newPlayer(db, userID: nil, now: now)
            try await db.raw("INSERT INTO pz_devices (token_hash, player, created_at) VALUES (\(bind: Self.hash(token)), \(bind: player.id), \(bind: now))").run()
            return player
        }
        return (player, token)
    }

    /// Another device joins the guest player of `code`: a new device token for it.
    public func resume(code: String, now: Int64 = Clock.milliseconds()) async throws -> (Player, token: String) {
        let code = code.uppercased().filter { $0.isLetter }
        let token = Self.randomToken()
        let player = try await store.transaction { db -> Player in
            guard code.count == 8, let player = try await Self.player(db, where: "resume_code", code), player.userID == nil else {
                throw PuzzlerError.unknownCode
            }
            try await db.raw("INSERT INTO pz_devices (token_hash, player, created_at) VALUES (\(bind: Self.hash(token)), \(bind: player.id), \(bind: now))").run()
            return player
        }
        return (player, token)
    }

    // MARK: Progress

    /// Every level's state for `player`, in the catalogue's order.
    public func levels(of player: String) async throws -> [LevelProgress] {
        let rows = try await store.read { db in
            try await db.raw("SELECT level, solved_at, seconds, hints FROM pz_levels WHERE player = \(bind: player)").all()
        }
        var byLevel: [LevelID: (solved: Bool, seconds: Double?, hints: Int)] = [:]
        for row in rows {
            guard let id = LevelID(rawValue: try row.decode(column: "level", as: String.self)) else { continue }
            byLevel[id] = (try row.decode(column: "solved_at", as: Int64?.self) != nil, try row.decode(column: "seconds", as: Double?.self),
                           try row.decode(column: "hints", as: Int.self))
        }
        return Catalogue.levels.map { level in
            let found = byLevel[level.id]
            let hints = found?.hints ?? 0
            return LevelProgress(id: level.id, state: found == nil ? .locked : found!.solved ? .solved : .open,
                                 seconds: found?.seconds, hints: Array(level.hints.prefix(hints)), hintsLeft: level.hints.count - hints)
        }
    }

    /// The player's state on one level.
    public func state(of player: String, level: LevelID) async throws -> LevelState {
        try await store.read { db in
            guard let row = try await db.raw("SELECT solved_at FROM pz_levels WHERE player = \(bind: player) AND level = \(bind: level.rawValue)").first() else {
                return .locked
            }
            return try row.decode(column: "solved_at", as: Int64?.self) == nil ? .open : .solved
        }
    }

    /// A player starts playing a level: refused when it is locked; counted and recorded.
    public func begin(player: String, level: LevelID, now: Int64 = Clock.milliseconds()) async throws {
        try await store.transaction { db in
            guard try await db.raw("SELECT 1 AS one FROM pz_levels WHERE player = \(bind: player) AND level = \(bind: level.rawValue)").first() != nil else {
                throw PuzzlerError.locked(level)
            }
            try await db.raw("UPDATE pz_levels SET attempts = attempts + 1 WHERE player = \(bind: player) AND level = \(bind: level.rawValue)").run()
            try await Self.record(db, player: player, level: level, kind: "started", now: now)
        }
    }

    /// A player left a level unsolved after `seconds` (for the difficulty record).
    public func left(player: String, level: LevelID, seconds: Double, now: Int64 = Clock.milliseconds()) async throws {
        try await store.transaction { db in try await Self.record(db, player: player, level: level, kind: "left", seconds: seconds, now: now) }
    }

    /// Stores a solve and opens the stars it opens (``StarMap``); returns those. Solving a
    /// solved level again changes nothing and opens nothing; a locked level cannot be solved.
    public func solve(player: String, level: LevelID, seconds: Double, now: Int64 = Clock.milliseconds()) async throws -> [LevelID] {
        try await store.transaction { db in
            // The player's row is locked first (a no-op UPDATE): two solves at once (the desktop
            // and the paired phone) take turns, and the second reads the first's levels.
            try await Self.lockPlayer(db, player)
            let rows = try await db.raw("SELECT level, solved_at FROM pz_levels WHERE player = \(bind: player)").all()
            var opened = Set<LevelID>(), solved = Set<LevelID>()
            for row in rows {
                guard let id = LevelID(rawValue: try row.decode(column: "level", as: String.self)) else { continue }
                opened.insert(id)
                if try row.decode(column: "solved_at", as: Int64?.self) != nil { solved.insert(id) }
            }
            guard opened.contains(level) else { throw PuzzlerError.locked(level) }
            guard !solved.contains(level) else { return [] }
            guard try await db.raw("""
                UPDATE pz_levels SET solved_at = \(bind: now), seconds = \(bind: seconds)
                WHERE player = \(bind: player) AND level = \(bind: level.rawValue) AND solved_at IS NULL RETURNING level
                """).first() != nil else { return [] }
            let newly = StarMap.opening(after: level, opened: opened, solved: solved)
            for id in newly { try await Self.open(db, player: player, level: id, now: now) }
            try await Self.record(db, player: player, level: level, kind: "solved", seconds: seconds, now: now)
            return newly
        }
    }

    // MARK: Hints and meteors

    /// Buys the next hint of `level` for ``Catalogue/hintCost`` points: its tier (1…3), text
    /// and the points left.
    public func buyHint(player: String, level: LevelID, now: Int64 = Clock.milliseconds()) async throws -> (tier: Int, text: String, points: Int) {
        try await store.transaction { db in
            guard let row = try await db.raw("SELECT hints FROM pz_levels WHERE player = \(bind: player) AND level = \(bind: level.rawValue)").first() else {
                throw PuzzlerError.locked(level)
            }
            let bought = try row.decode(column: "hints", as: Int.self)
            let hints = Catalogue.level(level).hints
            guard bought < hints.count else { throw PuzzlerError.noHintsLeft(level) }
            // The spending is one conditional UPDATE whose RETURNING says whether it happened:
            // on PostgreSQL (read committed) two purchases at once may both have read 50 points,
            // but the second UPDATE re-checks the row after the first commits and matches nothing.
            guard let spent = try await db.raw("UPDATE pz_players SET points = points - \(bind: Catalogue.hintCost) WHERE id = \(bind: player) AND points >= \(bind: Catalogue.hintCost) RETURNING points").first() else {
                let points = try await db.raw("SELECT points FROM pz_players WHERE id = \(bind: player)").first()?.decode(column: "points", as: Int.self) ?? 0
                throw PuzzlerError.notEnoughPoints(have: points, need: Catalogue.hintCost)
            }
            // Likewise a second purchase of the same tier matches no row and is refused.
            guard try await db.raw("UPDATE pz_levels SET hints = hints + 1 WHERE player = \(bind: player) AND level = \(bind: level.rawValue) AND hints = \(bind: bought) RETURNING hints").first() != nil else {
                throw PuzzlerError.hintTaken(level)
            }
            try await Self.record(db, player: player, level: level, kind: "hint", seconds: Double(bought + 1), now: now)
            return (bought + 1, hints[bought], try spent.decode(column: "points", as: Int.self))
        }
    }

    /// Starts a meteor round.
    public func startRound(player: String, now: Int64 = Clock.milliseconds()) async throws -> MeteorRound {
        let id = "r_" + RandomID.make(bytes: 8)
        try await store.transaction { db in
            // A player has one round at a time: starting one ends the others. The player's row
            // is locked first, so two starts at once on PostgreSQL (read committed) take turns
            // and the second deletes the first's round instead of missing it.
            try await Self.lockPlayer(db, player)
            try await db.raw("DELETE FROM pz_rounds WHERE player = \(bind: player)").run()
            try await db.raw("INSERT INTO pz_rounds (id, player, started_at, credited) VALUES (\(bind: id), \(bind: player), \(bind: now), 0)").run()
        }
        return MeteorRound(round: id, seed: Int.random(in: 1...1_000_000), spawnSeconds: Self.spawnSeconds)
    }

    /// The most meteors one claim may report.
    public static let maxCaught = 100_000

    /// Credits meteors caught in a round: no more in all than one per ``spawnSeconds`` since
    /// it began. Returns how many were credited now and the player's points.
    public func credit(player: String, round: String, caught: Int, now: Int64 = Clock.milliseconds()) async throws -> (credited: Int, points: Int) {
        // A round lasts minutes at one meteor a second or so: a count past 100,000 is no
        // player's (the API document says so; the API fuzzer sent 1,293,568,935).
        guard (0 ... Self.maxCaught).contains(caught) else { throw PuzzlerError.badInput("caught is 0 to \(Self.maxCaught), not \(caught)") }
        return try await store.transaction { db in
            // The player's row first: two claims at once take turns, so the second reads what
            // the first credited and both together get no more than the round allows; and the
            // same lock order as ``startRound`` (which deletes rounds after it), so no deadlock.
            try await Self.lockPlayer(db, player)
            guard let row = try await db.raw("SELECT started_at, credited FROM pz_rounds WHERE id = \(bind: round) AND player = \(bind: player)").first() else {
                throw PuzzlerError.unknownRound
            }
            let started = try row.decode(column: "started_at", as: Int64.self), already = try row.decode(column: "credited", as: Int.self)
            let elapsed = min(Double(now - started) / 1000, Self.roundMinutes * 60)
            let allowed = max(0, Int(elapsed / Self.spawnSeconds) - already)
            let credited = min(caught, allowed)
            if credited > 0 {
                try await db.raw("UPDATE pz_rounds SET credited = credited + \(bind: credited) WHERE id = \(bind: round)").run()
                try await db.raw("UPDATE pz_players SET points = points + \(bind: credited), meteors = meteors + \(bind: credited) WHERE id = \(bind: player)").run()
            }
            let points = try await db.raw("SELECT points FROM pz_players WHERE id = \(bind: player)").first()?.decode(column: "points", as: Int.self) ?? 0
            return (credited, points)
        }
    }

    // MARK: Pairing

    /// Ties a room's code to the player whose phone will play `level` in it.
    public func pair(code: String, player: String, level: LevelID, now: Int64 = Clock.milliseconds()) async throws {
        try await store.transaction { db in
            // One statement: two pairings of one code at once leave the later, never a duplicate key.
            try await db.raw("""
                INSERT INTO pz_pairings (code, player, level, created_at) VALUES (\(bind: code), \(bind: player), \(bind: level.rawValue), \(bind: now))
                ON CONFLICT (code) DO UPDATE SET player = excluded.player, level = excluded.level, created_at = excluded.created_at
                """).run()
        }
    }

    /// The player and level a room's code was paired for.
    public func pairing(code: String) async throws -> (player: String, level: LevelID)? {
        try await store.read { db in
            guard let row = try await db.raw("SELECT player, level FROM pz_pairings WHERE code = \(bind: code)").first(),
                  let level = LevelID(rawValue: try row.decode(column: "level", as: String.self)) else { return nil }
            return (try row.decode(column: "player", as: String.self), level)
        }
    }

    // MARK: Difficulty

    /// Per level: players who started it, solved it, the median seconds to solve and hints
    /// bought — the measure of the game's difficulty.
    public func difficulty() async throws -> [LevelDifficulty] {
        let rows = try await store.read { db in try await db.raw("SELECT level, kind, player, seconds FROM pz_events").all() }
        var started: [String: Set<String>] = [:], solved: [String: [Double]] = [:], hints: [String: Int] = [:]
        for row in rows {
            let level = try row.decode(column: "level", as: String?.self) ?? ""
            switch try row.decode(column: "kind", as: String.self) {
            case "started": started[level, default: []].insert(try row.decode(column: "player", as: String.self))
            case "solved": solved[level, default: []].append(try row.decode(column: "seconds", as: Double?.self) ?? 0)
            case "hint": hints[level, default: 0] += 1
            default: break
            }
        }
        return LevelID.allCases.map { id in
            let times = (solved[id.rawValue] ?? []).sorted()
            return LevelDifficulty(level: id, players: started[id.rawValue]?.count ?? 0, solves: times.count,
                                   medianSeconds: times.isEmpty ? nil : times[times.count / 2], hints: hints[id.rawValue] ?? 0)
        }
    }

    // MARK: Helpers

    static func newPlayer(_ db: any SQLDatabase, userID: String?, now: Int64) async throws -> Player {
        let player = Player(id: UUID().uuidString.lowercased(), userID: userID, resumeCode: resumeCode(), points: 0, meteors: 0)
        try await db.raw("""
            INSERT INTO pz_players (id, user_id, resume_code, points, meteors, created_at)
            VALUES (\(bind: player.id), \(bind: userID), \(bind: player.resumeCode), 0, 0, \(bind: now))
            """).run()
        for id in StarMap.startOpen { try await open(db, player: player.id, level: id, now: now) }
        return player
    }

    /// Locks the player's row until the transaction ends (a no-op UPDATE; SQLite's transactions
    /// are serialised anyway): what a player's write reads then stays true until it commits.
    static func lockPlayer(_ db: any SQLDatabase, _ player: String) async throws {
        try await db.raw("UPDATE pz_players SET points = points WHERE id = \(bind: player)").run()
    }

    static func open(_ db: any SQLDatabase, player: String, level: LevelID, now: Int64) async throws {
        try await db.raw("""
            INSERT INTO pz_levels (player, level, opened_at, solved_at, seconds, hints, attempts)
            VALUES (\(bind: player), \(bind: level.rawValue), \(bind: now), NULL, NULL, 0, 0)
            """).run()
    }

    static func record(_ db: any SQLDatabase, player: String, level: LevelID?, kind: String, seconds: Double? = nil, now: Int64) async throws {
        try await db.raw("""
            INSERT INTO pz_events (id, player, level, kind, at, seconds)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: player), \(bind: level?.rawValue), \(bind: kind), \(bind: now), \(bind: seconds))
            """).run()
    }

    static func player(_ db: any SQLDatabase, where column: String, _ value: String) async throws -> Player? {
        guard let row = try await db.raw("SELECT * FROM pz_players WHERE \(ident: column) = \(bind: value)").first() else { return nil }
        return Player(id: try row.decode(column: "id", as: String.self), userID: try row.decode(column: "user_id", as: String?.self),
                      resumeCode: try row.decode(column: "resume_code", as: String.self), points: try row.decode(column: "points", as: Int.self),
                      meteors: try row.decode(column: "meteors", as: Int.self))
    }

    /// Eight capital letters without I and O (easy to read aloud and to type): 24⁸ ≈ 1.1·10¹¹.
    static func resumeCode() -> String {
        let letters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ")
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in letters[Int(generator.next() % UInt64(letters.count))] })
    }

    /// A device token: 256 random bits as 64 hex digits (the cookie's form).
    static func randomToken() -> String { RandomID.make(bytes: 32) }

    static func hash(_ token: String) -> String {
        SHA256Hex.of(token)
    }
}

/// How a level fares across players.
public struct LevelDifficulty: Sendable, Codable, Equatable {
    public var level: LevelID
    public var players: Int
    public var solves: Int
    public var medianSeconds: Double?
    public var hints: Int
}
