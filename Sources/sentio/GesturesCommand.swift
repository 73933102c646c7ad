import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

struct GesturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestures",
        abstract: "Track a hand through frames: pinch, air writing (pen and trace) and hand shape per frame.")

    @Option(help: "A folder of frames (name order) or a Y4M file.") var video: String
    @Flag(help: "Print one JSON object per frame (see the README for the keys).") var json = false
    @Option(help: "Pinch threshold: a fraction of the hand's size (e.g. 0.25) or pixels with a px suffix (e.g. 40px).")
    var pinch = "0.25"
    @Flag(help: "Do not mirror the trace (mirroring suits a selfie camera).") var noMirror = false
    @Option(help: "Run the whole clip N times in one process and print per-frame median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    func run() throws {
        let threshold: PinchDetector.Threshold
        if pinch.hasSuffix("px"), let v = Double(pinch.dropLast(2)), v > 0 { threshold = .pixels(v) }
        else if let v = Double(pinch), v > 0 { threshold = .handSize(v) }
        else { throw ValidationError("--pinch takes a fraction (0.25) or pixels (40px), not '\(pinch)'") }
        let video = try VideoFrames.load(self.video)
        let session = try HandGestureSession(pinch: threshold, mirrored: !noMirror, store: CommandEnvironment.store,
                                             pool: ThreadPool(threads: CommandEnvironment.threads(threads)))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            let result = try Bench.run(bench) {
                session.reset()
                for (i, f) in video.frames.enumerated() { _ = try session.process(f, time: video.time(of: i)) }
            }
            let n = Double(video.frames.count)
            return try JSONOutput.print(Bench.Result(median_ms: result.median_ms / n, min_ms: result.min_ms / n, max_ms: result.max_ms / n, runs: bench))
        }
        for (i, frame) in video.frames.enumerated() {
            let report = try session.process(frame, time: video.time(of: i))
            if json { try JSONOutput.print(report) } else {
                print("frame \(i): \(report.hands) hand, pinch \(report.pinch ? "yes" : "no"), pen \(report.pen ? "down" : "up"), "
                    + "\(report.gesture ?? "no shape"), \(report.trace.reduce(0) { $0 + $1.count }) trace points")
            }
        }
    }
}
