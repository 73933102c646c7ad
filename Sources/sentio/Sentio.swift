import ArgumentParser

@main
struct Sentio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentio",
        abstract: "Perception and motion sensing for Swift: images, models, faces, hands, motion.",
        version: "0.1.0",
        subcommands: [FacesCommand.self, FaceCommand.self, HandsCommand.self, PoseCommand.self, GesturesCommand.self, MotionCommand.self, IVCommand.self, ImageCommand.self, ModelCommand.self, ModelsCommand.self])
}
