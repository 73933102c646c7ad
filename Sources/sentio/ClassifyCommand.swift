import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Name what is in a photo (ImageNet's 1,000 classes, EfficientNet-Lite0 int8), or look for one class.",
        discussion: "--find looks at the whole frame, its centre square and four smaller squares, and says whether the class is there (docs/objects.md).")

    @Argument(help: "A PNG, JPEG or WebP photo.") var image: String
    @Option(help: "How many classes to list.") var top = 5
    @Option(help: "Look for this class (an ImageNet label, e.g. banana, orange, 'Granny Smith').") var find: String?
    @Option(help: "The probability at or above which --find says found.") var threshold = ImageClassifier.defaultThreshold
    @Option(help: "A classifier from the model store (its labels in its metadata).") var model = "efficientnet_lite0"
    @Flag(help: "Print JSON: {\"classes\": [{index, label, score}], \"find\": {label, score, found}}.") var json = false
    @Option(help: "Run N times in one process and print median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    func run() throws {
        guard top >= 0 else { throw ValidationError("--top takes a count of 0 or more") }
        guard (0 ... 1).contains(threshold) else { throw ValidationError("--threshold is a probability, 0…1") }
        let photo = try ImageIO.read(image)
        let classifier = try ImageClassifier(store: CommandEnvironment.store, model: model, pool: ThreadPool(threads: CommandEnvironment.threads(threads)))
        if let find { _ = try classifier.index(of: find) }
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            return try Bench.report(bench) { _ = try classifier.observe(photo, top: top, find: find, threshold: threshold) }
        }
        let report = try classifier.observe(photo, top: top, find: find, threshold: threshold)
        if json { return try JSONOutput.print(report) }
        print("\(image): \(photo.width)×\(photo.height)")
        for c in report.classes { print(String(format: "  %5.1f%%  %@ (%d)", c.score * 100, c.label as NSString, c.index)) }
        if let f = report.find {
            print(String(format: "  %@: %@ (best %.1f%%, threshold %.0f%%)", f.label as NSString, f.found ? "found" : "not found", f.score * 100, threshold * 100))
        }
    }
}
