import SentioStore

/// The game's tables.
///
/// `pz_players` is one player: an account's (`user_id`) or a guest's. A guest is known by a
/// device token whose SHA-256 only is kept in `pz_devices` (several devices can share a player
/// through the resume code). `pz_levels` holds each level the player has opened, when it was
/// solved and how many hints were bought. `pz_events` is the record the game's difficulty is
/// measured from: every attempt started, hint bought, level solved or left, with its time.
/// `pz_rounds` are meteor rounds (their start bounds the points they can give); `pz_pairings`
/// ties a room code to the player whose phone plays in it.
public enum PuzzlerSchema {
    public static let schema = AppSchema(app: "puzzler", migrations: [
        Migration(version: 1, name: "game") { kind in
            let real = kind == .sqlite ? "REAL" : "DOUBLE PRECISION"
            return [
                """
                CREATE TABLE pz_players (
                    id TEXT PRIMARY KEY,
                    user_id TEXT UNIQUE REFERENCES users(id) ON DELETE CASCADE,
                    resume_code TEXT NOT NULL UNIQUE,
                    points INTEGER NOT NULL,
                    meteors INTEGER NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE pz_devices (
                    token_hash TEXT PRIMARY KEY,
                    player TEXT NOT NULL REFERENCES pz_players(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE pz_levels (
                    player TEXT NOT NULL REFERENCES pz_players(id) ON DELETE CASCADE,
                    level TEXT NOT NULL,
                    opened_at BIGINT NOT NULL,
                    solved_at BIGINT,
                    seconds \(real),
                    hints INTEGER NOT NULL,
                    attempts INTEGER NOT NULL,
                    PRIMARY KEY (player, level))
                """,
                """
                CREATE TABLE pz_events (
                    id TEXT PRIMARY KEY,
                    player TEXT NOT NULL REFERENCES pz_players(id) ON DELETE CASCADE,
                    level TEXT,
                    kind TEXT NOT NULL,
                    at BIGINT NOT NULL,
                    seconds \(real))
                """,
                "CREATE INDEX pz_events_by_level ON pz_events(level, kind)",
                """
                CREATE TABLE pz_rounds (
                    id TEXT PRIMARY KEY,
                    player TEXT NOT NULL REFERENCES pz_players(id) ON DELETE CASCADE,
                    started_at BIGINT NOT NULL,
                    credited INTEGER NOT NULL)
                """,
                """
                CREATE TABLE pz_pairings (
                    code TEXT PRIMARY KEY,
                    player TEXT NOT NULL REFERENCES pz_players(id) ON DELETE CASCADE,
                    level TEXT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
            ]
        },
    ])
}
