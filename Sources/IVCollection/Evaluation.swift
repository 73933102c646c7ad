import Foundation
import IVScanner

/// Errors of the IV application, each naming the field or row it is about.
public enum CollectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field with a value outside what it may hold: the field's name and what it takes.
    case invalid(String, String)
    /// The game data knows no such species or form (the calculator's words).
    case unknown(String)
    /// A scan, Pokémon or row that does not exist (or is another player's).
    case notFound(String)
    /// A CSV file that cannot be imported: the line (1 is the header) and what is wrong.
    case badCSV(line: Int, problem: String)

    public var description: String {
        switch self {
        case let .invalid(field, expected): "\(field): expected \(expected)"
        case let .unknown(what): what
        case let .notFound(what): "\(what) does not exist"
        case let .badCSV(line, problem): "CSV line \(line): \(problem)"
        }
    }
}

/// Lowest and highest of a value over the combinations.
public struct ValueRange: Codable, Sendable, Equatable {
    public var min: Double, max: Double
}

/// The species as the page shows it.
public struct SpeciesInfo: Codable, Sendable, Equatable {
    public var dex: Int, name: String, form: String, attack: Int, defense: Int, stamina: Int

    public init(_ s: Species) {
        dex = s.dex; name = s.name; form = s.form; attack = s.attack; defense = s.defense; stamina = s.stamina
    }
}

/// One league's standing, as JSON.
public struct LeagueStanding: Codable, Sendable, Equatable {
    public var league: String
    /// Rank among the combinations at or above the IV floor (1 is best; equal stat products share).
    public var rank: Int
    /// How many combinations were ranked (4,096 without a floor).
    public var of: Int
    /// The highest level under the cap (and the level cap) and the CP there.
    public var level: Double, cp: Int
    public var statProduct: Double
    public var percentOfBest: Double
}

/// The Pokémon, and each of its evolutions, in every league it fits.
public struct EvolutionStanding: Codable, Sendable, Equatable {
    public var species: SpeciesInfo
    public var leagues: [LeagueStanding]
}

/// One step of the power-up plan, as JSON.
public struct PlanStep: Codable, Sendable, Equatable {
    public var level: Double, cp: Int, hp: Int, stardust: Int, candy: Int, xlCandy: Int
}

/// What an entry gives: every IV combination, their ranges, and — once one combination is
/// chosen (or only one is left) — its power-up plan and its league ranks.
public struct IVEvaluation: Codable, Sendable, Equatable {
    public var species: SpeciesInfo
    public var combinations: [ScanReport.IV]
    public var levels: [Double]
    /// Over all combinations; nil when there are none.
    public var percent: ValueRange?, attack: ValueRange?, defense: ValueRange?, stamina: ValueRange?
    /// Why no combination fits, in words the player can act on (nil when some do).
    public var problem: String?
    /// The combination the plan and ranks are for (nil: several fit and none was chosen).
    public var chosen: ScanReport.IV?
    public var plan: [PlanStep]?
    public var leagues: [EvolutionStanding]?
    /// What evolving now would show: each later member of the line, its CP and HP at the same
    /// level and IVs, over every combination that fits (today's stats; nil when none fits).
    public var evolveNow: [EvolvePreview]?
}

/// One evolution's CP and HP, were the Pokémon evolved now (Poke Genie's evolve preview).
public struct EvolvePreview: Codable, Sendable, Equatable {
    public var species: SpeciesInfo
    public var cp: ValueRange, hp: ValueRange
}

/// Settings of the PvP ranking, stated in the page's help and in docs/iv-app.md. Both may be
/// left out of the JSON.
public struct LeagueRules: Codable, Sendable, Equatable {
    /// The highest level a Pokémon may be powered to (50 without best-buddy; 51 with it).
    public var maxLevel: Double = 50
    /// Only combinations with every IV at least this are ranked (0: all 4,096); nil: the floor
    /// of how the entry's Pokémon was obtained (a raid's 10, a lucky trade's 12, …).
    public var ivFloor: Int?

    public init(maxLevel: Double = 50, ivFloor: Int? = nil) {
        self.maxLevel = maxLevel
        self.ivFloor = ivFloor
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        maxLevel = try c.decodeIfPresent(Double.self, forKey: .maxLevel) ?? 50
        ivFloor = try c.decodeIfPresent(Int.self, forKey: .ivFloor)
    }

