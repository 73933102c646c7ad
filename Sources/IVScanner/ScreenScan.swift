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
        let reading = try reader.read(image)
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
}
