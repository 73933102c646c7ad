import Foundation
import IVCollection
import IVScanner
import SentioStore
import SentioStoreTestSupport
import SentioTestSupport
import SQLKit
import Testing

@Suite("IV collection on SQLite")
struct SqliteCollectionTests {
    @Test("the same screenshot updates its date only; a rescan after a power-up joins and narrows; others stay apart") func joins() async throws { try await CollectionChecks.joins(.sqlite) }
    @Test("a remembered appraisal narrows a later scan") func appraisal() async throws { try await CollectionChecks.appraisal(.sqlite) }
    @Test("search, sort and filters") func listing() async throws { try await CollectionChecks.listing(.sqlite) }
    @Test("corrections recompute; impossible ones are refused with the reason; another player's Pokémon is not found") func edits() async throws { try await CollectionChecks.edits(.sqlite) }
    @Test("delete removes the scans and screenshots") func delete() async throws { try await CollectionChecks.delete(.sqlite) }
    @Test("export, delete, import: the same CSV") func roundTrip() async throws { try await CollectionChecks.roundTrip(.sqlite) }
    @Test("scans of one new Pokémon saved at once make one Pokémon with all its scans") func together() async throws { try await CollectionChecks.together(.sqlite) }
}

@Suite("IV collection on PostgreSQL", .requires(.postgres))
struct PostgresCollectionTests {
    @Test("the same screenshot updates its date only; a rescan after a power-up joins and narrows; others stay apart") func joins() async throws { try await CollectionChecks.joins(.postgres) }
    @Test("a remembered appraisal narrows a later scan") func appraisal() async throws { try await CollectionChecks.appraisal(.postgres) }
    @Test("search, sort and filters") func listing() async throws { try await CollectionChecks.listing(.postgres) }
    @Test("corrections recompute; impossible ones are refused with the reason; another player's Pokémon is not found") func edits() async throws { try await CollectionChecks.edits(.postgres) }
    @Test("delete removes the scans and screenshots") func delete() async throws { try await CollectionChecks.delete(.postgres) }
    @Test("export, delete, import: the same CSV") func roundTrip() async throws { try await CollectionChecks.roundTrip(.postgres) }
    @Test("scans of one new Pokémon saved at once make one Pokémon with all its scans") func together() async throws { try await CollectionChecks.together(.postgres) }
}

/// A Pokémon as the game would show it: CP, HP and the stardust of its level, computed with the
/// game's formulas (`Stats`) from chosen IVs, so each test knows the truth behind the numbers.
struct Shown {
    let entry: IVEntry
    static func of(_ name: String, _ a: Int, _ d: Int, _ s: Int, level: Double, data: GameData) throws -> Shown {
        let species = try data.species(name)
        let cost = try #require(data.levels.first { $0.level == level })
        return Shown(entry: IVEntry(species: name, cp: Stats.cp(species, attack: a, defense: d, stamina: s, cpm: cost.cpMultiplier),
                                    hp: Stats.hp(species, stamina: s, cpm: cost.cpMultiplier), stardust: cost.stardust))
    }
}

@Suite("IV entries")
struct EntryTests {
    @Test("an entry that pins almost nothing is refused, not answered with hundreds of thousands of combinations")
    func tooWide() throws {
        let calculator = try IVCalculator()
        // A Shedinja's HP is 10 at every level and stamina IV: without the CP, stardust or
        // level, 384,000 combinations would fit.
        #expect(throws: CollectionError.self) { try IVEntry(species: "Shedinja", cp: nil, hp: 10).evaluate(with: calculator) }
        do { _ = try IVEntry(species: "Shedinja", cp: nil, hp: 10).evaluate(with: calculator) } catch {
            #expect("\(error)".contains("give the CP, the stardust or the level"))
        }
    }
}

enum CollectionChecks {
    static func open(_ backend: Backend) async throws -> (IVCollection, Store, String, String) {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        try await IVCollection.prepare(store)
        let accounts = Accounts(store: store)
        let ash = try await accounts.create(username: "ash", displayName: "Ash", role: .player, passwordHash: "x", actor: nil)
        let misty = try await accounts.create(username: "misty", displayName: "Misty", role: .player, passwordHash: "x", actor: nil)
        return (IVCollection(store: store, calculator: try IVCalculator()), store, ash.id, misty.id)
    }

    static func triples(_ ivs: [ScanReport.IV]) -> Set<[Int]> { Set(ivs.map { [$0.attack, $0.defense, $0.stamina] }) }