    func check() throws(CollectionError) {
        guard maxLevel >= 1, maxLevel <= 55, (maxLevel * 2).rounded() == maxLevel * 2 else {
            throw .invalid("maxLevel", "a whole or half level 1–55")
        }
        if let ivFloor { guard (0 ... 15).contains(ivFloor) else { throw .invalid("ivFloor", "0–15") } }
    }
}

extension IVEntry {
    /// The most combinations an entry may leave (a CP and HP alone leave a few hundred at most).
    public static let maxCombinations = 10_000

    /// The species this entry names, with the base stats of its date.
    public func resolvedSpecies(_ data: GameData) throws(CollectionError) -> Species {
        let date: GameDate?
        do { date = try statsAsOf.map { try GameDate($0) } } catch { throw .invalid("statsAsOf", "a date YYYY-MM-DD") }
        do { return try data.species(species, form: form, asOf: date) } catch { throw .unknown(String(describing: error)) }
    }

    /// Checks the numbers before anything is computed.
    func check() throws(CollectionError) {
        if let cp { guard (10 ... 100_000).contains(cp) else { throw .invalid("cp", "10–100000") } }
        guard (10 ... 10_000).contains(hp) else { throw .invalid("hp", "10–10000") }
        if let stardust { guard (0 ... 100_000).contains(stardust) else { throw .invalid("stardust", "0–100000") } }
        if let level { guard (1 ... 55).contains(level), (level * 2).rounded() == level * 2 else { throw .invalid("level", "a whole or half level 1–55") } }
        if let trainerLevel { guard (1 ... 80).contains(trainerLevel) else { throw .invalid("trainerLevel", "1–80") } }
    }

    /// The calculator's query for this entry.
    public func query(_ data: GameData) throws(CollectionError) -> IVQuery {
        try check()
        var q = IVQuery(species: try resolvedSpecies(data), cp: cp, hp: hp, stardust: stardust, level: level)
        q.lucky = lucky
        q.shadow = shadow
        q.purified = purified
        q.obtained = obtained
        q.appraisal = try appraisal?.filter()
        if let trainerLevel {
            do {
                q.maxLevel = try LevelRules.highestLevel(trainerLevel: trainerLevel, on: statsAsOf.map { try GameDate($0) })
            } catch { throw .invalid("trainerLevel", String(describing: error)) }
        }
        return q
    }

    /// Every combination the entry allows, their ranges, and for `chosen` (or the only one)
    /// the plan up to `rules.maxLevel` and the league ranks of it and its evolutions.
    public func evaluate(with calculator: IVCalculator, chosen: IVCombination? = nil, rules: LeagueRules = .init()) throws(CollectionError) -> IVEvaluation {
        try rules.check()
        let q = try query(calculator.data)
        let found: [IVCombination]
        do { found = try calculator.combinations(q) } catch { throw .invalid("entry", String(describing: error)) }
        // An entry that pins almost nothing (no CP, no stardust, no level: a Shedinja's HP fits
        // 384,000) would answer megabytes and fill the store; the player is asked for more.
        guard found.count <= Self.maxCombinations else {
            throw .invalid("entry", "\(found.count) IV combinations fit; give the CP, the stardust or the level (at most \(Self.maxCombinations) are kept)")
        }
        func range(_ values: [Int]) -> ValueRange? { values.min().map { ValueRange(min: Double($0), max: Double(values.max()!)) } }
        var result = IVEvaluation(
            species: SpeciesInfo(q.species), combinations: found.map(ScanReport.IV.init),
            levels: Set(found.map(\.level)).sorted(),
            percent: found.map(\.percent).min().map { ValueRange(min: ($0 * 10).rounded() / 10, max: (found.map(\.percent).max()! * 10).rounded() / 10) },
            attack: range(found.map(\.attack)), defense: range(found.map(\.defense)), stamina: range(found.map(\.stamina)))
        if found.isEmpty { result.problem = Self.explain(q) } else { result.evolveNow = Self.evolveNow(found, of: q.species, data: calculator.data) }
        let pick: IVCombination?
        if let chosen {
            guard found.contains(chosen) else {
                throw .invalid("chosen", "one of the \(found.count) combinations the entry allows")
            }
            pick = chosen
        } else {
            pick = found.count == 1 ? found[0] : nil
        }
        guard let pick else { return result }
        result.chosen = ScanReport.IV(pick)
        do {
            // The IVs come from the stats of the screenshot's day; what the Pokémon will do from
            // now on (power-ups, leagues) follows today's stats.
            let today = (try? calculator.data.species(q.species.name, form: q.species.form)) ?? q.species
            let target = max(pick.level, rules.maxLevel)
            result.plan = try calculator.plan(today, attack: pick.attack, defense: pick.defense, stamina: pick.stamina,
                                              from: pick.level, to: target, lucky: lucky, shadow: shadow, purified: purified)
                .map { PlanStep(level: $0.level, cp: $0.cp, hp: $0.hp, stardust: $0.stardust, candy: $0.candy, xlCandy: $0.xlCandy) }
            var ranking = rules
            // The floor the Pokémon's origin sets (IVCalculator's rule: purified at least 2).
            ranking.ivFloor = rules.ivFloor ?? (purified ? max(2, obtained.ivFloor) : obtained.ivFloor)
            result.leagues = try standings(calculator, today, attack: pick.attack, defense: pick.defense, stamina: pick.stamina, rules: ranking)
        } catch { throw .invalid("chosen", String(describing: error)) }
        return result
    }

