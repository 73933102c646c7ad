import Foundation

/// CP and HP as the game computes them. Total functions: stats or multipliers that make no
/// sense (below zero, not finite, beyond any Pokémon's) give the floor of 10 or a saturated
/// value, never a trap; the calculator's entries reject them with a typed error first.
public enum Stats {
    /// CP = max(10, ⌊(A + a) · √(D + d) · √(S + s) · CPM² / 10⌋).
    public static func cp(_ s: Species, attack: Int, defense: Int, stamina: Int, cpm: Double) -> Int {
        let value = sum(s.attack, attack) * sum(s.defense, defense).squareRoot() * sum(s.stamina, stamina).squareRoot() * cpm * cpm / 10
        return max(10, whole(value))
    }

    /// HP = max(10, ⌊(S + s) · CPM⌋).
    public static func hp(_ s: Species, stamina: Int, cpm: Double) -> Int {
        max(10, whole(sum(s.stamina, stamina) * cpm))
    }

    /// A base stat plus an IV, at least 0 (in Double: no Int overflow).
    static func sum(_ base: Int, _ iv: Int) -> Double { max(0, Double(base) + Double(iv)) }

    /// ⌊value⌋, 0 when not a number, saturated at ±2⁵³.
    static func whole(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value, -9.007_199_254_740_992e15), 9.007_199_254_740_992e15).rounded(.down))
    }
}

/// How a Pokémon was obtained: each sets a floor under every individual value.
public enum Obtained: String, Sendable, CaseIterable {
    case wild, weatherBoosted = "weather", hatched, raid, research, trade, luckyTrade = "lucky-trade", purified

    public var ivFloor: Int {
        switch self {
        case .wild, .trade: 0
        case .weatherBoosted: 4
        case .hatched, .raid, .research: 10
        case .luckyTrade: 12
        case .purified: 2
        }
    }
}

/// What the appraisal said.
public enum Appraisal: Sendable, Equatable {
    /// Today's star rating (0–3, or 4 for 15/15/15) and, when read, the three bars exactly.
    case stars(Int, bars: (Int, Int, Int)?)
    /// The 2019 team leaders: the overall sentence's band (1 best … 4 worst), the best stat's
    /// band (1: 15, 2: 13–14, 3: 8–12, 4: 0–7) and which stats are the best.
    case leader(overall: Int, best: Int, bestStats: Set<String>)

    public static func == (a: Appraisal, b: Appraisal) -> Bool {
        switch (a, b) {
        case let (.stars(x, p), .stars(y, q)): x == y && p?.0 == q?.0 && p?.1 == q?.1 && p?.2 == q?.2
        case let (.leader(o1, b1, s1), .leader(o2, b2, s2)): o1 == o2 && b1 == b2 && s1 == s2
        default: false
        }
    }

    /// The stars the game gives an IV total: 4 for 45, 3 for 37–44, 2 for 30–36, 1 for 23–29, else 0.
    public static func stars(total: Int) -> Int {
        total == 45 ? 4 : total >= 37 ? 3 : total >= 30 ? 2 : total >= 23 ? 1 : 0
    }

    func admits(_ a: Int, _ d: Int, _ s: Int) -> Bool {
        let total = a + d + s
        switch self {
        case let .stars(n, bars):
            if let bars, bars != (a, d, s) { return false }
            // A count outside 1–4 is taken as 0 stars.
            return Appraisal.stars(total: total) == ((1 ... 4).contains(n) ? n : 0)
        case let .leader(overall, best, bestStats):
            let overallRange: ClosedRange<Int> = [1: 37 ... 45, 2: 30 ... 36, 3: 23 ... 29, 4: 0 ... 22][overall] ?? 0 ... 45
            guard overallRange.contains(total) else { return false }
            let top = max(a, d, s)
            let bestRange: ClosedRange<Int> = [1: 15 ... 15, 2: 13 ... 14, 3: 8 ... 12, 4: 0 ... 7][best] ?? 0 ... 15
            guard bestRange.contains(top) else { return false }
            let named: Set<String> = Set([("attack", a), ("defense", d), ("stamina", s)].filter { $0.1 == top }.map(\.0))
            return bestStats.isEmpty || named == bestStats
        }
    }
}

/// One possible reading: a level and three individual values.
public struct IVCombination: Sendable, Hashable {
    public var level: Double
    public var attack: Int
    public var defense: Int
    public var stamina: Int
    /// (a + d + s) / 45, as a percentage.
    public var percent: Double { Double(attack + defense + stamina) / 45 * 100 }

