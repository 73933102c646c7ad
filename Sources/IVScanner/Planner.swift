/// Power-up planning and league ranking.
public struct PowerUpStep: Sendable, Hashable {
    public var level: Double
    public var cp: Int
    public var hp: Int
    /// Totals spent to get here from the starting level.
    public var stardust: Int
    public var candy: Int
    public var xlCandy: Int
}

extension IVCalculator {
    /// CP, HP and cumulative cost at every half level from `level` up to `target`.
    public func plan(_ species: Species, attack: Int, defense: Int, stamina: Int, from level: Double, to target: Double = 50,
                     lucky: Bool = false, shadow: Bool = false, purified: Bool = false) throws -> [PowerUpStep] {
        try check(species)
        try check(ivs: attack, defense, stamina)
        guard let start = data.levels.firstIndex(where: { $0.level == level }) else { throw IVError.invalid("no level \(level)") }
        var steps: [PowerUpStep] = []
        var dust = 0, candy = 0, xl = 0
        for i in start ..< data.levels.count where data.levels[i].level <= target {
            let l = data.levels[i]
            steps.append(PowerUpStep(level: l.level, cp: Stats.cp(species, attack: attack, defense: defense, stamina: stamina, cpm: l.cpMultiplier),
                                     hp: Stats.hp(species, stamina: stamina, cpm: l.cpMultiplier), stardust: dust, candy: candy, xlCandy: xl))
            guard l.level < target else { break }
            dust += stardust(from: l, lucky: lucky, shadow: shadow, purified: purified)
            let factor = shadow ? 1.2 : purified ? 0.9 : 1
            candy += Stats.whole((Double(l.candy) * factor).rounded())
            xl += Stats.whole((Double(l.xlCandy) * factor).rounded())
        }
        return steps
    }
}

/// PvP leagues by CP cap: Great 1,500, Ultra 2,500, Master (none), Little 500.
public enum League: String, Sendable, CaseIterable {
    case great, ultra, master, little
    public var cap: Int? {
        switch self {
        case .great: 1500
        case .ultra: 2500
        case .master: nil
        case .little: 500
        }
    }
}

/// A combination's standing in a league: rank 1 has the highest stat product among all 4,096.
public struct LeagueRank: Sendable, Hashable {
    public var rank: Int
    public var level: Double
    public var cp: Int
    public var statProduct: Double
    /// Percentage of the best stat product.
    public var percentOfBest: Double
}

extension IVCalculator {
    /// The best level (≤ `maxLevel`) and stat product of (a, d, s) under `league`'s cap.
    func best(_ s: Species, _ a: Int, _ d: Int, _ st: Int, league: League, maxLevel: Double) -> (level: Double, cp: Int, product: Double)? {
        var result: (Double, Int, Double)?
        for l in data.levels where l.level <= maxLevel {
            let cp = Stats.cp(s, attack: a, defense: d, stamina: st, cpm: l.cpMultiplier)
            if let cap = league.cap, cp > cap { break }
            let m = l.cpMultiplier
            // The integer part first, exactly, then the multiplier: attack and defense swapped give
            // the same product to the bit, so equal products really share a rank.
            let product = Double((s.attack + a) * (s.defense + d) * Stats.hp(s, stamina: st, cpm: m)) * m * m
            result = (l.level, cp, product)
        }
        return result
    }

    /// Rank of (a, d, s) in `league` by stat product (attack · defense · HP at the best level
    /// under the cap), among all 4,096 combinations — or, with `ivFloor`, among those whose
    /// every IV is at least the floor (a traded or raid Pokémon can be no other). Equal stat
    /// products share a rank: the rank is 1 + the number of combinations strictly better.
    public func rank(_ s: Species, attack: Int, defense: Int, stamina: Int, league: League, maxLevel: Double = 50,
                     ivFloor: Int = 0) throws -> LeagueRank {
        try check(s)
        try check(ivs: attack, defense, stamina)
        guard (0 ... 15).contains(ivFloor) else { throw IVError.invalid("an IV floor is 0–15, not \(ivFloor)") }
        guard attack >= ivFloor, defense >= ivFloor, stamina >= ivFloor else {
            throw IVError.invalid("\(attack)/\(defense)/\(stamina) is below the IV floor \(ivFloor)")
        }
        guard let mine = best(s, attack, defense, stamina, league: league, maxLevel: maxLevel) else {
            throw IVError.invalid("\(s.name) is over the \(league.rawValue) league's cap even at level 1")
        }
        var better = 0, top = mine.product
        for a in ivFloor ... 15 { for d in ivFloor ... 15 { for st in ivFloor ... 15 {
            guard let b = best(s, a, d, st, league: league, maxLevel: maxLevel) else { continue }
            if b.product > mine.product { better += 1 }
            top = max(top, b.product)
        } } }
        return LeagueRank(rank: better + 1, level: mine.level, cp: mine.cp, statProduct: mine.product,
                          percentOfBest: mine.product / top * 100)
    }

