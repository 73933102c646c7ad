import ArgumentParser
import Puzzler
import SentioNeural

struct PuzzlerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "puzzler",
        abstract: "The puzzle game's levels on this machine.",
        subcommands: [Levels.self])

    struct Levels: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that every level has its judge and models; exits 1 when one lacks them.",
            discussion: "Each level is loaded as a player's would be. The drawing judge comes from `make drawing-judge`, the rest from `make models`.")
        @Option(help: "Model directory (default: $SENTIO_MODELS or ~/.cache/sentio/models).") var directory: String?
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let store = directory.map { ModelStore(directory: $0) } ?? CommandEnvironment.store
            let entries = LevelReadiness.check(store: store)
            if json {
                try JSONOutput.print(entries)
            } else {
                for entry in entries {
                    print("\(entry.number)\t\(entry.level.rawValue)\t\(entry.problem.map { "MISSING: \($0)" } ?? "ready")")
                }
            }
            let missing = entries.filter { $0.problem != nil }.count
            if missing > 0 {
                if !json { print("\(missing) of \(entries.count) levels cannot be played; models in \(store.directory)") }
                throw ExitCode(1)
            }
        }
    }
}