    static func joins(_ backend: Backend) async throws {
        let (collection, store, ash, _) = try await open(backend)
        defer { Task { await store.close() } }
        let data = collection.calculator.data
        let before = try Shown.of("Machop", 10, 12, 5, level: 20, data: data).entry
        let after = try Shown.of("Machop", 10, 12, 5, level: 22, data: data).entry
        let screenshot = Data("a screenshot's bytes".utf8)

        let first = try await collection.save(owner: ash, entry: before, image: screenshot, imageType: "image/png", at: 1_000)
        #expect(first.kind == .new)
        #expect(triples(first.pokemon.ivs).contains([10, 12, 5]))
        let again = try await collection.save(owner: ash, entry: before, image: screenshot, imageType: "image/png", at: 2_000)
        #expect(again.kind == .sameImage)
        #expect(again.pokemon.id == first.pokemon.id && again.pokemon.scans == 1)
        #expect(again.scan.scannedAt == 2_000 && again.scan.firstScannedAt == 1_000)

        let powered = try await collection.save(owner: ash, entry: after, at: 3_000)
        #expect(powered.kind == .joined)
        #expect(powered.pokemon.id == first.pokemon.id && powered.pokemon.scans == 2)
        // What both scans allow, and no more.
        let alone = try after.evaluate(with: collection.calculator).combinations
        #expect(triples(powered.pokemon.ivs) == triples(first.pokemon.ivs).intersection(triples(alone)))
        #expect(triples(powered.pokemon.ivs).contains([10, 12, 5]))

        // Another Machop whose readings share no IVs with the first: a Pokémon of its own.
        let other = try await collection.save(owner: ash, entry: try Shown.of("Machop", 0, 1, 0, level: 15, data: data).entry, at: 4_000)
        #expect(other.kind == .new)
        // The first Machop scanned again unchanged: joined although it is no longer the latest.
        let rescan = try await collection.save(owner: ash, entry: after, at: 5_000)
        #expect(rescan.kind == .joined && rescan.pokemon.id == first.pokemon.id && rescan.pokemon.scans == 3)
        #expect(try await collection.list(owner: ash).count == 2)
    }

    /// Two saves fired at once (`async let`): on PostgreSQL (read committed) they really
    /// interleave, and must end as if one came after the other.
    static func together(_ backend: Backend) async throws {
        let (collection, store, ash, _) = try await open(backend)
        defer { Task { await store.close() } }
        let data = collection.calculator.data
        // Three screenshots of one Machop, unchanged between them (the same CP and HP).
        let shown = try Shown.of("Machop", 10, 12, 5, level: 20, data: data).entry
        try await TestDatabase.warm(store)
        func save(_ screenshot: String) async -> Result<SaveOutcome, any Error> {
            await outcome { try await collection.save(owner: ash, entry: shown, image: Data(screenshot.utf8), imageType: "image/png", at: 1_000) }
        }
        async let a = save("one"), b = save("two"), c = save("three")
        let kinds = try [await a, await b, await c].map { try $0.get().kind }
        #expect(kinds.sorted { $0.rawValue < $1.rawValue } == [.joined, .joined, .new])
        let listed = try await collection.list(owner: ash)
        #expect(listed.count == 1 && listed.first?.scans == 3)
        #expect(listed.first.map { triples($0.ivs) } == triples(try shown.evaluate(with: collection.calculator).combinations))
    }

    static func appraisal(_ backend: Backend) async throws {
        let (collection, store, ash, _) = try await open(backend)
        defer { Task { await store.close() } }
        var entry = try Shown.of("Eevee", 15, 14, 13, level: 25, data: collection.calculator.data).entry
        let wide = try entry.evaluate(with: collection.calculator).combinations.count
        entry.appraisal = AppraisalInput(kind: .stars, stars: 3, bars: [15, 14, 13])
        _ = try await collection.save(owner: ash, entry: entry, at: 1_000)
        entry.appraisal = nil
        let later = try await collection.save(owner: ash, entry: entry, at: 2_000)
        #expect(later.kind == .joined)
        #expect(later.scan.entry.appraisal?.bars == [15, 14, 13], "the appraisal remembered for the Pokémon")
        #expect(triples(later.pokemon.ivs) == [[15, 14, 13]])
        #expect(wide > 1, "without the appraisal the numbers allow \(wide) combinations")
    }

