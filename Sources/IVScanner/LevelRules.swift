/// The rules that tie a Pokémon's level to its trainer's level and the date, in one place:
/// the scanner's level arc, its IV search and `sentio iv calc --trainer-level` all apply them.
public enum LevelRules {
    /// The trainer levels accepted.
    public static let trainerLevels: ClosedRange<Int> = 1 ... 80

    /// The December 2020 update (GO Beyond), from which the level arc reaches trainer level + 10.
    public static let beyondUpdate = GameDate(known: 2020, 12, 1)

    /// The highest level a Pokémon of a trainer at `trainerLevel` can show on `date` (today's
    /// rules without one) — where the level arc ends: the trainer level + 2 (at most 40) until
    /// the December 2020 update, then trainer level + 10, at most 40 below trainer level 40 and
    /// 50 from it (GoIV's rule). The + 2 was measured: on all 16 screenshots with a known level
    /// and trainer level, 2016 to 2018, the dot sits where an exact half circle from level 1 to
    /// trainer level + 2 puts it (docs/iv-scanner.md) — in 2016 too, when a Pokémon could only
    /// be powered up to trainer level + 1.5. The rule after 2020 is not checked on a screenshot.
    /// A trainer level outside 1–80 is an error.
    public static func highestLevel(trainerLevel: Int, on date: GameDate?) throws -> Double {
        guard trainerLevels.contains(trainerLevel) else {
            throw IVError.invalid("a trainer level is \(trainerLevels.lowerBound) to \(trainerLevels.upperBound), not \(trainerLevel)")
        }
        let t = Double(trainerLevel)
        if let date, date < beyondUpdate { return min(t + 2, 40) }
        return min(t + 10, trainerLevel < 40 ? 40 : 50)
    }
}
