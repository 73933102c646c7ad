import Foundation
import IVScanner
import SentioTestSupport
import Testing

@Suite("IV calculator")
struct CalculatorTests {
    let calculator: IVCalculator

    init() throws { calculator = try IVCalculator() }

    @Test("level table: whole-level multipliers as the game master lists them, half levels √((a² + b²)/2), costs to 50")
    func levels() throws {
        let data = calculator.data
        #expect(data.levels.first?.cpMultiplier == 0.094 && data.cpMultiplier(level: 40) == 0.7903)
        // Half levels are the root mean square of their neighbours.
        for l in data.levels where l.level.truncatingRemainder(dividingBy: 1) == 0.5 {
            let a = try #require(data.cpMultiplier(level: l.level - 0.5)), b = try #require(data.cpMultiplier(level: l.level + 0.5))
            #expect(abs(l.cpMultiplier - ((a * a + b * b) / 2).squareRoot()) < 1e-9, "level \(l.level)")
        }
        // Powering up from 1 to 50 costs 520,000 stardust, 304 candy and 296 XL candy.
        let upTo50 = data.levels.filter { $0.level < 50 }
        #expect(upTo50.reduce(0) { $0 + $1.stardust } == 520_000)
        #expect(upTo50.reduce(0) { $0 + $1.candy } == 304 && upTo50.reduce(0) { $0 + $1.xlCandy } == 296)
    }

    @Test("agrees with an exhaustive brute force on random Pokémon")
    func bruteForce() throws {
        var rng = SeededRandom(seed: 2026)
        let all = calculator.data.species
        for _ in 0 ..< 300 {
            let species = all[Int.random(in: 0 ..< all.count, using: &rng)]
            let level = calculator.data.levels[Int.random(in: 0 ..< 79, using: &rng)]
            let (a, d, s) = (Int.random(in: 0 ... 15, using: &rng), Int.random(in: 0 ... 15, using: &rng), Int.random(in: 0 ... 15, using: &rng))
            let cp = Stats.cp(species, attack: a, defense: d, stamina: s, cpm: level.cpMultiplier)
            let hp = Stats.hp(species, stamina: s, cpm: level.cpMultiplier)
            let found = try calculator.combinations(IVQuery(species: species, cp: cp, hp: hp, stardust: level.stardust))
            #expect(found.contains(IVCombination(level: level.level, attack: a, defense: d, stamina: s)))
            // The brute force: every level with that stardust, every IV triple, CP and HP recomputed.
            var expected = Set<IVCombination>()
            for l in calculator.data.levels where l.stardust == level.stardust {
                for x in 0 ... 15 { for y in 0 ... 15 { for z in 0 ... 15 {
                    let c = Double(species.attack + x) * Double(species.defense + y).squareRoot() * Double(species.stamina + z).squareRoot()
                        * l.cpMultiplier * l.cpMultiplier / 10
                    if max(10, Int(c)) == cp && max(10, Int(Double(species.stamina + z) * l.cpMultiplier)) == hp {
                        expected.insert(IVCombination(level: l.level, attack: x, defense: y, stamina: z))
                    }
                } } }
            }
            #expect(Set(found) == expected, "\(species.name) CP \(cp) HP \(hp)")
        }
    }

    @Test("the screenshots' manifest: the same consistent levels and number of IV combinations", .requires(fixture: ScreenTruth.manifest))
    func manifest() throws {
        let (_, manifest) = try ScreenTruth.fixtureScreens()
        let eras = ["S16": "2016-11-30", "S1612": "2016-12-20", "S18": "2018-06-01", "CUR": "2026-01-01"]
        var checked = 0
        for row in manifest {
            guard let cp = Int(row["cp"]!), let hp = Int(row["hp_max"]!), let dust = Int(row["stardust_cost"]!),
                  let combos = Int(row["n_iv_combos"]!) else { continue }
            let species = try calculator.data.species(row["species"]!, asOf: eras[row["stats_era_used"]!].map { try GameDate($0) })
            var query = IVQuery(species: species, cp: cp, hp: hp, stardust: dust)
            query.lucky = row["lucky"]!.lowercased().hasPrefix("y") || row["lucky"]! == "1"
            query.maxLevel = 40  // the screenshots predate levels over 40
            let found = try calculator.combinations(query)
            let levels = Set(found.map(\.level)).sorted().map { String(format: "%.1f", $0) }.joined(separator: " ")
            #expect(levels == row["consistent_levels"]!, "\(row["file"]!): levels \(levels)")
            #expect(found.count == combos, "\(row["file"]!): \(found.count) combinations, manifest \(combos)")
            checked += 1
        }
        #expect(checked >= 40)
    }