    /// Each later evolution's CP and HP at the combinations' levels and IVs (today's stats:
    /// evolving happens now, whenever the screenshot was taken).
    static func evolveNow(_ found: [IVCombination], of species: Species, data: GameData) -> [EvolvePreview] {
        let today = (try? data.species(species.name, form: species.form)) ?? species
        let cpm = Dictionary(data.levels.map { ($0.level, $0.cpMultiplier) }, uniquingKeysWith: { a, _ in a })
        return data.evolutions(of: today).compactMap { target in
            let shown = found.compactMap { c in
                cpm[c.level].map { m in (Stats.cp(target, attack: c.attack, defense: c.defense, stamina: c.stamina, cpm: m), Stats.hp(target, stamina: c.stamina, cpm: m)) }
            }
            guard let cpLow = shown.map(\.0).min(), let hpLow = shown.map(\.1).min() else { return nil }
            return EvolvePreview(species: SpeciesInfo(target), cp: ValueRange(min: Double(cpLow), max: Double(shown.map(\.0).max()!)),
                                 hp: ValueRange(min: Double(hpLow), max: Double(shown.map(\.1).max()!)))
        }
    }

    /// Why no combination fits: which readings disagree, as far as the calculator can tell.
    static func explain(_ q: IVQuery) -> String {
        let name = q.species.form == "Normal" ? q.species.name : "\(q.species.name) (\(q.species.form))"
        var said = ["HP \(q.hp)"]
        if let cp = q.cp { said.insert("CP \(cp)", at: 0) }
        if let level = q.level { said.append("level \(level)") } else if let dust = q.stardust { said.append("stardust \(dust)") }
        var text = "No IV combination gives \(said.joined(separator: ", ")) for \(name)"
        if q.obtained != .wild { text += " obtained as \(q.obtained.rawValue) (every IV at least \(q.obtained.ivFloor))" }
        if q.appraisal != nil { text += " with this appraisal" }
        return text + ": check the numbers, the species and the filters."
    }
}

/// The league standings of (a, d, s) for the species and its evolutions.
public func standings(_ calculator: IVCalculator, _ s: Species, attack: Int, defense: Int, stamina: Int,
                      rules: LeagueRules) throws -> [EvolutionStanding] {
    try rules.check()
    let floor = rules.ivFloor ?? 0
    let counted = (16 - floor) * (16 - floor) * (16 - floor)
    return try calculator.leagueRanks(s, attack: attack, defense: defense, stamina: stamina, maxLevel: rules.maxLevel, ivFloor: floor)
        .map { line in
            EvolutionStanding(species: SpeciesInfo(line.species), leagues: League.allCases.compactMap { league in
                line.ranks[league].map {
                    LeagueStanding(league: league.rawValue, rank: $0.rank, of: counted, level: $0.level, cp: $0.cp,
                                   statProduct: ($0.statProduct * 10).rounded() / 10, percentOfBest: ($0.percentOfBest * 100).rounded() / 100)
                }
            })
        }
}