    static func listing(_ backend: Backend) async throws {
        let (collection, store, ash, misty) = try await open(backend)
        defer { Task { await store.close() } }
        let data = collection.calculator.data
        var hundo = try Shown.of("Dratini", 15, 15, 15, level: 20, data: data).entry
        hundo.appraisal = AppraisalInput(kind: .stars, stars: 4)
        _ = try await collection.save(owner: ash, entry: hundo, at: 1_000)
        var pidgey = try Shown.of("Pidgey", 1, 2, 3, level: 10, data: data).entry
        pidgey.appraisal = AppraisalInput(kind: .stars, stars: 0, bars: [1, 2, 3])
        _ = try await collection.save(owner: ash, entry: pidgey, at: 2_000)
        var lucky = try Shown.of("Snorlax", 12, 13, 14, level: 30, data: data).entry
        lucky.lucky = true
        lucky.obtained = .luckyTrade
        lucky.stardust = collection.calculator.stardust(from: data.levels.first { $0.level == 30 }!, lucky: true, shadow: false, purified: false)
        lucky.appraisal = AppraisalInput(kind: .stars, stars: 3, bars: [12, 13, 14])
        _ = try await collection.save(owner: ash, entry: lucky, at: 3_000)
        _ = try await collection.save(owner: misty, entry: hundo, at: 4_000)

        #expect(try await collection.list(owner: ash).map(\.species) == ["Snorlax", "Pidgey", "Dratini"], "newest first")
        var q = CollectionQuery()
        q.sort = .iv
        #expect(try await collection.list(owner: ash, q).map(\.species) == ["Dratini", "Snorlax", "Pidgey"])
        q.sort = .name; q.descending = false
        #expect(try await collection.list(owner: ash, q).map(\.species) == ["Dratini", "Pidgey", "Snorlax"])
        q.sort = .cp; q.descending = true
        let cps = try await collection.list(owner: ash, q).compactMap(\.cp)
        #expect(cps == cps.sorted(by: >))
        q = CollectionQuery(); q.search = "pidG"
        #expect(try await collection.list(owner: ash, q).map(\.species) == ["Pidgey"])
        q = CollectionQuery(); q.lucky = true
        #expect(try await collection.list(owner: ash, q).map(\.species) == ["Snorlax"])
        q = CollectionQuery(); q.minPercent = 85  // Dratini 100%, Snorlax 39/45 = 86.7%, Pidgey 13.3%
        #expect(try await collection.list(owner: ash, q).map(\.species) == ["Snorlax", "Dratini"])
        #expect(try await collection.species(owner: ash).map(\.species) == ["Dratini", "Pidgey", "Snorlax"])
        #expect(try await collection.list(owner: misty).count == 1, "each player sees their own")
    }

