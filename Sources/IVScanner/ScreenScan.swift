import SentioImage

/// A whole scan of a detail screen: what was read, the species it resolves to, and the IV
/// combinations the readings allow (at the arc's level when the trainer level is known).
public struct ScreenScan: Sendable {
    public var reading: ScreenReading
    /// Nil when the name could not be matched to a species the numbers fit.
    public var species: Species?
    public var combinations: [IVCombination]
    /// The Pokémon's level, exact: the one the arc's dot marks (when the trainer level was given
    /// and the dot found), else the only one the readings allow, else nil.
    public var level: Double?
    /// Why the species or the IVs are not to be trusted as they stand (empty: nothing seen).
    public var doubts: [ScanDoubt] = []

    /// A species and IV combinations, and nothing that disagrees: the name read, the candy's
    /// family and the numbers name the same Pokémon, and (without a date) the era does not
    /// change the answer. Only such a scan is shown as read.
    public var isSure: Bool { species != nil && !combinations.isEmpty && doubts.isEmpty }
}

/// Something a scan's readings disagree on, for the player to settle: a name read clearly that
/// the numbers do not fit, a candy of another family, a species told only by its height, or a
/// date that changes the answer.
public struct ScanDoubt: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// The name read names another species than the one the numbers fit.
        case name
        /// The candy's name is of another family.
        case candy
        /// Neither the name nor the candy named it: the height and the Evolve cost did.
        case height
        /// No date was given, and the base stats of another time fit other IVs or species.
        case date
    }

    public var kind: Kind
    /// What the player reads on the card.
    public var message: String
    /// The species (for `date`: the days whose stats differ, YYYY-MM-DD) to choose from, the
    /// scan's own answer first.
    public var choices: [String]
}

/// Reads screenshots and computes their IVs (one reader, so Tesseract is set up once).
public final class ScreenScanner {
    public let reader: ScreenReader
    let calculator: IVCalculator

    /// A scanner on the bundled game tables; `options` go to its `ScreenReader`. An error when
    /// Tesseract cannot start or the bundled tables are damaged.
    public init(options: ScreenReader.Options = .init()) throws {
        calculator = try IVCalculator()
        reader = try ScreenReader(options: options)
    }

    /// Scans `image`. `trainerLevel` (1–80, else an error) lets the arc fix the level;
    /// `statsAsOf` picks the base stats and level rules in force when the screenshot was taken.
    public func scan(_ image: Image, trainerLevel: Int? = nil, statsAsOf date: GameDate? = nil) throws -> ScreenScan {
        let data = calculator.data
        // The rule checks the trainer level before anything is read.
        let highest = try trainerLevel.map { try LevelRules.highestLevel(trainerLevel: $0, on: date) }
        var reading = try reader.read(image)
        var scan = ScreenScan(reading: reading, species: nil, combinations: [], level: nil)
        // The dot's level needs only the trainer level: it stands without the species.
        if let trainerLevel, let arc = reading.arc { scan.level = try arc.level(trainerLevel: trainerLevel, asOf: date, data: data) }
        // Without the stardust (hidden by another app's overlay, say) the levels rest on the
        // arc, or stay open when the trainer level is not given. Without the CP (a banner over
        // it) only the appraisal's bars, which give the IVs themselves, let the scan go on.
        guard let hpMax = reading.hpMax, reading.cp != nil || reading.appraisal != nil,
              reading.name != nil || reading.candyName != nil else { return scan }
        let name = reading.name ?? ""
        func query(_ s: Species) -> IVQuery {
            var q = IVQuery(species: s, cp: reading.cp, hp: hpMax, stardust: reading.stardust)
            // A lucky Pokémon came from a lucky trade: halved costs, every IV at least 12.
            if reading.lucky == true { q.lucky = true; q.obtained = .luckyTrade }
            if let bars = reading.appraisal { q.appraisal = bars.filter }
            if let highest { q.maxLevel = highest }
            return q
        }
        func fits(_ s: Species) -> Bool { !((try? calculator.combinations(query(s))) ?? []).isEmpty }
        // The name as read, else the nearest species name that the numbers fit, else (a
        // nickname, or a name misread beyond repair) the candy's family: its member the
        // numbers fit, the one nearest the name read when several do.
        let exact = try? data.species(name, asOf: date)
        // The stardust digits can be read two ways (the vial before them as a 1, "13500" or
        // "3500"): when the name read does not fit with the first, the other that fits wins.
        if let exact, !fits(exact), let other = reading.stardustAlternatives.first(where: { dust in
            var q = query(exact)
            q.stardust = dust
            return !((try? calculator.combinations(q)) ?? []).isEmpty
        }) {
            reading.stardust = other
            scan.reading.stardust = other
            if var field = scan.reading.fields["stardust"] { field.text = String(other); scan.reading.fields["stardust"] = field }
        }
        var resolved = exact.flatMap { fits($0) ? $0 : nil } ?? data.closestSpecies(to: name, asOf: date, where: fits)
        if resolved == nil, let candy = reading.candyName, let family = data.family(candy: candy) {
            let members = data.species.filter { $0.family == family && $0.form == "Normal" }
                .compactMap { try? data.species($0.name, asOf: date) }.filter(fits)
            resolved = members.min { data.nameDistance(name, $0) < data.nameDistance(name, $1) }
        }
        // Last (a name and candy in another language or script): the one species that the
        // numbers, the Evolve button's candy cost and the height shown all fit — the height
        // within the sizes the game gives (XXS 0.49 to XXL 1.75 times the Pokédex height). The
        // height is read only here: most scans never need it.
        if resolved == nil {
            let shown = try reading.fields["hp"].flatMap { try reader.height(image, hpText: $0.box) }
            if reading.evolveCandy != nil || shown != nil {
                let candidates = data.species.filter { s in
                    s.form == "Normal" && (reading.evolveCandy.map { $0 == s.evolveCandy } ?? true)
                        && (shown.map { s.height > 0 && (0.45 ... 1.8).contains($0.metres / s.height) } ?? true)
                }.compactMap { try? data.species($0.name, asOf: date) }.filter(fits)
                if candidates.count == 1 {
                    resolved = candidates[0]
                    if let shown { scan.reading.fields["height"] = shown.field }
                }
            }
        }
        guard let species = resolved else { return scan }
        scan.species = species
        scan.combinations = try calculator.combinations(query(species))
        scan.doubts = doubts(reading, species: species, combinations: scan.combinations, date: date, query: query)
        // With the readings, the dot picks the nearest of the levels they allow.
        if let trainerLevel, let arc = reading.arc,
           let level = try arc.level(trainerLevel: trainerLevel, asOf: date, data: data, among: Array(Set(scan.combinations.map(\.level)))) {
            scan.level = level
            scan.combinations = scan.combinations.filter { $0.level == level }
        }
        // No dot (another app's marker over it, or no trainer level): the readings may still
        // leave one level.
        if scan.level == nil, let only = scan.combinations.first?.level, scan.combinations.allSatisfy({ $0.level == only }) {
            scan.level = only
        }
        return scan
    }

