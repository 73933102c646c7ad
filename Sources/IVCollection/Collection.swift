import Foundation
import IVScanner
import SentioStore
import SQLKit

/// A Pokémon in a player's collection: its latest reading and the IVs all its scans agree on.
public struct CollectedPokemon: Codable, Sendable, Equatable {
    public var id: String
    public var species: String
    public var form: String
    public var nickname: String?
    public var cp: Int?
    public var hp: Int
    /// Exact when every combination left has the same level.
    public var level: Double?
    /// The IV combinations every scan allows (at the latest scan's level).
    public var ivs: [ScanReport.IV]
    public var percent: ValueRange
    public var lucky: Bool, shadow: Bool, purified: Bool
    /// The appraisal last entered for it, remembered for its later scans.
    public var appraisal: AppraisalInput?
    public var createdAt: Int64, updatedAt: Int64
    public var scans: Int
}

/// One scan of a Pokémon: a screenshot (or a hand entry) and what was read from it.
public struct ScanRecord: Codable, Sendable, Equatable {
    public var id: String
    public var pokemonID: String
    public var scannedAt: Int64
    /// When this screenshot was first scanned (a screenshot scanned again updates `scannedAt`).
    public var firstScannedAt: Int64
    public var hasImage: Bool
    public var entry: IVEntry
    /// The fields as read, with their boxes in the screenshot (for the crops).
    public var fields: [String: ScanReport.Field]?
}

/// What saving a scan did.
public struct SaveOutcome: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A Pokémon not seen before.
        case new
        /// The same screenshot again: only its date changed.
        case sameImage
        /// Another scan of a Pokémon already in the collection, whose IVs it narrowed.
        case joined
    }
    public var kind: Kind
    public var pokemon: CollectedPokemon
    public var scan: ScanRecord
}

/// How to list a collection.
public struct CollectionQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable { case date, iv, cp, hp, name }
    public var search: String?
    public var sort: Sort = .date
    public var descending = true
    public var species: String?
    /// Only Pokémon whose best possible IV percentage is at least this.
    public var minPercent: Double?
    public var lucky: Bool?
    public var shadow: Bool?
    /// How many Pokémon a list shows (the page's first 500); an export takes them all.
    public var limit = 500
    /// The most a query returns: as many as an import may bring in, ten times over.
    public static let maxLimit = 100_000

    public init() {}
}

/// A species in the collection view.
public struct SpeciesCount: Codable, Sendable, Equatable {
    public var species: String, form: String, count: Int
    /// The best IV percentage among them (their upper bounds).
    public var bestPercent: Double
}

/// A player's IV collection in the store: scans saved, the same screenshot known again, the
/// same Pokémon's scans joined, listed, edited, deleted, exported and imported.
public struct IVCollection: Sendable {
    let store: Store
    public let calculator: IVCalculator

    /// The collection in `store`, whose IV tables must be migrated (``prepare(_:)``).
    public init(store: Store, calculator: IVCalculator) {
        self.store = store
        self.calculator = calculator
    }

    /// Creates or updates the IV application's tables; call once at start.
    public static func prepare(_ store: Store) async throws { try await store.migrate(IVSchema.schema) }

    /// The largest screenshot kept (the server refuses larger uploads before this).
    public static let maxImageBytes = 16 << 20
    /// The most bytes of screenshots one player keeps (a few thousand phone screenshots): a
    /// player cannot fill the server's disk (issue 34, finding 12).
    public static let maxImageBytesPerOwner = 512 << 20