    @Test("filters: obtained, appraisal, given level; bad queries are errors")
    func filters() throws {
        let mewtwo = try calculator.data.species("Mewtwo")
        let cpm = try #require(calculator.data.cpMultiplier(level: 20))
        let cp = Stats.cp(mewtwo, attack: 15, defense: 14, stamina: 13, cpm: cpm), hp = Stats.hp(mewtwo, stamina: 13, cpm: cpm)
        var q = IVQuery(species: mewtwo, cp: cp, hp: hp, level: 20)
        q.obtained = .raid
        let raid = try calculator.combinations(q)
        #expect(raid.contains(IVCombination(level: 20, attack: 15, defense: 14, stamina: 13)))
        #expect(raid.allSatisfy { $0.attack >= 10 && $0.defense >= 10 && $0.stamina >= 10 })
        q.appraisal = .stars(3, bars: (15, 14, 13))
        #expect(try calculator.combinations(q) == [IVCombination(level: 20, attack: 15, defense: 14, stamina: 13)])
        q.appraisal = .leader(overall: 1, best: 1, bestStats: ["attack"])
        #expect(try calculator.combinations(q).allSatisfy { $0.attack == 15 && $0.defense < 15 && $0.stamina < 15 })
        #expect(throws: IVError.self) { try calculator.data.species("Missingno") }
        #expect(throws: IVError.self) { try calculator.combinations(IVQuery(species: mewtwo, cp: 5, hp: 100)) }
        // An impossible CP gives no combination, not a guess.
        #expect(try calculator.combinations(IVQuery(species: mewtwo, cp: 50, hp: 100, stardust: 200)).isEmpty)
    }

    @Test("league rank: 0/15/15 Azumarill ranks near the top of the great league; costs add up")
    func rankAndPlan() throws {
        let azumarill = try calculator.data.species("Azumarill")
        let r = try calculator.rank(azumarill, attack: 0, defense: 15, stamina: 15, league: .great)
        #expect(r.rank <= 20 && r.cp <= 1500 && r.percentOfBest > 99)
        let hundo = try calculator.rank(azumarill, attack: 15, defense: 15, stamina: 15, league: .great)
        #expect(hundo.rank > 1000)  // high attack wastes the great league's CP budget
        #expect(try calculator.rank(azumarill, attack: 15, defense: 15, stamina: 15, league: .master).rank == 1)
        let steps = try calculator.plan(azumarill, attack: 0, defense: 15, stamina: 15, from: 20, to: 21)
        #expect(steps.count == 3 && steps.last!.stardust == 2 * 2500 && steps.last!.candy == 2 * 2)
    }
}

@Suite("Species names")
struct SpeciesNameTests {
    @Test("a misread name resolves to the nearest species the numbers fit")
    func closest() throws {
        let data = try GameData.shared
        #expect(GameData.editDistance("Pidgey", "pidgey") == 0 && GameData.editDistance("Gengor", "Gengar") == 1)
        let gengar = try data.species("Gengar")
        let cpm = try #require(data.cpMultiplier(level: 25))
        let cp = Stats.cp(gengar, attack: 10, defense: 10, stamina: 10, cpm: cpm), hp = Stats.hp(gengar, stamina: 10, cpm: cpm)
        let fits = { (s: Species) in !((try? IVCalculator().combinations(IVQuery(species: s, cp: cp, hp: hp, level: 25))) ?? []).isEmpty }
        #expect(data.closestSpecies(to: "Gengor", where: fits)?.name == "Gengar")
        #expect(data.closestSpecies(to: "Xq", where: fits) == nil)  // too short to guess
        #expect(data.closestSpecies(to: "Haunter", where: fits) == nil)  // a real name the numbers do not fit
    }

    @Test("names and candy labels in German and French (names.tsv) find the species, accents or not")
    func localNames() throws {
        let data = try GameData.shared
        // Names as the game shows them in German and French (Mewtwo is Mewtu in German; Eevee is
        // Evoli and Évoli; Garchomp Knakrack and Carchacrok).
        #expect(try data.species("Mewtu").name == "Mewtwo")
        #expect(try data.species("Évoli").name == "Eevee" && data.species("Evoli").name == "Eevee")
        #expect(try data.species("CARCHACROK").name == "Garchomp")
        // The candy label names the family's first species: Salamence's is Bagon's (Kindwurm).
        #expect(data.family(candy: "KINDWURM-BONBON") == "Bagon")
        #expect(data.family(candy: "MEWTU-BONBON") == "Mewtwo")
        #expect(data.family(candy: "BONBON DRACO") == nil)  // Draco (French Dragonair) heads no family
        // A nickname's circled digits read as letters: still the nearest name the numbers fit.
        let garchomp = try data.species("Garchomp")
        let cpm = try #require(data.cpMultiplier(level: 38))
        let cp = Stats.cp(garchomp, attack: 14, defense: 5, stamina: 15, cpm: cpm), hp = Stats.hp(garchomp, stamina: 15, cpm: cpm)
        let fits = { (s: Species) in !((try? IVCalculator().combinations(IVQuery(species: s, cp: cp, hp: hp, level: 38))) ?? []).isEmpty }
        #expect(data.closestSpecies(to: "Knakracks", where: fits)?.name == "Garchomp")
        #expect(data.nameDistance("Knakracks", garchomp) == 1 && data.nameDistance("Garchomp", garchomp) == 0)
    }
}
