import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

@main
struct Sentio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentio",
        abstract: "Perception and motion sensing for Swift: images, models, faces, hands, motion, hearing.",
        version: "0.1.0",
        subcommands: [FacesCommand.self, FaceCommand.self, HandsCommand.self, PoseCommand.self, ClassifyCommand.self, TrainCommand.self, GesturesCommand.self, StreamsCommand.self, MotionCommand.self, ListenCommand.self, IVCommand.self, ImageCommand.self, ModelCommand.self, ModelsCommand.self, PuzzlerCommand.self, ServeCommand.self, AdminCommand.self])

    static func main() async {
        singleThreadedOpenMP()
        await main(nil)
    }

    /// Debian's Tesseract parallelizes with OpenMP, and on the small fields of a screenshot the
    /// threads cost more than they give: `sentio iv scan` takes less than half the time with
    /// one (measured on this 2-core machine). OpenMP reads its limit from the environment when
    /// the library loads, so the `iv` commands re-execute themselves once with
    /// OMP_THREAD_LIMIT=1 unless the user set it.
    static func singleThreadedOpenMP() {
        #if os(Linux)
        let arguments = CommandLine.arguments
        // `serve` scans screenshots too (POST /api/v1/iv/scan).
        guard arguments.count > 1, ["iv", "serve"].contains(arguments[1]), getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        var argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &argv)
        // Only reached when execv failed: carry on with OpenMP's defaults.
        #endif
    }
}