    /// Saves a scan for `owner`. The same screenshot (by its SHA-256) scanned again updates its
    /// date only. Otherwise the entry is evaluated (an error when no combination fits) and joins
    /// an earlier Pokémon of the player when it can be the same individual (see ``joinTarget``),
    /// taking the appraisal remembered for it; else it starts a new one.
    public func save(owner: String, entry: IVEntry, image: Data? = nil, imageType: String? = nil,
                     fields: [String: ScanReport.Field]? = nil, at now: Int64 = Clock.milliseconds()) async throws -> SaveOutcome {
        if let image, image.count > Self.maxImageBytes { throw CollectionError.invalid("image", "at most \(Self.maxImageBytes) bytes") }
        let hash = image.map { SHA256Hex.of($0) }
        let calculator = self.calculator
        // Checked before the transaction: a bad entry is the player's error, not the store's.
        let evaluation = try entry.evaluate(with: calculator)
        guard !evaluation.combinations.isEmpty else { throw CollectionError.invalid("entry", evaluation.problem ?? "no combination fits") }
        let species = evaluation.species, combinations = evaluation.combinations
        func attempt() async throws -> SaveOutcome {
            try await store.transaction { db in
                try await Self.lockOwner(db, owner)
                if let image {
                    // Under the owner's lock: two saves at once cannot both pass the quota.
                    let used = try await db.raw("SELECT COALESCE(SUM(LENGTH(image)), 0) AS n FROM iv_scans WHERE owner = \(bind: owner)")
                        .first()?.decode(column: "n", as: Int.self) ?? 0
                    guard used + image.count <= Self.maxImageBytesPerOwner else {
                        throw CollectionError.invalid("image", "your screenshots take \(used >> 20) MiB of the \(Self.maxImageBytesPerOwner >> 20) MiB kept per player; "
                                                      + "delete some Pokémon, or save this one without its screenshot")
                    }
                }
                return try await Self.insert(db, owner: owner, entry: entry, species: species, combinations: combinations, hash: hash, image: image,
                                             imageType: imageType, fields: fields, now: now, firstScannedAt: now, join: true, calculator: calculator)
            }
        }
        do {
            return try await attempt()
        } catch where hash != nil && Store.isUniqueViolation(error) {
            // The same screenshot saved twice at once: the other request's row is there now,
            // and a second try finds it (the date is updated, as for any scan of it again).
            return try await attempt()
        }
    }


    /// Locks the owner's row (``Store/lockUser(_:_:)``), so one player's writes take turns: two
    /// saves at once of one new Pokémon join instead of making two, and a refresh reads every scan.
    static func lockOwner(_ db: any SQLDatabase, _ owner: String) async throws {
        _ = try await Store.lockUser(db, owner)
    }

    /// `save`'s writes, inside the caller's transaction. `join: false` always starts a new
    /// Pokémon (an import keeps the file's rows apart).
    static func insert(_ db: any SQLDatabase, owner: String, entry: IVEntry, species: SpeciesInfo, combinations: [ScanReport.IV],
                       hash: String?, image: Data?, imageType: String?, fields: [String: ScanReport.Field]?, now: Int64,
                       firstScannedAt: Int64, join: Bool, calculator: IVCalculator) async throws -> SaveOutcome {
        var entry = entry
        if let hash, let row = try await db.select().columns("id", "pokemon_id").from("iv_scans")
            .where("owner", .equal, SQLBind(owner)).where("image_hash", .equal, SQLBind(hash)).first() {
            let scanID = try row.decode(column: "id", as: String.self), pokemonID = try row.decode(column: "pokemon_id", as: String.self)
            try await db.update("iv_scans").set("scanned_at", to: SQLBind(now)).where("id", .equal, SQLBind(scanID)).run()
            try await db.update("iv_pokemon").set("updated_at", to: SQLBind(now)).where("id", .equal, SQLBind(pokemonID)).run()
            guard let pokemon = try await Self.pokemon(db, owner: owner, id: pokemonID),
                  let scan = try await Self.scans(db, pokemonID: pokemonID).first(where: { $0.id == scanID }) else {
                throw CollectionError.notFound("scan \(scanID)")
            }
            return SaveOutcome(kind: .sameImage, pokemon: pokemon, scan: scan)
        }
        var kind = SaveOutcome.Kind.new
        var pokemonID = RandomID.make()
        if join, let target = try await Self.joinTarget(db, owner: owner, species: species, entry: entry, combinations: combinations) {
            kind = .joined
            pokemonID = target.id
            if entry.appraisal == nil, let remembered = target.appraisal {
                var narrowed = entry
                narrowed.appraisal = remembered
                if let again = try? narrowed.evaluate(with: calculator), !again.combinations.isEmpty { entry = narrowed }
            }
        } else {
            try await db.insert(into: "iv_pokemon")
                .columns("id", "owner", "species", "form", "cp", "hp", "iv_min", "iv_max", "lucky", "shadow", "purified", "ivs", "created_at", "updated_at")
                .values(SQLBind(pokemonID), SQLBind(owner), SQLBind(species.name), SQLBind(species.form), SQLBind(entry.cp), SQLBind(entry.hp),
                        SQLBind(0.0), SQLBind(0.0), SQLBind(0), SQLBind(0), SQLBind(0), SQLBind("[]"), SQLBind(firstScannedAt), SQLBind(now))
                .run()
        }
        let scanID = RandomID.make()
        try await db.insert(into: "iv_scans")
            .columns("id", "pokemon_id", "owner", "scanned_at", "first_scanned_at", "image_hash", "image_type", "image", "entry", "fields")
            .values(SQLBind(scanID), SQLBind(pokemonID), SQLBind(owner), SQLBind(now), SQLBind(firstScannedAt), SQLBind(hash), SQLBind(imageType),
                    SQLBind(image), SQLBind(try JSON.text(entry)), SQLBind(try fields.map(JSON.text)))
            .run()
        try await Self.refresh(db, pokemonID: pokemonID, calculator: calculator, now: now)
        guard let pokemon = try await Self.pokemon(db, owner: owner, id: pokemonID),
              let scan = try await Self.scans(db, pokemonID: pokemonID).first(where: { $0.id == scanID }) else {
            throw CollectionError.notFound("pokemon \(pokemonID)")
        }
        return SaveOutcome(kind: kind, pokemon: pokemon, scan: scan)
    }

