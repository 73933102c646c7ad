import IVScanner

/// The game's facts for the info pages, from the shipped tables.
public enum GameInfo {
    /// A species in the list.
    public struct Entry: Codable, Sendable, Equatable {
        public var dex: Int, name: String, form: String
    }

    /// One level of the info table: the CP of 15/15/15 and of 10/10/10 there, and what the next
    /// power-up costs.
    public struct Level: Codable, Sendable, Equatable {
        public var level: Double, maxCP: Int, cp10: Int, stardust: Int, candy: Int, xlCandy: Int
    }

    /// An evolution with the candy the step into it costs (the cheapest, as the game shows).
    public struct Evolution: Codable, Sendable, Equatable {
        public var species: SpeciesInfo
        public var candy: Int
    }

    /// The best (stat-product rank 1) IVs in a league, with their level and CP.
    public struct LeagueBest: Codable, Sendable, Equatable {
        public var league: String, attack: Int, defense: Int, stamina: Int, level: Double, cp: Int
    }

    public struct Details: Codable, Sendable, Equatable {
        public var species: SpeciesInfo
        public var family: String
        public var evolvesFrom: [SpeciesInfo]
        public var evolutions: [Evolution]
        public var levels: [Level]
        public var leagues: [LeagueBest]
        /// The base stats in force before each rebalance (dated tables), for old screenshots.
        public var history: [DatedStats]
    }

    public struct DatedStats: Codable, Sendable, Equatable {
        public var until: String, attack: Int, defense: Int, stamina: Int
    }

    /// Every species and form, by dex number.
    public static func list(_ data: GameData) throws -> [Entry] {
        data.species.map { Entry(dex: $0.dex, name: $0.name, form: $0.form) }
    }

    /// The info page of one species.
    public static func species(_ name: String, form: String?, calculator: IVCalculator) throws(CollectionError) -> Details {
        let data = calculator.data
        let s: Species
        do { s = try data.species(name, form: form) } catch { throw .notFound("species '\(name)'\(form.map { " in form '\($0)'" } ?? "")") }
        let line = data.evolutionLine(of: s)
        let evolutions = line.dropFirst().map { member in
            Evolution(species: SpeciesInfo(member.species), candy: member.parent.map { line[$0].species.evolveCandy } ?? 0)
        }
        let parents = data.species.filter { $0.form == s.form || $0.form == "Normal" }
            .filter { p in data.evolutions(of: p).contains { $0.name == s.name } }
        let levels = data.levels.map { l in
            Level(level: l.level, maxCP: Stats.cp(s, attack: 15, defense: 15, stamina: 15, cpm: l.cpMultiplier),
                  cp10: Stats.cp(s, attack: 10, defense: 10, stamina: 10, cpm: l.cpMultiplier),
                  stardust: l.stardust, candy: l.candy, xlCandy: l.xlCandy)
        }
        let leagues = League.allCases.compactMap { league in
            calculator.bestCombination(s, league: league).map {
                LeagueBest(league: league.rawValue, attack: $0.attack, defense: $0.defense, stamina: $0.stamina, level: $0.level, cp: $0.cp)
            }
        }
        let history = data.history.compactMap { table in
            table.species.first { $0.dex == s.dex }.map { DatedStats(until: table.until.description, attack: $0.attack, defense: $0.defense, stamina: $0.stamina) }
        }
        return Details(species: SpeciesInfo(s), family: s.family, evolvesFrom: Array(Set(parents.map { SpeciesInfo($0) }.map(\.name)).sorted()).compactMap { name in parents.first { $0.name == name }.map(SpeciesInfo.init) },
                       evolutions: evolutions, levels: levels, leagues: leagues, history: history)
    }
}
