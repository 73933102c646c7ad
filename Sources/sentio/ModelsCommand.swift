import ArgumentParser
import SentioNeural

struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "The model files fetched by scripts/fetch-models.",
        subcommands: [List.self, Path.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the models in the store.")
        @Option(help: "Model directory (default: $SENTIO_MODELS or ~/.cache/sentio/models).") var directory: String?

        func run() throws {
            let store = directory.map { ModelStore(directory: $0) } ?? CommandEnvironment.store
            let names = store.available()
            if names.isEmpty {
                throw ModelStoreError.missing(name: "any model", directory: store.directory)
            }
            for name in names { print(name) }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the file of a model.")
        @Argument(help: "Model name, e.g. face_detection_short_range.") var name: String
        @Option(help: "Model directory (default: $SENTIO_MODELS or ~/.cache/sentio/models).") var directory: String?

        func run() throws {
            print(try (directory.map { ModelStore(directory: $0) } ?? CommandEnvironment.store).path(of: name))
        }
    }
}