    static func edits(_ backend: Backend) async throws {
        let (collection, store, ash, misty) = try await open(backend)
        defer { Task { await store.close() } }
        let data = collection.calculator.data
        let saved = try await collection.save(owner: ash, entry: try Shown.of("Bulbasaur", 8, 9, 10, level: 18, data: data).entry, at: 1_000)
        // The scanner misread the CP; the player types the right one (a Bulbasaur of 7/7/7).
        let right = try Shown.of("Bulbasaur", 7, 7, 7, level: 18, data: data).entry
        let corrected = try await collection.update(owner: ash, id: saved.pokemon.id, entry: right, nickname: "Bulby", at: 2_000)
        #expect(corrected.cp == right.cp && corrected.nickname == "Bulby")
        #expect(triples(corrected.ivs) == triples(try right.evaluate(with: collection.calculator).combinations))
        var impossible = right
        impossible.cp = 5000
        await #expect(throws: CollectionError.self) { try await collection.update(owner: ash, id: saved.pokemon.id, entry: impossible, nickname: nil) }
        do { _ = try await collection.update(owner: ash, id: saved.pokemon.id, entry: impossible, nickname: nil) } catch {
            #expect("\(error)".contains("No IV combination gives CP 5000"), "says which numbers disagree: \(error)")
        }
        #expect(try await collection.pokemon(owner: misty, id: saved.pokemon.id) == nil)
        await #expect(throws: CollectionError.notFound("pokemon \(saved.pokemon.id)")) {
            try await collection.update(owner: misty, id: saved.pokemon.id, entry: right, nickname: nil)
        }
        await #expect(throws: CollectionError.self) { try await collection.delete(owner: misty, id: saved.pokemon.id) }
    }

    static func delete(_ backend: Backend) async throws {
        let (collection, store, ash, _) = try await open(backend)
        defer { Task { await store.close() } }
        let saved = try await collection.save(owner: ash, entry: try Shown.of("Onix", 3, 4, 5, level: 12, data: collection.calculator.data).entry,
                                              image: Data(repeating: 7, count: 1000), imageType: "image/jpeg")
        #expect(try await collection.image(owner: ash, scanID: saved.scan.id)?.data.count == 1000)
        try await collection.delete(owner: ash, id: saved.pokemon.id)
        let left = try await store.read { db in
            try await db.raw("SELECT (SELECT COUNT(*) FROM iv_scans) + (SELECT COUNT(*) FROM iv_pokemon) AS n").first()?.decode(column: "n", as: Int.self)
        }
        #expect(left == 0, "no scan, screenshot or Pokémon row is left")
    }

    static func roundTrip(_ backend: Backend) async throws {
        let (collection, store, ash, misty) = try await open(backend)
        defer { Task { await store.close() } }
        let data = collection.calculator.data
        var known = try Shown.of("Jangmo-o", 0, 14, 10, level: 3, data: data).entry
        known.appraisal = AppraisalInput(kind: .stars, stars: 1, bars: [0, 14, 10])
        _ = try await collection.save(owner: ash, entry: known, at: 1_700_000_000_000)
        _ = try await collection.save(owner: ash, entry: try Shown.of("Rattata", 5, 6, 7, level: 8, data: data).entry, at: 1_700_000_060_000)
        var shadow = try Shown.of("Machop", 11, 12, 13, level: 25, data: data).entry
        shadow.shadow = true
        shadow.stardust = collection.calculator.stardust(from: data.levels.first { $0.level == 25 }!, lucky: false, shadow: true, purified: false)
        _ = try await collection.save(owner: ash, entry: shadow, at: 1_700_000_120_000)

        // A 2016 screenshot's Dragonite, computed with the base stats of then (the CSV names no
        // stats date: the import must find them again).
        let dragonite2016 = try data.species("Dragonite", asOf: try GameDate("2016-12-20"))
        let level20 = try #require(data.levels.first { $0.level == 20 })
        var old = IVEntry(species: "Dragonite", cp: Stats.cp(dragonite2016, attack: 9, defense: 4, stamina: 12, cpm: level20.cpMultiplier),
                          hp: Stats.hp(dragonite2016, stamina: 12, cpm: level20.cpMultiplier), stardust: level20.stardust)
        old.statsAsOf = "2016-12-20"
        #expect(try old.evaluate(with: collection.calculator).combinations.contains { [$0.attack, $0.defense, $0.stamina] == [9, 4, 12] })
        _ = try await collection.save(owner: ash, entry: old, at: 1_700_000_180_000)

        let csv = try await collection.exportCSV(owner: ash)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == PokeGenieCSV.columns.joined(separator: ","))
        #expect(lines.count == 6, "header, four rows, and the final newline")
        // The Jangmo-o row as Poke Genie printed the same Pokémon (IVs, rank columns): see
        // LeagueRankTests' source.
        let jangmo = try #require(lines.first { $0.contains(",Jangmo-o,") }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let column = { (name: String) in jangmo[PokeGenieCSV.columns.firstIndex(of: name)!] }
        #expect([column("Atk IV"), column("Def IV"), column("Sta IV"), column("IV Avg"), column("Level Min")] == ["0", "14", "10", "53.3", "3.0"])
        #expect([column("Rank % (G)"), column("Rank # (G)"), column("Stat Prod (G)"), column("Name (G)")] == ["99.83%", "8", "99.60%", "Hakamo-o"])
        #expect([column("Rank % (U)"), column("Rank # (U)"), column("Stat Prod (U)"), column("Name (U)")] == ["99.12%", "37", "99.01%", "Kommo-o"])
        #expect([column("Rank % (L)"), column("Rank # (L)"), column("Stat Prod (L)"), column("Name (L)")] == ["98.80%", "50", "98.02%", "Jangmo-o"])
        #expect(column("Scan Date") == "\"2023-11-14 22:13\"")

        for p in try await collection.list(owner: ash) { try await collection.delete(owner: ash, id: p.id) }
        #expect(try await collection.list(owner: ash).isEmpty)
        #expect(try await collection.importCSV(owner: ash, csv) == 4)
        #expect(try await collection.exportCSV(owner: ash) == csv, "the same rows, column by column")

        // Bad files are refused whole, naming the line.
        await #expect(throws: CollectionError.badCSV(line: 1, problem: "no 'HP' column: not a Poke Genie export")) {
            try await collection.importCSV(owner: misty, "Index,Name,CP\n1,Pidgey,100\n")
        }
        await #expect(throws: CollectionError.self) { try await collection.importCSV(owner: misty, csv.replacingOccurrences(of: ",Rattata,", with: ",Notamon,")) }
        await #expect(throws: CollectionError.badCSV(line: 2, problem: "a quoted field is not closed")) {
            try await collection.importCSV(owner: misty, "Name,CP,HP\n\"Pidgey,10,10\n")
        }
        #expect(try await collection.list(owner: misty).isEmpty, "nothing imported from the bad files")
    }
}