    /// The Pokémon a new scan is another scan of, if any: same species, form and lucky, shadow
    /// and purified flags; some IVs that both allow, at a level no lower than before (power-ups
    /// only raise it); and either the same CP and HP (scanned again unchanged) or the player's
    /// latest Pokémon of that species (scanned again right after powering it up). The last
    /// condition keeps two different Pokémon whose wide IV ranges overlap from being merged.
    static func joinTarget(_ db: any SQLDatabase, owner: String, species: SpeciesInfo, entry: IVEntry,
                           combinations: [ScanReport.IV]) async throws -> CollectedPokemon? {
        let rows = try await db.select().columns("*").from("iv_pokemon")
            .where("owner", .equal, SQLBind(owner)).where("species", .equal, SQLBind(species.name))
            .where("form", .equal, SQLBind(species.form))
            .orderBy("updated_at", .descending).limit(50).all()
        let candidates = try rows.map { try pokemon(from: $0, scans: 0) }
        for (index, candidate) in candidates.enumerated() {
            guard candidate.lucky == entry.lucky, candidate.shadow == entry.shadow, candidate.purified == entry.purified else { continue }
            let overlap = combinations.contains { new in
                candidate.ivs.contains { old in
                    old.attack == new.attack && old.defense == new.defense && old.stamina == new.stamina && new.level >= old.level
                }
            }
            guard overlap else { continue }
            if (candidate.cp == entry.cp && candidate.hp == entry.hp) || index == 0 { return candidate }
        }
        return nil
    }

    /// Recomputes a Pokémon's row from its scans: the latest scan's numbers, the IVs every scan
    /// allows (at the latest scan's levels), the remembered appraisal.
    static func refresh(_ db: any SQLDatabase, pokemonID: String, calculator: IVCalculator, now: Int64) async throws {
        let scans = try await Self.scans(db, pokemonID: pokemonID)
        guard let latest = scans.first else {
            try await db.delete(from: "iv_pokemon").where("id", .equal, SQLBind(pokemonID)).run()
            return
        }
        var agreed = try latest.entry.evaluate(with: calculator).combinations
        for older in scans.dropFirst() {
            let triples = Set((try? older.entry.evaluate(with: calculator).combinations)?.map { [$0.attack, $0.defense, $0.stamina] } ?? [])
            let narrowed = agreed.filter { triples.contains([$0.attack, $0.defense, $0.stamina]) }
            // A scan that disagrees with all the others (corrected since, or misread) does not
            // empty the Pokémon: the latest reading wins.
            if !narrowed.isEmpty { agreed = narrowed }
        }
        let percents = agreed.map(\.percent)
        let levels = Set(agreed.map(\.level))
        let appraisal = scans.first { $0.entry.appraisal != nil }?.entry.appraisal
        try await db.update("iv_pokemon")
            .set("cp", to: SQLBind(latest.entry.cp)).set("hp", to: SQLBind(latest.entry.hp))
            .set("level", to: SQLBind(levels.count == 1 ? levels.first : nil))
            .set("iv_min", to: SQLBind(percents.min() ?? 0)).set("iv_max", to: SQLBind(percents.max() ?? 0))
            .set("lucky", to: SQLBind(latest.entry.lucky ? 1 : 0)).set("shadow", to: SQLBind(latest.entry.shadow ? 1 : 0))
            .set("purified", to: SQLBind(latest.entry.purified ? 1 : 0))
            .set("appraisal", to: SQLBind(try appraisal.map(JSON.text)))
            .set("ivs", to: SQLBind(try JSON.text(agreed)))
            .set("updated_at", to: SQLBind(now))
            .where("id", .equal, SQLBind(pokemonID)).run()
    }

