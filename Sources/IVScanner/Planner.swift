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

/// PvP leagues by CP cap.
public enum League: String, Sendable, CaseIterable {
    case great, ultra, master
    public var cap: Int? { self == .great ? 1500 : self == .ultra ? 2500 : nil }
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
            let product = Double(s.attack + a) * m * Double(s.defense + d) * m * Double(Stats.hp(s, stamina: st, cpm: m))
            result = (l.level, cp, product)
        }
        return result
    }

    /// Rank of (a, d, s) in `league` by stat product (attack · defense · HP at the best level
    /// under the cap), among all 4,096 combinations.
    public func rank(_ s: Species, attack: Int, defense: Int, stamina: Int, league: League, maxLevel: Double = 50) throws -> LeagueRank {
        try check(s)
        try check(ivs: attack, defense, stamina)
        guard let mine = best(s, attack, defense, stamina, league: league, maxLevel: maxLevel) else {
            throw IVError.invalid("\(s.name) is over the \(league.rawValue) league's cap even at level 1")
        }
        var products: [Double] = []
        products.reserveCapacity(4096)
        for a in 0 ... 15 { for d in 0 ... 15 { for st in 0 ... 15 {
            if let b = best(s, a, d, st, league: league, maxLevel: maxLevel) { products.append(b.product) }
        } } }
        let better = products.filter { $0 > mine.product }.count
        return LeagueRank(rank: better + 1, level: mine.level, cp: mine.cp, statProduct: mine.product,
                          percentOfBest: mine.product / (products.max() ?? mine.product) * 100)
    }
}
