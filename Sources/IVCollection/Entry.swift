import Foundation
import IVScanner

/// What the player knows of one Pokémon: what the scanner read, as corrected by hand, and what
/// only the player can say (how it was obtained, what the appraisal said). Every field may be
/// edited; ``evaluate(with:)`` recomputes the IVs from them.
public struct IVEntry: Codable, Sendable, Equatable {
    public var species: String
    /// The form ("Normal", "Alola", "Galarian", …); nil: Normal.
    public var form: String?
    /// Nil when the screen hid it (then only the appraisal's bars pin attack and defense down).
    public var cp: Int?
    /// The maximum HP (the number after the slash).
    public var hp: Int
    /// The power-up stardust shown.
    public var stardust: Int?
    /// The level when known exactly (the arc's dot with the trainer level).
    public var level: Double?
    public var trainerLevel: Int?
    public var lucky: Bool
    public var shadow: Bool
    public var purified: Bool
    public var obtained: Obtained
    public var appraisal: AppraisalInput?
    /// The day the screenshot was taken: the base stats and level rules of then apply.
    public var statsAsOf: String?

    public init(species: String, form: String? = nil, cp: Int?, hp: Int, stardust: Int? = nil, level: Double? = nil,
                trainerLevel: Int? = nil, lucky: Bool = false, shadow: Bool = false, purified: Bool = false,
                obtained: Obtained = .wild, appraisal: AppraisalInput? = nil, statsAsOf: String? = nil) {
        self.species = species
        self.form = form
        self.cp = cp
        self.hp = hp
        self.stardust = stardust
        self.level = level
        self.trainerLevel = trainerLevel
        self.lucky = lucky
        self.shadow = shadow
        self.purified = purified
        self.obtained = obtained
        self.appraisal = appraisal
        self.statsAsOf = statsAsOf
    }

    /// The entry a scan gives, nil when the scan did not find the species or the HP (nothing
    /// to compute from: the page asks the player for them instead of guessing).
    public init?(_ report: ScanReport, trainerLevel: Int?, statsAsOf: String?) {
        guard let species = report.species, let hp = report.hpMax else { return nil }
        self.init(species: species, form: report.form, cp: report.cp, hp: hp, stardust: report.stardustCost,
                  level: report.level, trainerLevel: trainerLevel, lucky: report.lucky ?? false,
                  obtained: report.lucky == true ? .luckyTrade : .wild,
                  appraisal: report.appraisal.map { AppraisalInput(bars: $0) }, statsAsOf: statsAsOf)
    }

    private enum CodingKeys: String, CodingKey {
        case species, form, cp, hp, stardust, level, trainerLevel, lucky, shadow, purified, obtained, appraisal, statsAsOf
    }

    /// Absent flags are false and an absent `obtained` is wild, so a hand-written entry needs
    /// only the species and the numbers.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        species = try c.decode(String.self, forKey: .species)
        form = try c.decodeIfPresent(String.self, forKey: .form)
        cp = try c.decodeIfPresent(Int.self, forKey: .cp)
        hp = try c.decode(Int.self, forKey: .hp)
        stardust = try c.decodeIfPresent(Int.self, forKey: .stardust)
        level = try c.decodeIfPresent(Double.self, forKey: .level)
        trainerLevel = try c.decodeIfPresent(Int.self, forKey: .trainerLevel)
        lucky = try c.decodeIfPresent(Bool.self, forKey: .lucky) ?? false
        shadow = try c.decodeIfPresent(Bool.self, forKey: .shadow) ?? false
        purified = try c.decodeIfPresent(Bool.self, forKey: .purified) ?? false
        let how = try c.decodeIfPresent(String.self, forKey: .obtained) ?? Obtained.wild.rawValue
        guard let obtained = Obtained(rawValue: how) else {
            throw DecodingError.dataCorruptedError(forKey: .obtained, in: c, debugDescription:
                "'\(how)' is not one of \(Obtained.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.obtained = obtained
        appraisal = try c.decodeIfPresent(AppraisalInput.self, forKey: .appraisal)
        statsAsOf = try c.decodeIfPresent(String.self, forKey: .statsAsOf)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(species, forKey: .species)
        try c.encodeIfPresent(form, forKey: .form)
        try c.encode(cp, forKey: .cp)
        try c.encode(hp, forKey: .hp)
        try c.encode(stardust, forKey: .stardust)
        try c.encode(level, forKey: .level)
        try c.encode(trainerLevel, forKey: .trainerLevel)
        try c.encode(lucky, forKey: .lucky)
        try c.encode(shadow, forKey: .shadow)
        try c.encode(purified, forKey: .purified)
        try c.encode(obtained.rawValue, forKey: .obtained)
        try c.encode(appraisal, forKey: .appraisal)
        try c.encode(statsAsOf, forKey: .statsAsOf)
    }
}

/// The appraisal as the player enters it: today's stars (and the three bars when known), or the
/// 2019 team leaders' sentences.
public struct AppraisalInput: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case stars, leader }
    public var kind: Kind
    /// Stars: 0–4 (4 is 15/15/15).
    public var stars: Int?
    /// The three bars read exactly: attack, defense, stamina (0–15 each).
    public var bars: [Int]?
    /// Leader: the overall sentence's band, 1 (best) … 4.
    public var overall: Int?
    /// Leader: the best stat's band, 1 (15) … 4 (0–7).
    public var best: Int?
    /// Leader: which stats the sentence named best ("attack", "defense", "stamina").
    public var bestStats: [String]?

    public init(kind: Kind, stars: Int? = nil, bars: [Int]? = nil, overall: Int? = nil, best: Int? = nil, bestStats: [String]? = nil) {
        self.kind = kind
        self.stars = stars
        self.bars = bars
        self.overall = overall
        self.best = best
        self.bestStats = bestStats
    }

    /// The bars the scanner read off an appraisal screen.
    public init(bars: AppraisalBars) {
        let (a, d, s) = (bars.attack, bars.defense, bars.stamina)
        self.init(kind: .stars, stars: Appraisal.stars(total: a + d + s), bars: [a, d, s])
    }

    /// The calculator's filter; an error naming the field that is out of range.
    public func filter() throws(CollectionError) -> Appraisal {
        switch kind {
        case .stars:
            guard let stars, (0 ... 4).contains(stars) else { throw .invalid("appraisal.stars", "0–4 stars") }
            guard let bars else { return .stars(stars, bars: nil) }
            guard bars.count == 3, bars.allSatisfy((0 ... 15).contains) else { throw .invalid("appraisal.bars", "three values 0–15") }
            return .stars(stars, bars: (bars[0], bars[1], bars[2]))
        case .leader:
            guard let overall, (1 ... 4).contains(overall) else { throw .invalid("appraisal.overall", "a band 1–4") }
            guard let best, (1 ... 4).contains(best) else { throw .invalid("appraisal.best", "a band 1–4") }
            let named = Set(bestStats ?? [])
            guard named.isSubset(of: ["attack", "defense", "stamina"]) else {
                throw .invalid("appraisal.bestStats", "attack, defense or stamina")
            }
            return .leader(overall: overall, best: best, bestStats: named)
        }
    }
}