    /// What disagrees with `species`, the answer the readings resolved to, whose `combinations`
    /// today's stats give (see `ScanDoubt`).
    func doubts(_ reading: ScreenReading, species: Species, combinations found: [IVCombination], date: GameDate?,
                query: (Species) -> IVQuery) -> [ScanDoubt] {
        let data = calculator.data
        var doubts: [ScanDoubt] = []
        let family = (try? data.species(species.name))?.family ?? species.family
        // The name as read names a species (exactly, or within a misread letter in three):
        // it must be this one. A nickname names none and proves nothing either way.
        let name = reading.name ?? ""
        let named = (try? data.species(name)) ?? data.closestSpecies(to: name) { _ in true }
        if let named, GameData.key(named.name) != GameData.key(species.name) {
            doubts.append(ScanDoubt(kind: .name, message: "The name reads “\(name)”, but the CP and HP fit \(species.name), not \(named.name): "
                                        + "check the values and the date, or choose.", choices: [species.name, named.name]))
        }
        // The candy names the family (even under a nickname).
        if let candy = reading.candyName, let candyFamily = data.family(candy: candy),
           GameData.key(candyFamily) != GameData.key(family) {
            let members = data.species.filter { $0.family == candyFamily && $0.form == "Normal" }.map(\.name)
            doubts.append(ScanDoubt(kind: .candy, message: "The candy reads “\(candy)”, of the \(candyFamily) family, not \(species.name)’s: check the species.",
                                    choices: [species.name] + members))
        }
        if named == nil && reading.candyName.flatMap(data.family(candy:)) == nil {
            doubts.append(ScanDoubt(kind: .height, message: "Neither the name nor the candy could be read: \(species.name) fits the height and the Evolve cost. Check the species.",
                                    choices: [species.name]))
        }
        // Without a date, the stats of today apply; if an earlier table gives other IVs (or
        // fits at all where today's do not), the date decides.
        if date == nil {
            let today = Set(found.map { [$0.attack, $0.defense, $0.stamina] })
            let differing = data.history.compactMap { era -> String? in
                let day = era.from ?? GameDate.launch
                guard let then = try? data.species(species.name, asOf: day),
                      let combinations = try? calculator.combinations(query(then)), !combinations.isEmpty else { return nil }
                return Set(combinations.map { [$0.attack, $0.defense, $0.stamina] }) == today ? nil : day.description
            }
            if !differing.isEmpty {
                doubts.append(ScanDoubt(kind: .date, message: "The IVs depend on when the screenshot was taken (the game changed its stats): give its date.",
                                        choices: differing))
            }
        }
        return doubts
    }
}
