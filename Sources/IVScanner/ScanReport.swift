/// A scanned screenshot as `sentio iv scan --json` prints it and `POST /api/v1/iv/scan` answers:
/// every key always present (null when not read).
public struct ScanReport: Encodable, Sendable, Equatable {
    /// One IV combination, the percentage to one decimal.
    public struct IV: Codable, Sendable, Equatable {
        public var level: Double, attack: Int, defense: Int, stamina: Int, percent: Double

        public init(_ c: IVCombination) {
            level = c.level; attack = c.attack; defense = c.defense; stamina = c.stamina
            percent = (c.percent * 10).rounded() / 10
        }
    }

    /// A text field read from the screen: its words, Tesseract's confidence and its pixel box
    /// as [x, y, width, height].
    public struct Field: Codable, Sendable, Equatable {
        public var text: String, confidence: Double, box: [Int]
    }

    public var species: String?, form: String?, cp: Int?, hp: Int?, hpMax: Int?, stardustCost: Int?, candyCost: Int?, candyName: String?
    /// "LUCKY POKÉMON" under the name (read from the screen).
    public var lucky: Bool?
    /// The appraisal's three bars when the screen shows them (null otherwise).
    public var appraisal: AppraisalBars?
    public var levels: [Double], ivs: [IV]
    /// The exact level: the dot's (with a trainer level), else the only one the readings allow;
    /// null when neither fixes it.
    public var level: Double?
    /// Where the arc's dot sits, 0 at level 1 to 1 at the highest level (null: no arc found).
    public var arcFraction: Double?
    public var fields: [String: Field]
    /// Whether the name, the candy and the numbers agree on the species and the date does not
    /// change the IVs (``ScreenScan/isSure``): a page shows the card as read only then.
    public var sure: Bool
    /// What disagrees, for the player to settle (empty when sure, or when nothing was resolved).
    public var doubts: [ScanDoubt]

    public init(_ result: ScreenScan) {
        let reading = result.reading, found = result.combinations
        species = result.species?.name; form = result.species?.form
        cp = reading.cp; hp = reading.hp; hpMax = reading.hpMax
        stardustCost = reading.stardust; candyCost = reading.candyCost; candyName = reading.candyName
        lucky = reading.lucky; appraisal = reading.appraisal
        levels = Set(found.map(\.level)).sorted()
        ivs = found.map(IV.init)
        level = result.level
        arcFraction = reading.arc.map { ($0.fraction * 10000).rounded() / 10000 }
        fields = reading.fields.mapValues { Field(text: $0.text, confidence: $0.confidence, box: [$0.box.x, $0.box.y, $0.box.width, $0.box.height]) }
        sure = result.isSure
        doubts = result.doubts
    }

    enum Key: String, CodingKey { case species, form, cp, hp, hpMax, stardustCost, candyCost, candyName, lucky, appraisal, levels, level, ivs, arcFraction, fields, sure, doubts }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(species, forKey: .species); try c.encode(form, forKey: .form); try c.encode(cp, forKey: .cp); try c.encode(hp, forKey: .hp)
        try c.encode(candyCost, forKey: .candyCost); try c.encode(candyName, forKey: .candyName); try c.encode(lucky, forKey: .lucky)
        try c.encode(appraisal, forKey: .appraisal)
        try c.encode(hpMax, forKey: .hpMax); try c.encode(stardustCost, forKey: .stardustCost); try c.encode(levels, forKey: .levels)
        try c.encode(level, forKey: .level)
        try c.encode(ivs, forKey: .ivs); try c.encode(arcFraction, forKey: .arcFraction); try c.encode(fields, forKey: .fields)
        try c.encode(sure, forKey: .sure); try c.encode(doubts, forKey: .doubts)
    }
}