    public init(level: Double, attack: Int, defense: Int, stamina: Int) {
        self.level = level
        self.attack = attack
        self.defense = defense
        self.stamina = stamina
    }
}

/// What the screen showed, and what else is known.
public struct IVQuery: Sendable {
    public var species: Species
    /// Nil when the screen hid it (a banner over it): then only HP and the filters constrain
    /// attack and defense, which is worth asking only with the appraisal's bars.
    public var cp: Int?
    public var hp: Int
    /// The power-up stardust shown (already halved when lucky, raised when shadow).
    public var stardust: Int?
    /// The level, when known exactly (the arc with the trainer level, or a given level).
    public var level: Double?
    public var lucky = false
    public var shadow = false
    public var purified = false
    public var obtained: Obtained = .wild
    public var appraisal: Appraisal?
    /// Highest level to consider (trainer level + 10 is the power-up cap; 51 with best buddy).
    public var maxLevel = 51.0

    public init(species: Species, cp: Int?, hp: Int, stardust: Int? = nil, level: Double? = nil) {
        self.species = species
        self.cp = cp
        self.hp = hp
        self.stardust = stardust
        self.level = level
    }
}

/// The IV calculator: every (level, a, d, s) the screen allows.
public struct IVCalculator: Sendable {
    public let data: GameData

    /// A calculator on the bundled tables (an error only when they are damaged:
    /// `GameData.shared`).
    public init() throws {
        data = try GameData.shared
    }

    public init(data: GameData) {
        self.data = data
    }

    /// An error unless `s`'s base stats lie in the game's range (1–9999): a `Species` is plain
    /// data anyone can build.
    func check(_ s: Species) throws {
        guard [s.attack, s.defense, s.stamina].allSatisfy(GameData.statRange.contains) else {
            throw IVError.invalid("\(s.name)'s base stats \(s.attack)/\(s.defense)/\(s.stamina) are outside 1–9999")
        }
    }

    /// An error unless attack, defense and stamina are IVs (0–15).
    func check(ivs a: Int, _ d: Int, _ s: Int) throws {
        guard [a, d, s].allSatisfy((0 ... 15).contains) else { throw IVError.invalid("IVs are 0–15 each, not \(a)/\(d)/\(s)") }
    }

    /// The stardust shown for powering up from `level` with the query's modifiers.
    public func stardust(from level: LevelCost, lucky: Bool, shadow: Bool, purified: Bool) -> Int {
        var dust = Double(level.stardust)
        if shadow { dust = (dust * 1.2).rounded() }
        if purified { dust = (dust * 0.9).rounded() }
        if lucky { dust = (dust * 0.5).rounded() }
        return Stats.whole(dust)
    }

    /// Levels consistent with the query's stardust or given level.
    public func candidateLevels(_ q: IVQuery) -> [LevelCost] {
        data.levels.filter { l in
            guard l.level <= q.maxLevel else { return false }
            if let level = q.level { return l.level == level }
            if let dust = q.stardust { return stardust(from: l, lucky: q.lucky, shadow: q.shadow, purified: q.purified) == dust }
            return true
        }
    }

    /// All combinations matching CP and HP (and the filters), by level then IVs.
    public func combinations(_ q: IVQuery) throws -> [IVCombination] {
        guard q.cp ?? 10 >= 10, q.hp >= 10 else { throw IVError.invalid("CP and HP are at least 10 (CP \(q.cp.map(String.init) ?? "unknown"), HP \(q.hp))") }
        try check(q.species)
        let floor = q.purified ? max(2, q.obtained.ivFloor) : q.obtained.ivFloor
        var found: [IVCombination] = []
        for level in candidateLevels(q) {
            let cpm = level.cpMultiplier
            for s in floor ... 15 where Stats.hp(q.species, stamina: s, cpm: cpm) == q.hp {
                for a in floor ... 15 {
                    for d in floor ... 15 where q.cp.map({ Stats.cp(q.species, attack: a, defense: d, stamina: s, cpm: cpm) == $0 }) ?? true {
                        if let appraisal = q.appraisal, !appraisal.admits(a, d, s) { continue }
                        found.append(IVCombination(level: level.level, attack: a, defense: d, stamina: s))
                    }
                }
            }
        }
        return found
    }
}
