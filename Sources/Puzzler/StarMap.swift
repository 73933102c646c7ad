/// The night-sky map's rules: which stars are open.
///
/// The original's rules: two levels are open at the start; solving a level opens its
/// neighbours (every level has at least two); and at least two levels are always open while two
/// are unsolved — when solving leaves fewer, the locked stars nearest the solved one open.
public enum StarMap {
    /// The stars open at the start: a face level and a touch level, so a player without a
    /// camera can still begin.
    public static let startOpen: [LevelID] = [.eyes, .sos]

    /// The fewest open, unsolved levels while that many are unsolved.
    public static let minimumOpen = 2

    /// The levels that open when `level` is solved, given what was opened and solved before
    /// (`solved` does not yet hold `level`). In the order they open: neighbours first, then
    /// the nearest stars if the minimum needs them.
    public static func opening(after level: LevelID, opened: Set<LevelID>, solved: Set<LevelID>) -> [LevelID] {
        var opened = opened.union([level])
        let solved = solved.union([level])
        var newly: [LevelID] = []
        for neighbour in Catalogue.level(level).neighbours where !opened.contains(neighbour) {
            opened.insert(neighbour)
            newly.append(neighbour)
        }
        let unsolved = LevelID.allCases.filter { !solved.contains($0) }
        let needed = min(minimumOpen, unsolved.count)
        let here = Catalogue.level(level)
        // Nearest first: the map's distance, then the level number to break ties.
        let locked = unsolved.filter { !opened.contains($0) }.sorted {
            let a = Catalogue.level($0), b = Catalogue.level($1)
            let da = (a.x - here.x) * (a.x - here.x) + (a.y - here.y) * (a.y - here.y)
            let db = (b.x - here.x) * (b.x - here.x) + (b.y - here.y) * (b.y - here.y)
            return da != db ? da < db : a.number < b.number
        }
        var open = unsolved.filter { opened.contains($0) }.count
        for star in locked where open < needed {
            newly.append(star)
            open += 1
        }
        return newly
    }

    /// The state of every level for a player who opened `opened` and solved `solved`.
    public static func state(of id: LevelID, opened: Set<LevelID>, solved: Set<LevelID>) -> LevelState {
        solved.contains(id) ? .solved : opened.contains(id) ? .open : .locked
    }
}

/// Where a player stands on a level.
public enum LevelState: String, Sendable, Codable {
    case locked, open, solved
}