    // MARK: Reading

    /// The player's Pokémon, searched, filtered and sorted.
    public func list(owner: String, _ query: CollectionQuery = .init()) async throws -> [CollectedPokemon] {
        try await store.read { db in
            var select = db.select().columns("*").from("iv_pokemon").where("owner", .equal, SQLBind(owner))
            if let text = query.search?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                let pattern = "%" + text.lowercased().replacingOccurrences(of: "%", with: "").replacingOccurrences(of: "_", with: "") + "%"
                select = select.where { group in
                    group.where(SQLFunction("LOWER", args: SQLColumn("species")), .like, SQLBind(pattern))
                        .orWhere(SQLFunction("LOWER", args: SQLFunction("COALESCE", args: SQLColumn("nickname"), SQLLiteral.string(""))), .like, SQLBind(pattern))
                }
            }
            if let species = query.species { select = select.where("species", .equal, SQLBind(species)) }
            if let minPercent = query.minPercent { select = select.where("iv_max", .greaterThanOrEqual, SQLBind(minPercent)) }
            if let lucky = query.lucky { select = select.where("lucky", .equal, SQLBind(lucky ? 1 : 0)) }
            if let shadow = query.shadow { select = select.where("shadow", .equal, SQLBind(shadow ? 1 : 0)) }
            let direction: SQLDirection = query.descending ? .descending : .ascending
            switch query.sort {
            case .date: select = select.orderBy("updated_at", direction)
            case .iv: select = select.orderBy("iv_max", direction).orderBy("iv_min", direction)
            case .cp: select = select.orderBy("cp", direction)
            case .hp: select = select.orderBy("hp", direction)
            case .name: select = select.orderBy("species", direction).orderBy("cp", .descending)
            }
            let rows = try await select.orderBy("id").limit(max(1, min(query.limit, CollectionQuery.maxLimit))).all()
            let counts = try await Self.scanCounts(db, owner: owner)
            return try rows.map { row in try Self.pokemon(from: row, scans: counts[try row.decode(column: "id", as: String.self)] ?? 0) }
        }
    }

    /// One Pokémon and its scans (newest first); nil when it is not the player's.
    public func pokemon(owner: String, id: String) async throws -> (pokemon: CollectedPokemon, scans: [ScanRecord])? {
        try await store.read { db in
            guard let pokemon = try await Self.pokemon(db, owner: owner, id: id) else { return nil }
            return (pokemon, try await Self.scans(db, pokemonID: id))
        }
    }

    /// A scan's screenshot and its media type; nil when there is none or it is not the player's.
    public func image(owner: String, scanID: String) async throws -> (data: Data, type: String)? {
        try await store.read { db in
            guard let row = try await db.select().columns("image", "image_type").from("iv_scans")
                .where("owner", .equal, SQLBind(owner)).where("id", .equal, SQLBind(scanID)).first(),
                  let data = try row.decode(column: "image", as: Data?.self) else { return nil }
            return (data, try row.decode(column: "image_type", as: String?.self) ?? "application/octet-stream")
        }
    }

    /// The collection by species: how many of each and the best IV percentage among them.
    public func species(owner: String) async throws -> [SpeciesCount] {
        try await store.read { db in
            try await db.raw("""
                SELECT species, form, COUNT(*) AS n, MAX(iv_max) AS best FROM iv_pokemon WHERE owner = \(bind: owner)
                GROUP BY species, form ORDER BY species, form
                """).all().map { row in
                SpeciesCount(species: try row.decode(column: "species", as: String.self), form: try row.decode(column: "form", as: String.self),
                             count: try row.decode(column: "n", as: Int.self), bestPercent: try row.decode(column: "best", as: Double.self))
            }
        }
    }

    // MARK: Changing

    /// Replaces what a Pokémon's latest scan says (a correction) and its nickname; the IVs are
    /// recomputed from all its scans. An entry no combination fits is refused with the reason.
    public func update(owner: String, id: String, entry: IVEntry, nickname: String?, at now: Int64 = Clock.milliseconds()) async throws -> CollectedPokemon {
        let evaluation = try entry.evaluate(with: calculator)
        guard !evaluation.combinations.isEmpty else { throw CollectionError.invalid("entry", evaluation.problem ?? "no combination fits") }
        if let nickname, nickname.count > 60 { throw CollectionError.invalid("nickname", "at most 60 characters") }
        let calculator = self.calculator
        return try await store.transaction { db in
            try await Self.lockOwner(db, owner)
            guard try await Self.pokemon(db, owner: owner, id: id) != nil, let latest = try await Self.scans(db, pokemonID: id).first else {
                throw CollectionError.notFound("pokemon \(id)")
            }
            try await db.update("iv_scans").set("entry", to: SQLBind(try JSON.text(entry))).where("id", .equal, SQLBind(latest.id)).run()
            try await db.update("iv_pokemon").set("species", to: SQLBind(evaluation.species.name)).set("form", to: SQLBind(evaluation.species.form))
                .set("nickname", to: SQLBind(nickname?.isEmpty == true ? nil : nickname)).where("id", .equal, SQLBind(id)).run()
            try await Self.refresh(db, pokemonID: id, calculator: calculator, now: now)
            guard let pokemon = try await Self.pokemon(db, owner: owner, id: id) else { throw CollectionError.notFound("pokemon \(id)") }
            return pokemon
        }
    }

    /// Deletes a Pokémon with its scans and screenshots.
    public func delete(owner: String, id: String) async throws {
        try await store.transaction { db in
            try await Self.lockOwner(db, owner)
            guard try await Self.pokemon(db, owner: owner, id: id) != nil else { throw CollectionError.notFound("pokemon \(id)") }
            try await db.delete(from: "iv_scans").where("pokemon_id", .equal, SQLBind(id)).run()
            try await db.delete(from: "iv_pokemon").where("id", .equal, SQLBind(id)).run()
        }
    }

    // MARK: Poke Genie's CSV

    /// The player's collection as Poke Genie's CSV (sorted as `query` says).
    public func exportCSV(owner: String, _ query: CollectionQuery = .init()) async throws -> String {
        var everything = query
        everything.limit = CollectionQuery.maxLimit
        let pokemon = try await list(owner: owner, everything)
        let first = try await store.read { db in
            var first: [String: Int64] = [:]
            for row in try await db.raw("SELECT pokemon_id, MIN(first_scanned_at) AS f FROM iv_scans WHERE owner = \(bind: owner) GROUP BY pokemon_id").all() {
                first[try row.decode(column: "pokemon_id", as: String.self)] = try row.decode(column: "f", as: Int64.self)
            }
            return first
        }
        return PokeGenieCSV.export(pokemon.map { ($0, first[$0.id] ?? $0.createdAt) }, data: calculator.data, calculator: calculator)
    }

    /// Imports a Poke Genie CSV: every row becomes a Pokémon of its own, with the file's scan
    /// dates; all rows or none (the first row that does not parse or that no IV combination
    /// fits is the error, naming its line). Returns how many were imported.
    public func importCSV(owner: String, _ text: String, at now: Int64 = Clock.milliseconds()) async throws -> Int {
        let rows = try PokeGenieCSV.parse(text)
        let calculator = self.calculator
        // Only the entries are kept, not their combinations: a file of many wide rows must not
        // hold them all in memory at once.
        var prepared: [(PokeGenieCSV.Row, IVEntry, SpeciesInfo)] = []
        for row in rows {
            let (entry, evaluation) = try Self.importedEntry(row, calculator: calculator)
            prepared.append((row, entry, evaluation.species))
        }
        let ready = prepared
        try await store.transaction { db in
            try await Self.lockOwner(db, owner)
            for (row, entry, species) in ready {
                let scanned = row.scannedAt ?? now
                _ = try await Self.insert(db, owner: owner, entry: entry, species: species, combinations: [], hash: nil, image: nil, imageType: nil,
                                          fields: nil, now: scanned, firstScannedAt: row.firstScannedAt ?? scanned, join: false, calculator: calculator)
            }
        }
        return ready.count
    }

    /// A CSV row's entry and its evaluation. The CSV does not say which base stats a row was
    /// computed with, and an old screenshot's are not today's: today's stats are tried first,
    /// then each dated table, newest first, and the stats under which the row's own IV Avg and
    /// levels come out again are taken (else the first under which some combination fits).
    static func importedEntry(_ row: PokeGenieCSV.Row, calculator: IVCalculator) throws -> (IVEntry, IVEvaluation) {
        let eras: [String?] = [nil] + calculator.data.history.reversed().map { ($0.from ?? GameDate.launch).description }
        var fallback: (IVEntry, IVEvaluation)?, firstProblem: String?
        for era in eras {
            var entry = row.entry
            entry.statsAsOf = era
            let evaluation: IVEvaluation
            do { evaluation = try entry.evaluate(with: calculator) } catch {
                firstProblem = firstProblem ?? error.description
                continue
            }
            guard !evaluation.combinations.isEmpty else { firstProblem = firstProblem ?? evaluation.problem; continue }
            if let summary = PokeGenieCSV.summary(evaluation.combinations),
               row.ivAverage.isEmpty || (summary.average == row.ivAverage && summary.levels == row.levelRange) {
                return (entry, evaluation)
            }
            fallback = fallback ?? (entry, evaluation)
        }
        if let fallback { return fallback }
        throw CollectionError.badCSV(line: row.line, problem: firstProblem ?? "no IV combination fits")
    }

    // MARK: Rows

    static func pokemon(_ db: any SQLDatabase, owner: String, id: String) async throws -> CollectedPokemon? {
        guard let row = try await db.select().columns("*").from("iv_pokemon")
            .where("owner", .equal, SQLBind(owner)).where("id", .equal, SQLBind(id)).first() else { return nil }
        let count = try await db.raw("SELECT COUNT(*) AS n FROM iv_scans WHERE pokemon_id = \(bind: id)").first()?.decode(column: "n", as: Int.self) ?? 0
        return try pokemon(from: row, scans: count)
    }

    static func scanCounts(_ db: any SQLDatabase, owner: String) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await db.raw("SELECT pokemon_id, COUNT(*) AS n FROM iv_scans WHERE owner = \(bind: owner) GROUP BY pokemon_id").all() {
            counts[try row.decode(column: "pokemon_id", as: String.self)] = try row.decode(column: "n", as: Int.self)
        }
        return counts
    }

    static func pokemon(from row: any SQLRow, scans: Int) throws -> CollectedPokemon {
        let ivs = try JSON.decode([ScanReport.IV].self, try row.decode(column: "ivs", as: String.self))
        return CollectedPokemon(
            id: try row.decode(column: "id", as: String.self), species: try row.decode(column: "species", as: String.self),
            form: try row.decode(column: "form", as: String.self), nickname: try row.decode(column: "nickname", as: String?.self),
            cp: try row.decode(column: "cp", as: Int?.self), hp: try row.decode(column: "hp", as: Int.self),
            level: try row.decode(column: "level", as: Double?.self), ivs: ivs,
            percent: ValueRange(min: ((try row.decode(column: "iv_min", as: Double.self)) * 10).rounded() / 10,
                                max: ((try row.decode(column: "iv_max", as: Double.self)) * 10).rounded() / 10),
            lucky: try row.decode(column: "lucky", as: Int.self) != 0, shadow: try row.decode(column: "shadow", as: Int.self) != 0,
            purified: try row.decode(column: "purified", as: Int.self) != 0,
            appraisal: try row.decode(column: "appraisal", as: String?.self).map { try JSON.decode(AppraisalInput.self, $0) },
            createdAt: try row.decode(column: "created_at", as: Int64.self), updatedAt: try row.decode(column: "updated_at", as: Int64.self),
            scans: scans)
    }

    static func scans(_ db: any SQLDatabase, pokemonID: String) async throws -> [ScanRecord] {
        try await db.raw("""
            SELECT id, pokemon_id, scanned_at, first_scanned_at, image_type, entry, fields FROM iv_scans
            WHERE pokemon_id = \(bind: pokemonID) ORDER BY first_scanned_at DESC, scanned_at DESC, id
            """).all().map { row in
            ScanRecord(id: try row.decode(column: "id", as: String.self), pokemonID: try row.decode(column: "pokemon_id", as: String.self),
                       scannedAt: try row.decode(column: "scanned_at", as: Int64.self),
                       firstScannedAt: try row.decode(column: "first_scanned_at", as: Int64.self),
                       hasImage: try row.decode(column: "image_type", as: String?.self) != nil,
                       entry: try JSON.decode(IVEntry.self, try row.decode(column: "entry", as: String.self)),
                       fields: try row.decode(column: "fields", as: String?.self).map { try JSON.decode([String: ScanReport.Field].self, $0) })
        }
    }
}

/// JSON in text columns.
enum JSON {
    static func text<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
