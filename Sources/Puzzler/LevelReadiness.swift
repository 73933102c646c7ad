import SentioNeural

/// Whether each level can be played on this machine: its judge and the models it reads are in
/// the model store. A level whose models are missing says so when played; this asks all
/// seventeen at once, for an install to check itself (`sentio puzzler levels`) before a player
/// finds the gap.
public enum LevelReadiness {
    /// One level: nil `problem` when it is ready.
    public struct Entry: Sendable, Encodable {
        public var level: LevelID
        public var number: Int
        public var title: String
        public var problem: String?
    }

    /// Every level in the game's order, each loaded as a player would load it.
    public static func check(store: ModelStore) -> [Entry] {
        LevelID.allCases.map { id in
            let level = Catalogue.level(id)
            var problem: String?
            do {
                _ = try LevelPlayer(level: id, store: store)
            } catch {
                problem = "\(error)"
            }
            return Entry(level: id, number: level.number, title: level.title, problem: problem)
        }.sorted { $0.number < $1.number }
    }
}
