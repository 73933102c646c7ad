import SentioStore

/// The IV application's tables.
///
/// `iv_pokemon` is one Pokémon of a player's collection: the species, the latest CP, HP and
/// level, and the IVs all its scans agree on (kept as JSON, with their range in columns for
/// sorting and filtering). `iv_scans` is one screenshot (or hand entry) of it: what was read and
/// corrected (`entry`, JSON), the fields' boxes for the crops, and the screenshot itself, which
/// is deleted with the scan. A screenshot is known again by its SHA-256 (per player).
public enum IVSchema {
    public static let schema = AppSchema(app: "iv", migrations: [
        Migration(version: 1, name: "collection") { kind in
            let blob = kind == .sqlite ? "BLOB" : "BYTEA"
            let real = kind == .sqlite ? "REAL" : "DOUBLE PRECISION"
            return [
                """
                CREATE TABLE iv_pokemon (
                    id TEXT PRIMARY KEY,
                    owner TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    species TEXT NOT NULL,
                    form TEXT NOT NULL,
                    nickname TEXT,
                    cp INTEGER,
                    hp INTEGER NOT NULL,
                    level \(real),
                    iv_min \(real) NOT NULL,
                    iv_max \(real) NOT NULL,
                    lucky INTEGER NOT NULL,
                    shadow INTEGER NOT NULL,
                    purified INTEGER NOT NULL,
                    appraisal TEXT,
                    ivs TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL)
                """,
                "CREATE INDEX iv_pokemon_by_owner ON iv_pokemon(owner, updated_at)",
                """
                CREATE TABLE iv_scans (
                    id TEXT PRIMARY KEY,
                    pokemon_id TEXT NOT NULL REFERENCES iv_pokemon(id) ON DELETE CASCADE,
                    owner TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    scanned_at BIGINT NOT NULL,
                    first_scanned_at BIGINT NOT NULL,
                    image_hash TEXT,
                    image_type TEXT,
                    image \(blob),
                    entry TEXT NOT NULL,
                    fields TEXT)
                """,
                "CREATE INDEX iv_scans_by_pokemon ON iv_scans(pokemon_id, scanned_at)",
                // One row per screenshot and player: the same image scanned again is found here.
                "CREATE UNIQUE INDEX iv_scans_by_image ON iv_scans(owner, image_hash)",
            ]
        },
    ])
}