    /// The Pokémon's standing in every league, as it is and as each of its evolutions (the IVs
    /// stay when it evolves). A league whose cap the species exceeds at level 1 is left out.
    public func leagueRanks(_ s: Species, attack: Int, defense: Int, stamina: Int, maxLevel: Double = 50,
                            ivFloor: Int = 0) throws -> [EvolutionRanks] {
        try ([s] + data.evolutions(of: s)).map { species in
            var ranks: [League: LeagueRank] = [:]
            for league in League.allCases {
                guard best(species, ivFloor, ivFloor, ivFloor, league: league, maxLevel: maxLevel) != nil,
                      best(species, attack, defense, stamina, league: league, maxLevel: maxLevel) != nil else { continue }
                ranks[league] = try rank(species, attack: attack, defense: defense, stamina: stamina, league: league,
                                         maxLevel: maxLevel, ivFloor: ivFloor)
            }
            return EvolutionRanks(species: species, ranks: ranks)
        }
    }
}

/// One species of a Pokémon's evolution line with its rank in each league it fits.
public struct EvolutionRanks: Sendable, Hashable {
    public var species: Species
    public var ranks: [League: LeagueRank]
}

extension GameData {
    /// `s` and every species it can evolve into, nearest first, each with the position in this
    /// list of the species it evolves from (nil for `s`): a branched line (Wurmple's) has a path
    /// per member.
    public func evolutionLine(of s: Species) -> [(species: Species, parent: Int?)] {
        var line: [(species: Species, parent: Int?)] = [(s, nil)]
        for member in evolutions(of: s) {
            line.append((member, line.lastIndex { $0.species.evolutions.contains(member.name) }))
        }
        return line
    }

    /// Every species `s` can evolve into, directly or through others, nearest first. An
    /// evolution keeps `s`'s form where the target has it (Alolan Meowth → Alolan Persian),
    /// else takes the target's Normal form (Galarian Meowth → Perrserker).
    public func evolutions(of s: Species) -> [Species] {
        var found: [Species] = [], queue = [s], seen: Set<String> = [GameData.key(s.name)]
        while !queue.isEmpty {
            let current = queue.removeFirst()
            for name in current.evolutions where !seen.contains(GameData.key(name)) {
                seen.insert(GameData.key(name))
                guard let target = (try? species(name, form: current.form)) ?? (try? species(name)) else { continue }
                found.append(target)
                queue.append(target)
            }
        }
        return found
    }
}

extension IVCalculator {
    /// The rank-1 combination of `league` (the highest stat product; among equal ones the first
    /// in attack, defense, stamina order), with its best level and CP; nil when the species is
    /// over the cap even at level 1.
    public func bestCombination(_ s: Species, league: League, maxLevel: Double = 50) -> (attack: Int, defense: Int, stamina: Int, level: Double, cp: Int)? {
        var top: (attack: Int, defense: Int, stamina: Int, level: Double, cp: Int, product: Double)?
        for a in 0 ... 15 { for d in 0 ... 15 { for st in 0 ... 15 {
            guard let b = best(s, a, d, st, league: league, maxLevel: maxLevel) else { continue }
            if top == nil || b.product > top!.product { top = (a, d, st, b.level, b.cp, b.product) }
        } } }
        return top.map { ($0.attack, $0.defense, $0.stamina, $0.level, $0.cp) }
    }
}
